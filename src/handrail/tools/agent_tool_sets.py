"""Which tools each kind of agent gets: named sets, and the filter that applies them to a pool.

Sub-agents never start sub-agents of their own, never talk to the user except
through permission prompts, and never change the session's mode; background
(async) agents get only tools that are safe to run with no one watching.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel

from handrail.permissions.decision import PermissionCheck
from handrail.tools.agent_definitions import AgentDefinition
from handrail.tools.context import ToolUseContext
from handrail.tools.protocol import Tool

TASK_TOOL_NAME = "Task"
TASK_TOOL_ALIASES = ("Agent",)

TASK_CONTROL_TOOLS: frozenset[str] = frozenset({"TaskOutput", "TaskStop", "SendMessage"})
"""Tools that read, stop and message background work (agents and shells) the session started."""

ALL_AGENT_DISALLOWED_TOOLS: frozenset[str] = frozenset(
    {
        TASK_TOOL_NAME,
        *TASK_TOOL_ALIASES,
        "AskUserQuestion",
        "EnterPlanMode",
        "ExitPlanMode",
        *TASK_CONTROL_TOOLS,
    }
)
"""Never given to any sub-agent: no nested agents, no questions to the user, no mode changes, no task control."""

ASYNC_AGENT_ALLOWED_TOOLS: frozenset[str] = frozenset(
    {
        "Read",
        "Glob",
        "Grep",
        "Bash",
        "Edit",
        "MultiEdit",
        "Write",
        "NotebookEdit",
        "WebFetch",
        "WebSearch",
        "TodoWrite",
        "ToolSearch",
    }
)
"""All a background sub-agent may use: tools that need no live conversation with the user."""

BACKGROUND_AGENT_TOOLS: frozenset[str] = ASYNC_AGENT_ALLOWED_TOOLS - ALL_AGENT_DISALLOWED_TOOLS
"""What a background agent may be given: async-safe, and nothing any sub-agent is refused."""

EXPLORE_TOOLS: tuple[str, ...] = ("Bash", "Glob", "Grep", "Read", "WebFetch")
"""The read-only explorer's tools (Bash limited to read-only commands)."""


@dataclass(frozen=True)
class AgentToolSet:
    """The tools a sub-agent gets, and the names its definition asked for that it cannot have."""

    tools: tuple[Tool[Any], ...]
    unavailable: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the tools given."""
        return tuple(tool.name for tool in self.tools)


def _named(tool: Tool[Any], names: frozenset[str]) -> bool:
    return tool.name in names or any(alias in names for alias in tool.aliases)


def agent_tools(available: Sequence[Tool[Any]], agent: AgentDefinition, *, background: bool = False) -> AgentToolSet:
    """The tools `agent` gets from the parent's `available` tools, in pool order."""
    tools = [t for t in available if not _named(t, ALL_AGENT_DISALLOWED_TOOLS)]
    if background:
        tools = [t for t in tools if _named(t, BACKGROUND_AGENT_TOOLS)]
    unavailable: list[str] = []
    if agent.tools is not None:
        wanted = frozenset(agent.tools)
        tools = [t for t in tools if _named(t, wanted)]
        unavailable = [name for name in agent.tools if not any(t.matches_name(name) for t in tools)]
    if agent.read_only:
        tools = [read_only_tool(t) for t in tools]
    return AgentToolSet(tuple(tools), tuple(unavailable))


async def reads_only(tool: Tool[Any], value: BaseModel, ctx: ToolUseContext) -> bool:
    """Whether this call only reads: the tool says so, or (Bash) the command analyser finds a read-only line."""
    if tool.is_read_only(value):
        return True
    command = getattr(value, "command", None)
    if tool.name == "Bash" and isinstance(command, str):
        from handrail.tools.builtin.bash_permissions import verdict_for  # the analyser loads when first needed

        verdict = await asyncio.to_thread(verdict_for, command, ctx.permission_context)
        return verdict.read_only
    return False


def read_only_tool(tool: Tool[Any]) -> Tool[Any]:
    """`tool` for a read-only agent: a call that would change anything is denied before anyone is asked."""
    inner = tool.check_permissions

    async def check(value: Any, ctx: ToolUseContext) -> PermissionCheck:
        if not await reads_only(tool, value, ctx):
            return PermissionCheck(
                "deny", f"this agent is read-only, and this {tool.name} call could change things; report instead"
            )
        return await inner(value, ctx)

    return replace(tool, check_permissions=check)
