"""A conversation that outgrows the context window is compacted and the turn goes on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from handrail.fake_model import FakeModel, HttpError, Reply, Text, ToolUse
from handrail.server.agent_loop import TOO_LONG_REASON
from handrail.server.compaction import CLEARED, SUMMARY_PREFIX, SUMMARY_REQUEST
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
