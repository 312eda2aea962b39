"""The port for a small, fast model call (WebFetch answers its prompt from a page with it)."""

from __future__ import annotations

from typing import Protocol

from handrail.errors import HandrailError


class SmallModelError(HandrailError):
    """The small model could not answer (not reachable, refused, timed out)."""


class SmallModel(Protocol):
    """One short completion from a small model."""

    async def complete(self, *, system: str, prompt: str) -> str:
        """The model's text answer; raises SmallModelError when it cannot give one."""
        ...
