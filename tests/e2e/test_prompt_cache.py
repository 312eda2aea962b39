"""Prompt caching through `handrail lsp`: where the breakpoints go, and a prefix that stays byte-identical
over a long session, so the fake model (billing as the API does) reads what an ideal cache would."""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types

from handrail.agent.compaction import CLEARED, SUMMARY_PREFIX, SUMMARY_REQUEST
from handrail.fake_model import FakeModel, Reply, Text, ToolUse, billed_input, ideal_usage, request_tokens
from handrail.tools.results import result_text
from tests.e2e.coding_session import EDIT_RULES, run_session, write_workspace
from tests.e2e.editor import Editor, server_env, start_editor


@pytest.fixture
def model() -> Iterator[FakeModel]:
    """A fake model that reports every request's input as the API bills it."""
    with FakeModel(count_usage=True) as fake:
        yield fake


@pytest_asyncio.fixture
async def editor(workspace: Path, model: FakeModel) -> AsyncIterator[Editor]:
    write_workspace(workspace)
    env = server_env(model.base_url, workspace.parent / "state")
    editor = await start_editor(workspace, env, init_options=EDIT_RULES)
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


def marked(request: dict[str, Any]) -> list[str]:
    """Where the request's cache breakpoints are: tools.N, system.N, messages.N.content.M."""
    places = [f"tools.{i}" for i, tool in enumerate(request.get("tools") or []) if "cache_control" in tool]
    system = request["system"]
    places += [f"system.{i}" for i, block in enumerate(system if isinstance(system, list) else [])
               if "cache_control" in block]
    for i, message in enumerate(request["messages"]):
        content = message["content"]
        for j, block in enumerate(content if isinstance(content, list) else []):
            if "cache_control" in block:
                places.append(f"messages.{i}.content.{j}")
    return places


def _last_block(request: dict[str, Any], index: int) -> str:
    message = request["messages"][index]
    return f"messages.{index % len(request['messages'])}.content.{len(message['content']) - 1}"


async def test_breakpoints_mark_the_tools_the_system_prompt_and_the_last_two_requests_ends(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    model.add(Reply.of(ToolUse("Read", {"file_path": str(workspace / "notes.txt")})), Reply.of(Text("alpha")))
    session = (await editor.ask("what is the first word of notes.txt?"))["sessionId"]
    first, second = model.requests
    (tools,) = {place for place in marked(first) if place.startswith("tools.")}
    after = first["tools"][int(tools.split(".")[1]) + 1 :]
    assert all("input_schema" not in tool for tool in after)  # the pool marks its last built-in; only API tools follow
    assert marked(first) == [tools, "system.0", "messages.0.content.0"]
    assert marked(second) == [tools, "system.0", "messages.0.content.0", _last_block(second, -1)]
    # the history the server keeps is unmarked: the markers move on with every request
    model.add(Reply.of(Text("beta")))
    await editor.ask("and the second?", session)
    third = model.requests[-1]
    assert marked(third) == [tools, "system.0", _last_block(third, -3), _last_block(third, -1)]
    assert model.errors == []


async def test_a_long_session_reads_every_prefix_from_the_cache(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    """Thirty requests over three questions: each one reads from the cache exactly what an ideal cache would
    (everything the previous request sent), so nothing before a breakpoint ever changed."""
    system_prompts: set[str] = set()

    def remember_system_prompt(_: int) -> None:
        system_prompts.add(model.requests[-1]["system"][0]["text"])

    await run_session(editor, model, workspace, between=remember_system_prompt)
    requests, usages = model.requests, model.usages
    assert len(requests) == 30 and model.errors == []
    assert len(system_prompts) == 1  # byte-identical from question to question
    ideal = ideal_usage(requests)
    for i, (usage, best) in enumerate(zip(usages, ideal, strict=True)):
        if i:
            assert usage["cache_read_input_tokens"] == best.cache_read_input_tokens, f"request {i} missed the cache"
        assert usage["input_tokens"] + usage["cache_read_input_tokens"] + usage["cache_creation_input_tokens"] == (
            request_tokens(requests[i]))
    ours = sum(billed_input(u) for u in usages)
    assert ours <= 1.1 * sum(billed_input(u) for u in ideal)
    assert ours < 0.4 * sum(request_tokens(r) for r in requests)  # against no caching at all


def _is_summary_request(request: dict[str, Any]) -> bool:
    last = request["messages"][-1]["content"]
    return isinstance(last, list) and any(b.get("text") == SUMMARY_REQUEST for b in last)


def _compacted(request: dict[str, Any]) -> tuple[int, bool]:
    """How many tool results the request carries cleared, and whether its history starts from a summary."""
    blocks = [b for m in request["messages"] if isinstance(m["content"], list) for b in m["content"]]
    cleared = sum(b.get("type") == "tool_result" and result_text(b) == CLEARED for b in blocks)
    return cleared, str(blocks[0].get("text", "")).startswith(SUMMARY_PREFIX)


async def test_compaction_breaks_the_prefix_once(editor: Editor, model: FakeModel, workspace: Path) -> None:
    """When the context nears its window the history is compacted (old results cleared, older turns
    summarized): the request after that writes the changed history once, the ones after read it again."""
    replies: deque[Reply] = deque()

    def answer(body: dict[str, Any]) -> Reply:
        if _is_summary_request(body):
            return Reply.of(Text("The user asked to change alpha.py; its limits 1 to 3 were bumped."))
        return replies.popleft()

    def queue(question: list[Reply]) -> None:
        replies.extend(question)
        model.add(*[answer] * (len(question) + 1))  # one more for a summary request

    def small_window(question: int) -> None:
        if question == 0:  # a window the first question's history nearly fills: compaction comes soon after
            window = int(request_tokens(model.requests[-1]) * 1.1)
            editor.client.workspace_did_change_configuration(
                types.DidChangeConfigurationParams(settings={"handrail": {"contextWindow": window}}))

    await run_session(editor, model, workspace, between=small_window, script=queue)
    assert model.errors == [] and not replies
    requests, usages = model.requests, model.usages
    ideal = ideal_usage(requests)
    states = [_compacted(r) for r in requests]
    compactions = [i for i in range(1, len(requests)) if states[i] != states[i - 1] and not _is_summary_request(
        requests[i])]
    assert compactions, "the history was never compacted"
    for i in range(1, len(requests)):
        if _is_summary_request(requests[i]):
            continue
        if i in compactions:  # the changed history is written anew, once
            assert usages[i]["cache_read_input_tokens"] < ideal[i].total
        else:
            assert usages[i]["cache_read_input_tokens"] == ideal[i].cache_read_input_tokens, f"request {i}"
    # and the requests that follow a compaction read it again
    assert any(b - a > 2 for a, b in zip(compactions, [*compactions[1:], len(requests)], strict=True))
