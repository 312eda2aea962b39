"""The tool registry: the pool of tools a session offers, and lookup by name or alias."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from handrail.tools.protocol import Tool


def all_base_tools() -> tuple[Tool[Any], ...]:
    """Every built-in tool that is enabled here, sorted by name (the one source of truth)."""
    from handrail.tools.builtin import builtin_tools

    return tuple(sorted((t for t in builtin_tools() if t.is_enabled()), key=lambda t: t.name))


def find_tool(tools: Iterable[Tool[Any]], name: str) -> Tool[Any] | None:
    """The tool called `name` (or with `name` as an alias), if any."""
    for tool in tools:
        if tool.matches_name(name):
            return tool
    return None


def tool_definitions(tools: Sequence[Tool[Any]]) -> list[dict[str, Any]]:
    """The definitions sent to the model, in pool order."""
    return [tool.definition() for tool in tools]
