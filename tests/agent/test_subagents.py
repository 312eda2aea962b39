"""The sub-agent runner in-process, against the fake model through the real SDK: headless denials,
marked prompts, rules shared with the parent session, failures."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from handrail.agent.model_client import ModelClient, ModelSettings
from handrail.agent.session import Session
from handrail.agent.subagents import HEADLESS_DENIAL, SubAgents, agent_pool_tools
from handrail.agent.usage import TurnUsage
from handrail.fake_model import FakeModel, HttpError, Reply, Text, ToolUse
from handrail.permissions.context import PermissionContext
from handrail.permissions.rules import PermissionRule, parse_rule
from handrail.tools.agent_definitions import AgentCatalog
from handrail.tools.builtin_agents import BUILTIN_AGENTS
from handrail.tools.context import AgentOrigin, PermissionAnswer, PermissionRequest, SubAgentRequest
from handrail.tools.errors import ToolError
from handrail.tools.registry import all_base_tools
from tests.tools.support import make_context

CATALOG = AgentCatalog({agent.name: agent for agent in BUILTIN_AGENTS})


class AlwaysAllow:
    """The user, answering "always allow" to everything and remembering what was asked."""

    def __init__(self) -> None:
        self.requests: list[PermissionRequest] = []

    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        self.requests.append(request)
        return PermissionAnswer("allow_always", rules=request.suggestions[:1])


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with FakeModel() as fake:
        yield fake


@pytest_asyncio.fixture
async def client(model: FakeModel) -> AsyncIterator[ModelClient]:
    client = ModelClient(ModelSettings(api_key="test", base_url=model.base_url, retry_base_delay=0))
    yield client
    await client.close()


def runner(client: ModelClient, root: Path, prompter: Any = None, usage: TurnUsage | None = None) -> SubAgents:
    parent = Session("parent", PermissionContext(workspace_roots=(root,)))
    return SubAgents(
        parent=parent,
        tools=all_base_tools(),
        catalog=CATALOG,
        model_settings=client.settings,
        models=lambda _: client,
        roots=(root,),
        usage=usage,
        prompter=prompter,
    )


def context(agents: SubAgents, root: Path) -> Any:
    return replace(make_context(root), permission_context=agents.parent.permission_context, tool_use_id="toolu_task")


async def make_a_file(model: FakeModel, agents: SubAgents, root: Path, final: str) -> str:
    """A general-purpose agent asked to create a file with Bash (which needs approval)."""
    model.add(Reply.of(ToolUse("Bash", {"command": "touch made.txt"})), Reply.of(Text(final)))
    return await agents.run_agent(SubAgentRequest("make", "Make a file", "general-purpose"), context(agents, root))


async def test_a_headless_agent_is_denied_what_would_need_asking(
    model: FakeModel, client: ModelClient, tmp_path: Path
) -> None:
    usage = TurnUsage()
    agents = runner(client, tmp_path, usage=usage)
    assert await make_a_file(model, agents, tmp_path, "could not") == "could not"
    result = model.requests[1]["messages"][-1]["content"][0]
    assert result["is_error"] and result["content"] == HEADLESS_DENIAL.format(tool="Bash")
    assert not (tmp_path / "made.txt").exists()
    assert (usage.turn.input_tokens, usage.turn.output_tokens) == (20, 20)


async def test_prompts_are_marked_and_always_allow_holds_for_the_parent(
    model: FakeModel, client: ModelClient, tmp_path: Path
) -> None:
    user = AlwaysAllow()
    agents = runner(client, tmp_path, prompter=user)
    assert await make_a_file(model, agents, tmp_path, "made") == "made"
    assert (tmp_path / "made.txt").exists()
    (request,) = user.requests
    assert request.agent == AgentOrigin("toolu_task", "make")
    assert [str(rule) for rule in agents.parent.rules] == [request.suggestions[0]]
    assert agents.parent.messages == []  # the agent's conversation is its own


async def test_a_model_failure_is_a_tool_error(model: FakeModel, client: ModelClient, tmp_path: Path) -> None:
    model.add(HttpError(400, message="bad request"))
    agents = runner(client, tmp_path)
    with pytest.raises(ToolError, match=r"The agent stopped on an error: .*bad request"):
        await agents.run_agent(SubAgentRequest("x", "Do x", "Explore"), context(agents, tmp_path))


async def test_an_unknown_agent_type_is_a_tool_error(model: FakeModel, client: ModelClient, tmp_path: Path) -> None:
    agents = runner(client, tmp_path)
    with pytest.raises(ToolError, match=r"'nobody' not found\. Available agents: general-purpose, Explore"):
        await agents.run_agent(SubAgentRequest("x", "Do x", "nobody"), context(agents, tmp_path))
    assert model.requests == []


def test_the_task_tool_is_left_out_in_simple_mode_and_when_denied(tmp_path: Path) -> None:
    context = PermissionContext(workspace_roots=(tmp_path,))
    names = [t.name for t in agent_pool_tools(CATALOG, context, simple=False)]
    assert names == ["Task", "TaskOutput", "TaskStop", "SendMessage"]
    assert agent_pool_tools(CATALOG, context, simple=True) == ()

    rule = parse_rule("Agent", source="user")
    assert isinstance(rule, PermissionRule)
    denied = context.with_rule("deny", rule)
    # the task-control tools stay: they also read and stop background shells
    assert [t.name for t in agent_pool_tools(CATALOG, denied, simple=False)] == names[1:]
