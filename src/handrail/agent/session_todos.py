"""The session's task list as TodoWrite sees it: kept on the session, shown in the chat view."""

from __future__ import annotations

from collections.abc import Sequence

from handrail.agent.ports import ChatSink
from handrail.agent.session import Session
from handrail.tools.todos import TodoItem


class SessionTodos:
    """A TodoBoard over the session's list that tells the client each time it changes."""

    def __init__(self, session: Session, chat: ChatSink) -> None:
        self._session = session
        self._chat = chat

    def current(self) -> tuple[TodoItem, ...]:
        """The list now."""
        return self._session.todos

    def replace(self, todos: Sequence[TodoItem]) -> None:
        """Keep the new list and send it whole (chat kind `todos`)."""
        self._session.todos = tuple(todos)
        self._chat.todos(self._session.todos)
