"""The client's view of a session's background work: the `background` chat event and `handrail.backgroundTasks`."""

from __future__ import annotations

from handrail.agent.ports import ChatSink
from handrail.agent.session import Session
from handrail.tools.background_agents import background_tasks
from handrail.wire.models import BackgroundTask


def background_listing(session: Session) -> list[BackgroundTask]:
    """The session's background agents and shells, as the client sees them."""
    tasks = background_tasks(session.background_agents, session.shell.background)
    return [BackgroundTask.model_validate(task.as_json()) for task in tasks]


class BackgroundWatch:
    """Tells the session's chat (kind `background`) whenever the list of its background work changes."""

    def __init__(self) -> None:
        self._last: dict[str, list[BackgroundTask]] = {}

    def watch(self, session: Session, chat: ChatSink) -> None:
        """Start telling the client about this session's background work (once per session)."""
        if session.id in self._last:
            return
        self._last[session.id] = background_listing(session)
        session.background_agents.listeners.append(lambda: self._changed(session, chat))
        session.shell.background.listeners.append(lambda: self._changed(session, chat))

    def _changed(self, session: Session, chat: ChatSink) -> None:
        listing = background_listing(session)
        if listing == self._last.get(session.id):
            return
        self._last[session.id] = listing
        chat.background(listing)
