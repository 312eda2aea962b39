"""Sub-agents: the server side of the Task tool.

A sub-agent is a conversation of its own (its own messages) run by the same
agent loop, with a restricted tool set. It shares the parent session's
permission context (an "always allow" it is given holds for the session), its
file-state cache and the editor's file system. Its permission prompts go to the
same user, marked as coming from it; a runner with no user interface denies
them instead. Its tool activity is shown under the parent's Task call; its text
is not streamed: its final message is the Task call's result. Cancelling the
Task call (the parent turn stopping) cancels the sub-agent's turn.

A background sub-agent (Task with `run_in_background`) is a task of the
session instead (see tools/background_agents.py): it gets only the async-safe
tools, its asks are denied (no turn, no prompt to attach them to), it shows in
the client's list of background work, and only TaskStop, the session's end or
the server's shutdown stops it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from handrail.agent.agent_loop import TurnConfig, run_turn
from handrail.agent.model_client import DEFAULT_MODEL, ModelClient, ModelSettings
from handrail.agent.ports import ChatSink
from handrail.agent.project_instructions import NestedInstructions
from handrail.agent.session import Session, SessionCatalog
from handrail.agent.skill_host import ProblemReporter
from handrail.agent.system_prompt import agent_system_prompt
from handrail.agent.turn_ports import TurnPorts
from handrail.agent.usage import TurnUsage
from handrail.permissions.context import PermissionContext
from handrail.permissions.rules import PermissionRule
from handrail.permissions.trust import Approvals
from handrail.tools.agent_definitions import AgentCatalog, load_agent_catalog
from handrail.tools.agent_tool_sets import agent_tools
from handrail.tools.background_agents import BackgroundAgent
from handrail.tools.builtin_agents import BUILTIN_AGENTS
from handrail.tools.context import (
    AgentOrigin,
    NullProgress,
    PermissionAnswer,
    PermissionRequest,
    ProgressReporter,
    SubAgentRequest,
    ToolUseContext,
    UserPrompter,
)
from handrail.tools.errors import ToolError
from handrail.tools.execution import ToolUse
from handrail.tools.protocol import Tool
from handrail.tools.registry import ToolPool, denied_outright
from handrail.tools.todos import MemoryTodoBoard

log = logging.getLogger(__name__)

# the short names agent files use; "sonnet" follows the server's default model
MODEL_ALIASES: Mapping[str, str] = {
    "sonnet": DEFAULT_MODEL,
    "opus": "claude-opus-5-5",
    "haiku": "claude-haiku-5-5",
}

HEADLESS_DENIAL = (
    "This sub-agent runs without a user interface, so no one could approve this {tool} call and it was denied. "
    "Only calls the permission rules allow can run here; say in your report what you could not do."
)


class AgentSession(Session):
    """A sub-agent's conversation: its own messages; the parent's file state; rules it is given go to the parent."""

    def __init__(self, parent: Session, session_id: str) -> None:
        super().__init__(id=session_id, permission_context=parent.permission_context, file_state=parent.file_state)
        self.parent = parent

    def allow_always(self, rule: PermissionRule) -> None:
        """An "always allow" answer to the sub-agent holds for the whole session."""
        self.parent.allow_always(rule)


class AgentPrompter:
    """Asks the parent's user, marking each request as coming from the sub-agent."""

    def __init__(self, inner: UserPrompter, origin: AgentOrigin) -> None:
        self._inner = inner
        self._origin = origin

    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        """Ask through the parent's prompter with `agent` set."""
        return await self._inner.ask_permission(replace(request, agent=self._origin))


class HeadlessPrompter:
    """For a sub-agent no one can see: every ask is denied, saying why."""

    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        """Deny, with the reason the model is told."""
        return PermissionAnswer("deny", message=HEADLESS_DENIAL.format(tool=request.tool_name))


