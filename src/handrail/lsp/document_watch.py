"""Waiting for an open document to reach a state, woken by the editor's didChange/didClose notifications."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class DocumentWatch:
    """Lets writers wait until an open document reaches a given state (fed by didChange/didClose)."""

    def __init__(self) -> None:
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []

    def changed(self) -> None:
        """Wake the waiters whose condition now holds."""
        still: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        for condition, future in self._waiters:
            if future.done():
                continue
            if condition():
                future.set_result(None)
            else:
                still.append((condition, future))
        self._waiters = still

    async def wait_until(self, condition: Callable[[], bool], limit: float) -> bool:
        """Wait until `condition()` holds; False when `limit` seconds passed first."""
        if condition():
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((condition, future))
        try:
            await asyncio.wait_for(future, limit)
        except TimeoutError:
            return False
        return True
