"""What the agent asks of the editor: protocols the language server (`handrail.lsp`) implements, and tests in
memory.

`Workspace` and `Notices` belong to the connection and are given to `AgentHost` once: MCP servers, settings
reloads and background agents report through them whenever they have something to say. `EditorPorts` is the
editor an operation works with: its documents, its diagnostics, its dialogs, the chat and the prompts of a
turn, and the client's settings.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from handrail.permissions.persist import Destination
from handrail.tools.context import UserPrompter
from handrail.tools.editor_diagnostics import EditorDiagnostics
from handrail.tools.filesystem import WorkspaceFileSystem
from handrail.tools.questions import UserQuestions
from handrail.tools.todos import TodoItem
from handrail.wire.models import BackgroundTask, TurnError, Usage

RulePersister = Callable[[Destination, Sequence[str]], Awaitable[Path | None]]
"""Saves "always allow" rules where the user chose (None: for the session only, nothing written)."""


class Workspace(Protocol):
    """The workspace as the editor opened it."""

    def roots(self) -> tuple[Path, ...]:
        """The workspace folders (the server's working directory when the editor named none)."""
        ...

    def init_options(self) -> Mapping[str, Any]:
        """The editor's `initializationOptions`."""
        ...

    def client_trusted(self) -> bool | None:
        """The editor's word on workspace trust (None: it gives none)."""
        ...


class Notices(Protocol):
    """Messages to the user that need no answer."""

    def warn(self, message: str) -> None:
        """Something went wrong that the user can fix: shown to them."""
        ...

    def log(self, message: str, *, warning: bool = False) -> None:
        """A line for the editor's log of the server."""
        ...

    def held_back(self, message: str) -> None:
        """What of the workspace's settings does not take effect, and why: shown to the user, unless their
        client shows the permissions report (`handrail.permissions`) itself; then only logged."""
        ...


class Dialogs(Protocol):
    """Plain questions to the user, outside any tool call (approving a workspace's settings or MCP servers)."""

    async def choose(self, message: str, actions: Sequence[str]) -> str | None:
        """The action the user picked (None when the question was dismissed)."""
        ...

    async def approve_server(self, session_id: str, server: str, question: str) -> bool:
        """Whether the user approves starting the workspace's MCP server `server`, asked with `question` (its
        definition as written) in the chat of the session about to run a turn where the client has one, else
        as a plain question with Approve / Not now."""
        ...


class ChatSink(Protocol):
    """What the client sees of a session: its turns as they happen, its mode, its todos and background work.

    A turn's sink also carries the turn's progress in the editor (`on_cancel`, `end_progress`).
    """

    @property
    def streamed_text(self) -> str:
        """The text streamed so far in this turn (since the last retry)."""
        ...

    def turn_started(self, prompt: str) -> None:
        """A turn began."""
        ...

    def text(self, delta: str) -> None:
        """A piece of the answer."""
        ...

    def thinking(self, delta: str) -> None:
        """A piece of the model's thinking."""
        ...

    def retry(self, reason: str) -> None:
        """The model request failed and is sent again."""
        ...

    def tool_started(self, tool_use_id: str, name: str, summary: str) -> None:
        """A tool call begins."""
        ...

    def tool_progress(self, tool_use_id: str, message: str) -> None:
        """A running tool call reports progress."""
        ...

    def tool_finished(self, tool_use_id: str, *, is_error: bool, text: str) -> None:
        """A tool call ended."""
        ...

    def adopt(self, tool_use_id: str, parent_tool_use_id: str) -> None:
        """Mark a call as a sub-agent's, started by the Task call `parent_tool_use_id`."""
        ...

    def mode(self, mode: str) -> None:
        """The session's permission mode changed."""
        ...

    def todos(self, todos: Sequence[TodoItem]) -> None:
        """The session's task list changed (the whole list)."""
        ...

    def background(self, tasks: Sequence[BackgroundTask]) -> None:
        """The session's background agents and shells changed (the whole list)."""
        ...

    def turn_ended(
        self, stop_reason: str, text: str, usage: Usage | None = None, error: TurnError | None = None
    ) -> None:
        """A turn ended."""
        ...

    def on_cancel(self, callback: Callable[[], object]) -> None:
        """Call `callback` when the user cancels the turn's progress in the editor."""
        ...

    def end_progress(self, message: str) -> None:
        """The turn's progress in the editor ends."""
        ...


@dataclass(frozen=True)
class TurnView:
    """What the editor shows of one turn: the chat, and the prompts and questions of its tool calls."""

    chat: ChatSink
    prompter: UserPrompter
    questions: UserQuestions


class Chats(Protocol):
    """Opens the chat of a session."""

    async def begin_turn(self, session_id: str, persist: RulePersister) -> TurnView:
        """The chat of a turn about to start, with its progress in the editor and its prompts."""
        ...

    def session(self, session_id: str) -> ChatSink:
        """The chat of a session between turns (mode changes, background work)."""
        ...


class ClientSettings(Protocol):
    """The client's `handrail` settings."""

    async def section(self) -> Mapping[str, Any]:
        """The settings section as the client has it now."""
        ...


@dataclass(frozen=True)
class EditorPorts:
    """The editor an operation works with (the language server makes one per request)."""

    files: WorkspaceFileSystem
    diagnostics: EditorDiagnostics
    dialogs: Dialogs
    chats: Chats
    settings: ClientSettings