class SubAgentProgress:
    """Shows a sub-agent's tool calls under the parent's Task call (events carry `parentToolUseId`)."""

    def __init__(self, chat: ChatSink, parent_tool_use_id: str) -> None:
        self._chat = chat
        self._parent = parent_tool_use_id

    def tool_started(self, tool_use_id: str, name: str, summary: str) -> None:
        """The sub-agent starts a call: a child event, and a progress line on the Task card."""
        self._chat.adopt(tool_use_id, self._parent)
        self._chat.tool_started(tool_use_id, name, summary)
        self._chat.tool_progress(self._parent, summary or name)

    def tool_progress(self, tool_use_id: str, message: str) -> None:
        """Progress of the sub-agent's call."""
        self._chat.tool_progress(tool_use_id, message)

    def tool_finished(self, tool_use_id: str, *, is_error: bool, text: str) -> None:
        """The sub-agent's call ended."""
        self._chat.tool_finished(tool_use_id, is_error=is_error, text=text)


class _AgentListener:
    """A sub-agent's text is its report, not chat: only retries show, as a line on the Task card."""

    def __init__(self, progress: ProgressReporter, parent_tool_use_id: str) -> None:
        self._progress = progress
        self._parent = parent_tool_use_id

    def text(self, delta: str) -> None:
        """Dropped: the final text comes back as the Task result."""

    def thinking(self, delta: str) -> None:
        """Dropped, like its text."""

    def retry(self, reason: str) -> None:
        """Say on the Task card that the agent's model request is retried."""
        self._progress.tool_progress(self._parent, f"retrying the agent's model request ({reason})")


@dataclass(frozen=True)
class SubAgents:
    """The SubAgentRunner of one parent turn."""

    parent: Session
    tools: Sequence[Tool[Any]]
    catalog: AgentCatalog
    model_settings: ModelSettings  # the parent's; an agent file may name another model
    models: Callable[[ModelSettings], ModelClient]
    roots: tuple[Path, ...]
    instructions: str = ""
    max_turns: int = 50
    usage: TurnUsage | None = None
    chat: ChatSink | None = None  # None: no one sees the agents' progress
    prompter: UserPrompter | None = None  # None: headless, every ask is denied

    def agent_types(self) -> Mapping[str, str]:
        """The agent types, each with when to use it."""
        return self.catalog.descriptions()

    def known_agent(self, name: str) -> bool:
        """Whether the catalog has this agent type (exact, then case-insensitive)."""
        return self.catalog.get(name) is not None

    async def run_agent(self, request: SubAgentRequest, ctx: ToolUseContext) -> str:
        """Run the sub-agent for the Task call bound in `ctx`; its final text."""
        run = self._prepare(request, ctx, background=False)
        return await run(request.prompt)

    def start_background(self, request: SubAgentRequest, ctx: ToolUseContext) -> str:
        """Start the sub-agent as a task of the session: async-safe tools only, headless; its task id.

        No one watches a background agent, so its permission asks are denied (only what the rules allow
        runs), its tool calls are not shown in the chat, and its model requests count in no turn's usage.
        """
        board = self.parent.background_agents
        inbox: list[BackgroundAgent] = []  # filled once the agent exists: its turns read its messages

        async def deliver(uses: Sequence[ToolUse]) -> list[dict[str, Any]]:
            messages = inbox[0].take_messages() if inbox else []
            return [{"type": "text", "text": m} for m in messages]

        # the agent outlives the Task call and its turn: a cancelled turn must not stop it
        detached = replace(ctx, abort=asyncio.Event())
        run = self._prepare(request, detached, background=True, deliver=deliver)
        agent = board.start(request.description, request.prompt, run)
        inbox.append(agent)
        return agent.id

    def _prepare(
        self,
        request: SubAgentRequest,
        ctx: ToolUseContext,
        *,
        background: bool,
        deliver: Callable[[Sequence[ToolUse]], Awaitable[list[dict[str, Any]]]] | None = None,
    ) -> Callable[[str], Awaitable[str]]:
        """Set up the sub-agent's conversation; a function running one turn of it (its final text)."""
        agent = self.catalog.get(request.agent_type)
        if agent is None:
            raise ToolError(f"Agent type {request.agent_type!r} not found. Available agents: "
                            + ", ".join(self.catalog.agents))
        toolset = agent_tools(self.tools, agent, background=background)
        origin = AgentOrigin(ctx.tool_use_id, request.description)
        session = AgentSession(self.parent, f"{self.parent.id}/{ctx.tool_use_id}")
        pool = ToolPool(toolset.tools)
        progress: ProgressReporter = NullProgress()
        if self.chat is not None and not background:
            progress = SubAgentProgress(self.chat, origin.tool_use_id)
        if toolset.unavailable and agent.source != "builtin":  # a built-in names tools some pools lack
            note = f"not available to the {agent.name} agent: {', '.join(toolset.unavailable)}"
            log.warning("%s", note)
            progress.tool_progress(origin.tool_use_id, note)
        prompter: UserPrompter = HeadlessPrompter()
        if self.prompter is not None and not background:
            prompter = AgentPrompter(self.prompter, origin)
        ports = TurnPorts.for_sub_agent(
            ctx,
            options=replace(ctx.options, tool_names=toolset.names),
            prompter=prompter,
            progress=progress,
            catalog=SessionCatalog(session, pool),
            todos=MemoryTodoBoard(),  # a sub-agent's list is its own scratchpad, not the session's
        )

        def make_context(current: Session) -> ToolUseContext:
            # the parent's permission context, live (rules given meanwhile apply), and its files and shell
            return ports.context(self.parent, current.messages)

        cwd = ctx.options.cwd
        instructions = NestedInstructions(
            self.roots, cwd, pool.tools, session.instruction_files, lambda: self.parent.permission_context
        ).reminders

        async def reminders(uses: Sequence[ToolUse]) -> list[dict[str, Any]]:
            blocks = await instructions(uses)
            return blocks + (await deliver(uses) if deliver is not None else [])

        config = TurnConfig(
            model=self.models(self._model_settings(agent.model)),
            tools=pool.tools,
            system=agent_system_prompt(agent.prompt, cwd, self.roots, toolset.names, self.instructions),
            definitions=lambda: pool.definitions(session.loaded_tools),
            max_turns=self.max_turns,
            usage=None if background else self.usage,
            reminders=reminders,
        )
        listener = _AgentListener(progress, origin.tool_use_id)

        async def run(prompt: str) -> str:
            result = await run_turn(session, prompt, config, listener, make_context)
            if result.stop_reason == "error":
                raise ToolError(f"The agent stopped on an error: {result.text}")
            if result.stop_reason in ("max_turns", "max_tokens"):
                limit = "its model request limit" if result.stop_reason == "max_turns" else "the output token limit"
                return f"{result.text}\n\n[The agent hit {limit} before it finished; this report may be incomplete.]"
            return result.text

        return run

    def _model_settings(self, name: str | None) -> ModelSettings:
        """The parent's model settings, with the model an agent file names (short names resolved)."""
        if name is None:
            return self.model_settings
        return replace(self.model_settings, model=MODEL_ALIASES.get(name.lower(), name))


