"""A turn's tool pool that follows the MCP servers: rebuilt when their tools changed since it last looked.

A server may add or remove tools during a turn (tools/list_changed, often as the
effect of one of its own tools). The turn holds one `LiveToolPool`; each model
request and each tool lookup asks it for the current pool, which is assembled
again (same rules: built-ins sorted, then MCP tools sorted, so the prompt-cache
prefix of built-ins is untouched) only when the MCP tool tuple is no longer the
one it was built from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

from handrail.tools.protocol import Tool
from handrail.tools.registry import ToolPool


def _same_tools(a: Sequence[Tool[Any]], b: Sequence[Tool[Any]]) -> bool:
    # runners replace their tool tuple when it changes, so identity tells a change apart cheaply
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


class LiveToolPool:
    """`ToolPool`'s reading side over `assemble(mcp_tools())`, reassembled when `mcp_tools()` changed."""

    def __init__(
        self, mcp_tools: Callable[[], Sequence[Tool[Any]]], assemble: Callable[[Sequence[Tool[Any]]], ToolPool]
    ) -> None:
        self._mcp_tools = mcp_tools
        self._assemble = assemble
        self._seen = tuple(mcp_tools())
        self._pool = assemble(self._seen)

    @property
    def current(self) -> ToolPool:
        """The pool for the MCP tools as they are now."""
        now = tuple(self._mcp_tools())
        if not _same_tools(now, self._seen):
            self._seen, self._pool = now, self._assemble(now)
        return self._pool

    @property
    def tools(self) -> Sequence[Tool[Any]]:
        """Every tool, in pool order, read afresh at each use (for the executor and sub-agents)."""
        return _LiveTools(self)

    def find(self, name: str) -> Tool[Any] | None:
        """Lookup by name or alias."""
        return self.current.find(name)

    def deferred(self) -> tuple[Tool[Any], ...]:
        """Tools left out of the request until ToolSearch loads them."""
        return self.current.deferred()

    def definitions(self, loaded: Sequence[str] = ()) -> list[dict[str, Any]]:
        """What the next request sends (see `ToolPool.definitions`)."""
        return self.current.definitions(loaded)


class _LiveTools(Sequence[Tool[Any]]):
    """A read-only sequence that is always the live pool's current tools."""

    def __init__(self, pool: LiveToolPool) -> None:
        self._pool = pool

    @overload
    def __getitem__(self, index: int) -> Tool[Any]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Tool[Any]]: ...
    def __getitem__(self, index: int | slice) -> Tool[Any] | Sequence[Tool[Any]]:
        return self._pool.current.tools[index]

    def __len__(self) -> int:
        return len(self._pool.current.tools)

    def __iter__(self) -> Iterator[Tool[Any]]:
        return iter(self._pool.current.tools)  # one snapshot per iteration
