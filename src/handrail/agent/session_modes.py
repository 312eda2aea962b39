"""A session's permission mode as tools change it (EnterPlanMode, ExitPlanMode), told to the chat view."""

from __future__ import annotations

from collections.abc import Callable

from handrail.agent.ports import ChatSink
from handrail.agent.session import Session
from handrail.permissions.modes import PermissionMode

PLAN: PermissionMode = "plan"


def set_session_mode(session: Session, mode: PermissionMode | None, apply: Callable[[Session], None]) -> None:
    """Put `mode` in force for `session` (None: the server's default), remembering the mode before plan mode."""
    if mode == PLAN and session.permission_context.mode != PLAN:
        session.mode_before_plan = session.mode
    session.mode = mode
    apply(session)


class SessionModes:
    """Implements the tool ModeControl port for one session."""

    def __init__(self, session: Session, apply: Callable[[Session], None], chat: ChatSink) -> None:
        self._session = session
        self._apply = apply  # recomputes the session's permission context from its mode
        self._chat = chat

    def mode(self) -> str:
        """The mode in force now."""
        return self._session.permission_context.mode

    def enter_plan_mode(self) -> None:
        """Switch to plan mode, remembering the mode to go back to."""
        set_session_mode(self._session, PLAN, self._apply)
        self._chat.mode(self.mode())

    def exit_plan_mode(self) -> str:
        """Go back to the mode before plan mode (default when that would still be plan)."""
        set_session_mode(self._session, self._session.mode_before_plan, self._apply)
        if self.mode() == PLAN:  # the server's default is plan: leave it all the same
            set_session_mode(self._session, "default", self._apply)
        self._session.mode_before_plan = None
        self._chat.mode(self.mode())
        return self.mode()