def agent_pool_tools(catalog: AgentCatalog, context: PermissionContext, *, simple: bool) -> tuple[Tool[Any], ...]:
    """Task and the background-task tools for a session's pool (none in simple mode; deny rules remove each)."""
    if simple:
        return ()
    # the built-in tools (and the Bash analyser) load with the first turn, not at server start
    from handrail.tools.builtin.send_message import SEND_MESSAGE
    from handrail.tools.builtin.task import task_tool
    from handrail.tools.builtin.task_output import TASK_OUTPUT
    from handrail.tools.builtin.task_stop import TASK_STOP

    tools = (task_tool(catalog.descriptions()), TASK_OUTPUT, TASK_STOP, SEND_MESSAGE)
    return tuple(tool for tool in tools if not denied_outright(tool, context))


class AgentCatalogSource:
    """Loads the agent types for each turn; reports each malformed agent file once."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        self._reporter = ProblemReporter(warn, "agent file")

    async def load(self, roots: Sequence[Path], approvals: Approvals) -> AgentCatalog:
        """Built-in, user and project agents (project wins a name).

        A project agent is a system prompt and a tool list that come with the code: like project
        skills, they load only from roots the user trusts.
        """
        catalog = await asyncio.to_thread(load_agent_catalog, BUILTIN_AGENTS, approvals.trusted_roots(roots))
        self._reporter.report(catalog.problems)
        return catalog
