"""The port through which tools change the session's permission mode (plan mode)."""

from __future__ import annotations

from typing import Protocol


class ModeControl(Protocol):
    """The session's permission mode, and entering and leaving plan mode."""

    def mode(self) -> str:
        """The mode in force now."""
        ...

    def enter_plan_mode(self) -> None:
        """Switch to plan mode, remembering the mode in force to go back to."""
        ...

    def exit_plan_mode(self) -> str:
        """Go back to the mode remembered when plan mode began; returns that mode."""
        ...
