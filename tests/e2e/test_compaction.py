"""A conversation that outgrows the context window is compacted and the turn goes on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsprotocol import types

from handrail.agent.agent_loop import TOO_LONG_REASON
from handrail.agent.compaction import CLEARED, SUMMARY_PREFIX, SUMMARY_REQUEST
from handrail.fake_model import FakeModel, HttpError, Reply, Text, ToolUse, counted, request_tokens
from handrail.tools.results import result_text
from tests.e2e.editor import Editor

TOO_LONG = HttpError(400, "invalid_request_error", "prompt is too long: 231847 tokens > 200000 maximum")


def _size(request: dict[str, Any]) -> int:
    return len(json.dumps(request["messages"]))


def _results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for m in request["messages"] if isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_result"]


def _reads(workspace: Path, n: int, **reply: Any) -> list[Reply]:
    """Reads of n different files, each long enough to be worth clearing."""
    replies = []
    for i in range(n):
        path = workspace / f"part{i}.txt"
        path.write_text("".join(f"line {j} of part {i}\n" for j in range(40)))
        replies.append(Reply.of(ToolUse("Read", {"file_path": str(path)}), **reply))
    return replies


async def test_prompt_too_long_clears_old_tool_results_and_retries(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    model.add(*_reads(workspace, 5), TOO_LONG, Reply.of(Text("done")))
    result = await editor.ask("read around")
    assert result["text"] == "done"
    refused, retried = model.requests[-2:]
    assert _size(retried) < _size(refused)
    texts = [result_text(b) for b in _results(retried)]
    assert texts[:2] == [CLEARED, CLEARED] and all(t != CLEARED for t in texts[2:])
    assert len(texts) == 5  # every call still has its one result
    assert {"kind": "retry", "reason": TOO_LONG_REASON} .items() <= next(
        e for e in editor.chat if e["kind"] == "retry").items()
    assert model.errors == []


async def test_older_turns_are_summarized_when_clearing_is_not_enough(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    model.add(*_reads(workspace, 1), Reply.of(Text("notes.txt lists alpha, beta, gamma")))
    first = await editor.ask("what is in notes.txt?")
    model.add(TOO_LONG, Reply.of(Text("The user asked about notes.txt: it lists alpha, beta, gamma.")))
    model.add(Reply.of(Text("alpha")))
    result = await editor.ask("which word came first?", session_id=first["sessionId"])
    assert result["text"] == "alpha"
    refused, summary_call, retried = model.requests[-3:]
    assert summary_call["messages"][-1]["content"][-1]["text"] == SUMMARY_REQUEST
    (message,) = retried["messages"]
    summary, prompt = message["content"]
    assert summary["text"].startswith(SUMMARY_PREFIX) and "alpha, beta, gamma" in summary["text"]
    assert prompt["text"] == "which word came first?"
    assert _size(retried) < _size(refused)
    # the session goes on from the compacted history
    model.add(Reply.of(Text("still here")))
    await editor.ask("and now?", session_id=first["sessionId"])
    assert len(model.requests[-1]["messages"]) == 3
    assert model.errors == []


async def test_a_request_near_the_window_is_compacted_before_it_is_sent(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    model.add(*_reads(workspace, 3), Reply.of(ToolUse("Read", {"file_path": str(workspace / "notes.txt")}),
                                               usage_in=190_000), Reply.of(Text("done")))
    await editor.ask("read around")
    texts = [result_text(b) for b in _results(model.requests[-1])]
    assert texts[0] == CLEARED and CLEARED not in texts[1:]
    assert "retry" not in editor.chat_kinds()
    assert model.errors == []


async def test_a_conversation_that_cannot_be_compacted_ends_with_a_clear_error(
    editor: Editor, model: FakeModel
) -> None:
    model.add(TOO_LONG, Reply.of(Text("short again")))
    result = await editor.ask("x" * 1000)
    assert result["stopReason"] == "error" and "prompt is too long" in result["text"]
    assert (await editor.ask("hi", session_id=result["sessionId"]))["text"] == "short again"
    assert model.errors == []


def _cleared(request: dict[str, Any]) -> int:
    return sum(result_text(b) == CLEARED for b in _results(request))


def _is_summary_request(request: dict[str, Any]) -> bool:
    last = request["messages"][-1]["content"]
    return any(b.get("type") == "text" and b["text"] == SUMMARY_REQUEST for b in last)


async def test_a_long_conversation_is_cleared_then_summarized_as_its_reported_usage_grows(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    """Usage reported as the real API does (the request's size): compaction starts by itself, clears old
    results while that leaves room, summarizes once it leaves too little, and every request stays valid."""
    path = workspace / "module.py"
    path.write_text("".join(f"def function_{i}(value):\n    return value * {i} + {i}\n" for i in range(30)))

    def answer(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]["content"]
        if _is_summary_request(body):
            return counted(Reply.of(Text("The user keeps asking to read module.py; it was read each time.")))(body)
        if any(b.get("type") == "tool_result" for b in last):
            return counted(Reply.of(Text("read it")))(body)
        return counted(Reply.of(ToolUse("Read", {"file_path": str(path)})))(body)

    model.add(answer, answer)
    session = (await editor.ask("read module.py"))["sessionId"]
    # a window four times what the system prompt and tools take: clearing suffices at first, then what
    # it leaves (prompts, answers, a stub per call) passes half the window
    window = 4 * request_tokens(model.requests[0])
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"handrail": {"contextWindow": window}}))
    for _ in range(100):
        model.add(*[answer] * max(0, 3 - model.remaining))
        await editor.ask("read module.py again", session)
        if any(_is_summary_request(r) for r in model.requests):
            break
    requests = model.requests
    summaries = [i for i, r in enumerate(requests) if _is_summary_request(r)]
    assert summaries, f"no summary in {len(requests)} requests: clearing alone went on and on"
    summary_at = summaries[0]
    first_clear = next(i for i, r in enumerate(requests) if _cleared(r))
    assert first_clear < summary_at - 1  # cleared alone first, in an earlier turn
    # the summary came while clearing still had results to clear (not only once it had nothing left)
    assert _cleared(requests[summary_at]) > _cleared(requests[summary_at - 1])
    after = requests[summary_at + 1]
    assert after["messages"][0]["content"][0]["text"].startswith(SUMMARY_PREFIX)
    assert len(after["messages"]) < len(requests[summary_at - 1]["messages"]) // 4
    model.add(answer, answer)
    assert (await editor.ask("and once more", session))["stopReason"] == "end_turn"
    assert model.errors == []  # the fake refuses any request with a tool_use not answered exactly once
