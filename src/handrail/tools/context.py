"""ToolUseContext and the ports through which tools reach the editor and the user."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from handrail.permissions.context import PermissionContext
from handrail.tools.background_agents import BackgroundAgents
from handrail.tools.editor_diagnostics import EditorDiagnostics, NoDiagnostics
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import WorkspaceFileSystem
from handrail.tools.messages import Message
from handrail.tools.modes import ModeControl
from handrail.tools.questions import UserQuestions
from handrail.tools.shell_session import ShellSession
from handrail.tools.skills import SkillHost
from handrail.tools.small_model import SmallModel
from handrail.tools.todos import TodoBoard


@dataclass(frozen=True)
class AgentOrigin:
    """The sub-agent a call comes from: its Task call's tool_use id and description."""

    tool_use_id: str
    description: str


@dataclass(frozen=True)
class PermissionRequest:
    """What the user is shown when a tool call needs approval.

    `command` is the exact command a shell call runs (shown first: it is what runs), and
    `description` what the model says it does (shown second: the model wrote it).
    `suggestions` are the rules an "always allow" answer adds, all of them together.
    """

    tool_name: str
    tool_use_id: str
    input: Mapping[str, Any]
    summary: str
    reason: str
    diff: str | None = None
    suggestions: tuple[str, ...] = ()
    agent: AgentOrigin | None = None
    command: str | None = None
    description: str | None = None


@dataclass(frozen=True)
class PermissionAnswer:
    """The user's answer: allow once, allow always (adding `rules`), or deny (with optional feedback).

    `rules` empty means the request's suggestions. `message`, when set, is what the model is told
    of a denial instead of the usual text (a prompter that could ask no one says why).
    """

    decision: Literal["allow", "allow_always", "deny", "cancelled"]
    rules: tuple[str, ...] = ()
    feedback: str | None = None
    destination: Literal["session", "localSettings", "projectSettings", "userSettings"] = "session"
    message: str | None = None


class UserPrompter(Protocol):
    """The port for asking the user things."""

    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        """Ask whether a tool call may run."""
        ...


class ProgressReporter(Protocol):
    """The port for live tool activity: start, progress, end of each call."""

    def tool_started(self, tool_use_id: str, name: str, summary: str) -> None:
        """A tool call was accepted and is about to run (or be asked about)."""
        ...

    def tool_progress(self, tool_use_id: str, message: str) -> None:
        """Report a line of progress for a running tool call."""
        ...

    def tool_finished(self, tool_use_id: str, *, is_error: bool, text: str) -> None:
        """A tool call ended; `text` is (a preview of) what the model gets."""
        ...


class AuditLog(Protocol):
    """The port that keeps a record of every permission decision."""

    def record(self, entry: Mapping[str, Any]) -> None:
        """Append one decision."""
        ...


class NullAudit:
    """An AuditLog that keeps nothing."""

    def record(self, entry: Mapping[str, Any]) -> None:
        """Drop the entry."""


class NullProgress:
    """A ProgressReporter that drops everything."""

    def tool_started(self, tool_use_id: str, name: str, summary: str) -> None:
        """Drop the report."""

    def tool_progress(self, tool_use_id: str, message: str) -> None:
        """Drop the report."""

    def tool_finished(self, tool_use_id: str, *, is_error: bool, text: str) -> None:
        """Drop the report."""


class DescribedTool(Protocol):
    """What ToolSearch sees of a tool."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def search_hint(self) -> str: ...

    @property
    def aliases(self) -> tuple[str, ...]: ...


class ToolCatalog(Protocol):
    """The session's deferred tools, and the way to load them into the next requests."""

    def deferred(self) -> Sequence[DescribedTool]:
        """Tools the model has not been sent yet."""
        ...

    def load(self, names: Sequence[str]) -> None:
        """Send these tools' full definitions from the next request on."""
        ...


class PermissionUpdates:
    """The session's current permission context, and a way to wait until it changes.

    A prompt still open when an "always allow" answer (or a settings reload) changes
    the rules is decided again: if the new rules settle it, it closes by itself.
    """

    def __init__(self, current: Callable[[], PermissionContext]) -> None:
        self._current = current
        self._changed = asyncio.Event()

    def current(self) -> PermissionContext:
        """The context in force now."""
        return self._current()

    def notify(self) -> None:
        """The context changed: wake everyone waiting."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait(self) -> None:
        """Return at the next change."""
        await self._changed.wait()


@dataclass(frozen=True)
class SubAgentRequest:
    """What a Task call asks for: a short description, the sub-agent's prompt, and its type."""

    description: str
    prompt: str
    agent_type: str


class SubAgentRunner(Protocol):
    """The port through which the Task tool starts sub-agents (the server runs them)."""

    def agent_types(self) -> Mapping[str, str]:
        """The agent types available, each with a description of when to use it."""
        ...

    def known_agent(self, name: str) -> bool:
        """Whether an agent type is called `name` (the case of the letters aside, as the model may write it)."""
        ...

    async def run_agent(self, request: SubAgentRequest, ctx: ToolUseContext) -> str:
        """Run a sub-agent for the call bound in `ctx` to its end; its final text (ToolError on failure)."""
        ...

    def start_background(self, request: SubAgentRequest, ctx: ToolUseContext) -> str:
        """Start a sub-agent in the background (owned by the session, headless); its task id."""
        ...


@dataclass(frozen=True)
class ToolOptions:
    """Settings tools read: where the workspace is and how much they may return."""

    cwd: Path
    workspace_roots: tuple[Path, ...]
    tool_names: tuple[str, ...] = ()
    bash_timeout_ms: int = 120_000
    bash_max_timeout_ms: int = 600_000
    results_dir: Path | None = None
    session_id: str = ""


@dataclass(frozen=True, kw_only=True)
class ToolUseContext:
    """Everything a tool call may use; tools never reach the server any other way."""

    options: ToolOptions
    fs: WorkspaceFileSystem
    file_state: FileStateCache
    prompter: UserPrompter
    progress: ProgressReporter = field(default_factory=NullProgress)
    permission_context: PermissionContext = field(default_factory=PermissionContext)
    abort: asyncio.Event = field(default_factory=asyncio.Event)
    messages: Sequence[Message] = ()
    tool_use_id: str = ""
    catalog: ToolCatalog | None = None
    audit: AuditLog = field(default_factory=NullAudit)
    permission_updates: PermissionUpdates | None = None
    shell: ShellSession | None = None  # the session's Bash working directory and background shells
    agents: SubAgentRunner | None = None
    todos: TodoBoard | None = None
    # None where there is no user to ask / no session mode / no small model (sub-agents, tests)
    questions: UserQuestions | None = None
    modes: ModeControl | None = None
    small_model: SmallModel | None = None
    diagnostics: EditorDiagnostics = field(default_factory=NoDiagnostics)
    background_agents: BackgroundAgents | None = None  # the session's, for TaskOutput, TaskStop, SendMessage
    # the user's prompt of the turn where `messages` do not start from it (a sub-agent's begin with its task)
    user_prompt: str | None = None
    skills: SkillHost | None = None

    def for_call(self, tool_use_id: str) -> ToolUseContext:
        """This context, bound to one tool call."""
        return replace(self, tool_use_id=tool_use_id)

    def report(self, message: str) -> None:
        """Report progress for the bound tool call."""
        self.progress.tool_progress(self.tool_use_id, message)

    def session_cwd(self) -> Path:
        """Where the session's next shell command starts (the workspace root unless a `cd` moved it); no I/O."""
        root = self.options.cwd
        return self.shell.cwd_or(root) if self.shell is not None else root
