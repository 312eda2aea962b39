"""Tool-list changes of one connection: those the server announced, and whether the runner has listed them yet.

A tool a server adds during a call (it sends notifications/tools/list_changed before
answering) must be in the pool of the model's next request. The runner lists again in
the background, so the call's result waits until the list covers every change heard
so far (`settled`); bounded, so a server that never answers the listing cannot hold a turn.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ToolsChange:
    """What a new listing changed: tool names (as the model sees them) added and removed."""

    added: tuple[str, ...]
    removed: tuple[str, ...]

    @classmethod
    def between(cls, before: Sequence[str], after: Sequence[str]) -> ToolsChange:
        """The difference from `before` to `after`."""
        return cls(tuple(sorted(set(after) - set(before))), tuple(sorted(set(before) - set(after))))

    def describe(self) -> str:
        """'added a, b; removed c' (or 'the same tools, updated')."""
        lists = (("added", self.added), ("removed", self.removed))
        parts = [f"{verb} {', '.join(names)}" for verb, names in lists if names]
        return "; ".join(parts) or "the same tools, updated"


class ToolChanges:
    """Counts announced changes against listed ones; `pending` wakes the runner, `settled` releases callers."""

    def __init__(self, settle_timeout: float) -> None:
        self.pending = asyncio.Event()
        self._heard = 0
        self._listed = 0
        self._settled = asyncio.Event()
        self._settled.set()
        self._settle_timeout = settle_timeout

    def hear(self) -> None:
        """The server said its tools changed (called synchronously from the SDK's notification path)."""
        self._heard += 1
        self._settled.clear()
        self.pending.set()

    def take(self) -> int:
        """Start a listing: it covers every change heard until now."""
        self.pending.clear()
        return self._heard

    def listed(self, covered: int) -> None:
        """A listing that began at `take() == covered` is in place (or failed: nothing better will come of waiting)."""
        self._listed = max(self._listed, covered)
        if self._listed >= self._heard:
            self._settled.set()

    def close(self) -> None:
        """The connection ended: release whoever waits."""
        self._listed = self._heard
        self._settled.set()

    async def settled(self) -> None:
        """Wait until the tools in use reflect every change heard so far (at most `settle_timeout`)."""
        if self._settled.is_set():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settled.wait(), self._settle_timeout)
