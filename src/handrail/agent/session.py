"""A conversation with the agent: its history, what it read, and the rules it was given."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from handrail.agent.system_prompt import SessionDate
from handrail.agent.usage import UsageTotals
from handrail.permissions.context import PermissionContext
from handrail.permissions.modes import PermissionMode
from handrail.permissions.rules import PermissionRule
from handrail.tools.background_agents import BackgroundAgents
from handrail.tools.context import PermissionUpdates
from handrail.tools.file_state import FileStateCache
from handrail.tools.live_pool import LiveToolPool
from handrail.tools.messages import ContentBlock, Message
from handrail.tools.protocol import Tool
from handrail.tools.registry import ToolPool
from handrail.tools.shell_session import ShellSession
from handrail.tools.todos import TodoItem


def content_blocks(message: Mapping[str, Any]) -> list[ContentBlock]:
    """A history message's content as a list of blocks (a plain string is one text block).

    Also where a message loaded from JSON (a transcript) becomes typed: its blocks are taken as they are.
    """
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list) else []


@dataclass
class Session:
    """One conversation; its turns run one at a time."""

    id: str
    permission_context: PermissionContext
    messages: list[Message] = field(default_factory=list)
    file_state: FileStateCache = field(default_factory=FileStateCache)
    turn: asyncio.Task[Any] | None = None
    loaded_tools: list[str] = field(default_factory=list)
    rules: list[PermissionRule] = field(default_factory=list)
    turn_rules: list[PermissionRule] = field(default_factory=list)  # granted by skills until the turn ends
    mode: PermissionMode | None = None
    # tokens the last model request and its answer took (from the API's usage): when to compact
    context_tokens: int = 0
    shell: ShellSession = field(default_factory=ShellSession)
    # the mode to go back to when plan mode ends (None: the server's default)
    mode_before_plan: PermissionMode | None = None
    updates: PermissionUpdates = field(init=False)
    todos: tuple[TodoItem, ...] = ()
    instruction_files: set[Path] = field(default_factory=set)  # nested instruction files already shown
    background_agents: BackgroundAgents = field(default_factory=BackgroundAgents)
    usage: UsageTotals = field(default_factory=UsageTotals)  # every model request of the session, priced
    date: SessionDate = field(default_factory=SessionDate)  # the date its system prompt states

    def __post_init__(self) -> None:
        self.updates = PermissionUpdates(lambda: self.permission_context)

    def set_context(self, context: PermissionContext) -> None:
        """Put a new permission context in force; open prompts are decided again."""
        self.permission_context = context
        self.updates.notify()

    starting: bool = False
    stopping: bool = False  # the running turn was cancelled: one new ask may wait for it to wind down
    next_ask: asyncio.Event | None = None  # that ask waits on it; set when the running ask lets the session go

    @property
    def busy(self) -> bool:
        """Whether a turn is running now (or being set up, or waiting for a cancelled one to end)."""
        return self.starting or self.next_ask is not None or (self.turn is not None and not self.turn.done())

    def allow_always(self, rule: PermissionRule) -> None:
        """Remember an "always allow" answer for the rest of the session."""
        if rule not in self.rules:
            self.rules.append(rule)
        self.set_context(self.permission_context.with_rule("allow", rule))


class SessionCatalog:
    """The session's deferred tools (a ToolCatalog for ToolSearch); loaded ones are sent from then on."""

    def __init__(self, session: Session, pool: ToolPool | LiveToolPool) -> None:
        self._session = session
        self._pool = pool

    def deferred(self) -> Sequence[Tool[Any]]:
        """Deferred tools not loaded yet."""
        return [t for t in self._pool.deferred() if t.name not in self._session.loaded_tools]

    def load(self, names: Sequence[str]) -> None:
        """Send these tools from the next request on, appended after those already loaded."""
        for name in names:
            if name not in self._session.loaded_tools:
                self._session.loaded_tools.append(name)


class SessionStore:
    """The server's sessions by id."""

    def __init__(self) -> None:
        self._sessions: dict[str, Session] = {}

    def get(self, session_id: str) -> Session | None:
        """The session with this id, if any."""
        return self._sessions.get(session_id)

    def create(self, permission_context: PermissionContext, session_id: str | None = None) -> Session:
        """A new session (with the given id, or a fresh one)."""
        session = Session(id=session_id or uuid.uuid4().hex[:12], permission_context=permission_context)
        self._sessions[session.id] = session
        return session

    def all(self) -> tuple[Session, ...]:
        """Every session."""
        return tuple(self._sessions.values())
