"""The per-agent tool sets: the named constants, and the filter applied to a session's pool."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from handrail.permissions.context import PermissionContext
from handrail.tools.agent_definitions import AgentDefinition
from handrail.tools.agent_tool_sets import (
    ALL_AGENT_DISALLOWED_TOOLS,
    ASYNC_AGENT_ALLOWED_TOOLS,
    BACKGROUND_AGENT_TOOLS,
    EXPLORE_TOOLS,
    TASK_CONTROL_TOOLS,
    TASK_TOOL_ALIASES,
    TASK_TOOL_NAME,
    agent_tools,
)
from handrail.tools.builtin.send_message import SEND_MESSAGE
from handrail.tools.builtin.task import task_tool
from handrail.tools.builtin.task_output import TASK_OUTPUT
from handrail.tools.builtin.task_stop import TASK_STOP
from handrail.tools.builtin_agents import EXPLORE, GENERAL_PURPOSE
from handrail.tools.execution import ToolUse, run_tool_use
from handrail.tools.protocol import Tool
from handrail.tools.registry import all_base_tools

from .support import make_context

# tools for directing agents: only the top-level (coordinating) agent has them
COORDINATOR_ONLY_TOOLS = frozenset({TASK_TOOL_NAME, *TASK_TOOL_ALIASES, *TASK_CONTROL_TOOLS})


def pool() -> tuple[Tool[Any], ...]:
    return (*all_base_tools(), task_tool({"general-purpose": "all"}))


def test_the_named_sets() -> None:
    assert {"Task", "Agent", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode", "TaskStop"} <= (
        ALL_AGENT_DISALLOWED_TOOLS
    )
    assert {"Task", "Agent", "TaskStop"} <= COORDINATOR_ONLY_TOOLS
    # what only the coordinator has, no agent has; no async agent may use what every agent is refused
    assert COORDINATOR_ONLY_TOOLS <= ALL_AGENT_DISALLOWED_TOOLS
    assert not ASYNC_AGENT_ALLOWED_TOOLS & ALL_AGENT_DISALLOWED_TOOLS
    assert {"Read", "Grep", "Glob", "Bash", "Edit", "Write", "TodoWrite"} <= ASYNC_AGENT_ALLOWED_TOOLS
    assert "AskUserQuestion" not in ASYNC_AGENT_ALLOWED_TOOLS
    assert set(EXPLORE_TOOLS) <= ASYNC_AGENT_ALLOWED_TOOLS
    # of the built-ins, only those that talk to the user or change the session's mode are refused to agents
    builtins = {t.name for t in all_base_tools()}
    assert builtins & ALL_AGENT_DISALLOWED_TOOLS == {"AskUserQuestion", "EnterPlanMode", "ExitPlanMode"}


def test_the_task_control_tools_are_the_coordinators_only() -> None:
    assert {t.name for t in (TASK_OUTPUT, TASK_STOP, SEND_MESSAGE)} == TASK_CONTROL_TOOLS
    assert TASK_CONTROL_TOOLS <= COORDINATOR_ONLY_TOOLS <= ALL_AGENT_DISALLOWED_TOOLS
    assert BACKGROUND_AGENT_TOOLS <= ASYNC_AGENT_ALLOWED_TOOLS and not BACKGROUND_AGENT_TOOLS & TASK_CONTROL_TOOLS
    coordinator_pool = (*pool(), TASK_OUTPUT, TASK_STOP, SEND_MESSAGE)
    for background in (False, True):
        given = agent_tools(coordinator_pool, GENERAL_PURPOSE, background=background)
        assert not set(given.names) & COORDINATOR_ONLY_TOOLS
    asked = AgentDefinition("boss", "d", "p", tools=("Read", "TaskStop", "SendMessage"))
    given = agent_tools(coordinator_pool, asked, background=True)
    assert given.names == ("Read",) and given.unavailable == ("TaskStop", "SendMessage")


def test_general_purpose_gets_everything_but_the_disallowed() -> None:
    given = agent_tools(pool(), GENERAL_PURPOSE)
    assert "Task" not in given.names and given.unavailable == ()
    assert set(given.names) == {t.name for t in all_base_tools()} - ALL_AGENT_DISALLOWED_TOOLS


def test_an_alias_is_disallowed_like_its_name() -> None:
    aliased = replace(task_tool({}), name="Delegate", aliases=("Agent",))
    assert "Delegate" not in agent_tools((*all_base_tools(), aliased), GENERAL_PURPOSE).names


def test_a_definition_names_its_tools_and_is_told_what_it_cannot_have() -> None:
    agent = AgentDefinition("r", "d", "p", tools=("Read", "Task", "AskUserQuestion", "Nope", "Grep"))
    given = agent_tools(pool(), agent)
    assert given.names == ("Grep", "Read")  # pool order, not the file's
    assert given.unavailable == ("Task", "AskUserQuestion", "Nope")


def test_background_agents_get_only_the_async_set() -> None:
    extra = replace(task_tool({}), name="mcp__srv__tool", aliases=())
    given = agent_tools((*pool(), extra), GENERAL_PURPOSE, background=True)
    assert set(given.names) <= ASYNC_AGENT_ALLOWED_TOOLS and "mcp__srv__tool" not in given.names


async def test_explore_denies_writes_and_lets_reads_through(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    given = agent_tools(pool(), EXPLORE)
    assert given.names == ("Bash", "Glob", "Grep", "Read", "WebFetch")
    ctx = replace(make_context(tmp_path), permission_context=PermissionContext(workspace_roots=(tmp_path,)))
    ls = await run_tool_use(ToolUse("t1", "Bash", {"command": "ls"}), given.tools, ctx)
    assert not ls.is_error and "a.txt" in ls.block["content"]
    touch = await run_tool_use(ToolUse("t2", "Bash", {"command": "touch b.txt"}), given.tools, ctx)
    assert touch.is_error and "read-only" in touch.block["content"] and not (tmp_path / "b.txt").exists()
    read = await run_tool_use(ToolUse("t3", "Read", {"file_path": str(tmp_path / "a.txt")}), given.tools, ctx)
    assert not read.is_error
    edit = await run_tool_use(
        ToolUse("t4", "Edit", {"file_path": str(tmp_path / "a.txt"), "old_string": "h", "new_string": "j"}),
        given.tools,
        ctx,
    )
    assert edit.is_error and edit.block["content"].startswith("No such tool available: Edit")
