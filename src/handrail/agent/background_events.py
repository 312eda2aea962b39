"""The client's view of a session's background work: the `background` chat event and `handrail.backgroundTasks`."""

from __future__ import annotations

from typing import Any

from pygls.lsp.server import LanguageServer

from handrail.agent.session import Session
from handrail.lsp.chat import CHAT_METHOD
from handrail.tools.background_agents import background_tasks


def background_listing(session: Session) -> list[dict[str, str]]:
    """The session's background agents and shells, as the client sees them."""
    return [task.as_json() for task in background_tasks(session.background_agents, session.shell.background)]


class BackgroundWatch:
    """Sends chat kind `background` {tasks} whenever the list of a session's background work changes."""

    def __init__(self, server: LanguageServer) -> None:
        self._server = server
        self._last: dict[str, list[dict[str, str]]] = {}

    def watch(self, session: Session) -> None:
        """Start telling the client about this session's background work (once per session)."""
        if session.id in self._last:
            return
        self._last[session.id] = background_listing(session)
        session.background_agents.listeners.append(lambda: self._changed(session))
        session.shell.background.listeners.append(lambda: self._changed(session))

    def _changed(self, session: Session) -> None:
        listing = background_listing(session)
        if listing == self._last.get(session.id):
            return
        self._last[session.id] = listing
        params: dict[str, Any] = {"sessionId": session.id, "kind": "background", "tasks": listing}
        self._server.protocol.notify(CHAT_METHOD, params)
