"""Model API faults the first round did not cover: stalls, garbage, retry-after, cut tool calls, hard errors.

Every case ends in a retry or a clear error, the history stays valid (the fake
model rejects a request with an unanswered tool_use, and `model.errors` would
say so) and no tool runs twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from handrail.agent.agent_loop import MAX_TOKENS_NOTE
from handrail.fake_model import Drop, FakeModel, Hold, HttpError, Malformed, Reply, StreamError, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.conftest import _editor
from tests.e2e.editor import Editor, tool_results

# short enough for a quick test, long enough that a busy machine never trips it on a healthy stream
IDLE_TIMEOUT = 1.5


@pytest_asyncio.fixture
async def impatient_editor(workspace: Path, model: FakeModel) -> AsyncIterator[Editor]:
    """An editor whose server gives up on a silent stream after IDLE_TIMEOUT seconds."""
    async for e in _editor(workspace, model, rich=False, streamIdleTimeout=IDLE_TIMEOUT):
        yield e


def _read(workspace: Path) -> Reply:
    return Reply.of(ToolUse("Read", {"file_path": str(workspace / "notes.txt")}))


async def test_a_stalled_stream_is_abandoned_and_retried(
    impatient_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    stall = Hold(Reply.of(Text("this answer never")), partial_block=True)  # never released
    model.add(_read(workspace), stall, Reply.of(Text("recovered")))
    result = await impatient_editor.ask("read and answer")
    assert result["stopReason"] == "end_turn" and result["text"] == "recovered"
    assert await asyncio.to_thread(stall.abandoned.wait, 60)  # the stalled connection was closed
    retries = [e for e in impatient_editor.chat if e["kind"] == "retry"]
    assert len(retries) == 1 and "no data" in retries[0]["reason"]
    assert len(tool_results(model.requests[-1])) == 1  # the Read ran once
    assert model.errors == []


async def test_malformed_events_are_retried(editor: Editor, model: FakeModel, workspace: Path) -> None:
    model.add(_read(workspace), Malformed(after_blocks=1, reply=Reply.of(Text("part"), Text("more"))))
    model.add(Reply.of(Text("recovered")))
    result = await editor.ask("read and answer")
    assert result["text"] == "recovered"
    assert any("malformed" in e.get("reason", "") for e in editor.chat if e["kind"] == "retry")
    assert len(tool_results(model.requests[-1])) == 1
    assert model.errors == []


@pytest.mark.parametrize(
    "fault",
    [
        HttpError(529, "overloaded_error", "overloaded", retry_after=0.05),
        HttpError(429, "rate_limit_error", "slow down"),
        HttpError(500),
        HttpError(503, "api_error", "unavailable", retry_after=0.01),
    ],
    ids=["529-retry-after", "429-no-retry-after", "500", "503-retry-after"],
)
async def test_errors_outlasting_the_sdk_retries_are_retried_by_the_loop(
    editor: Editor, model: FakeModel, workspace: Path, fault: HttpError
) -> None:
    # the SDK tries three times before the stream starts; the fourth failure reaches the agent loop
    model.add(_read(workspace), fault, fault, fault, fault, Reply.of(Text("recovered")))
    result = await editor.ask("read and answer")
    assert result["text"] == "recovered"
    assert [e["kind"] for e in editor.chat].count("retry") == 1
    assert len(tool_results(model.requests[-1])) == 1
    assert model.errors == []


async def test_an_error_retries_do_not_cure_is_told_and_the_session_goes_on(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    model.add(_read(workspace), *[HttpError(529, "overloaded_error", "still overloaded")] * 12)
    result = await editor.ask("read and answer")
    assert result["stopReason"] == "error"
    assert "529" in result["text"] and "still overloaded" in result["text"]
    assert model.remaining == 0
    model.add(Reply.of(Text("back")))
    follow = await editor.ask("again", session_id=result["sessionId"])
    assert follow["text"] == "back"
    assert model.errors == []  # the history sent after the failure was valid


async def test_a_rejected_request_is_an_error_at_once(editor: Editor, model: FakeModel) -> None:
    model.add(HttpError(400, "invalid_request_error", "tools.0: bad schema"), Reply.of(Text("later")))
    result = await editor.ask("hi")
    assert result["stopReason"] == "error" and "bad schema" in result["text"]
    assert "retry" not in editor.chat_kinds()
    assert (await editor.ask("again", session_id=result["sessionId"]))["text"] == "later"


async def test_max_tokens_inside_a_tool_call_answers_it_without_running_it(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    cut = ToolUse("Write", '{"file_path": "' + str(workspace / "cut.txt") + '", "content": "half')
    model.add(Reply.of(Text("writing"), cut, stop_reason="max_tokens"), Reply.of(Text("shorter now")))
    result = await editor.ask("write a big file")
    assert result["text"] == "shorter now"
    (answer,) = tool_results(model.requests[1])
    assert answer["tool_use_id"] == cut.id and answer["is_error"]
    # depending on whether the executor saw the cut JSON before the stop reason, the answer says either
    assert MAX_TOKENS_NOTE in result_text(answer) or "did not run" in result_text(answer)
    assert not (workspace / "cut.txt").exists()
    assert model.errors == []


def _read_then_more(workspace: Path) -> Reply:
    return Reply.of(ToolUse("Read", {"file_path": str(workspace / "notes.txt")}), Text("and then"))


@pytest.mark.parametrize("fault_kind", ["stall", "drop", "error-event", "malformed"])
async def test_a_stream_failing_after_a_call_started_answers_it_and_never_replays_it(
    impatient_editor: Editor, model: FakeModel, workspace: Path, fault_kind: str
) -> None:
    reply = _read_then_more(workspace)
    fault = {
        "stall": Hold(reply, after_blocks=1, partial_block=True),
        "drop": Drop(after_blocks=1, reply=reply, partial_block=True),
        "error-event": StreamError(after_blocks=1, reply=reply, partial_block=True),
        "malformed": Malformed(after_blocks=1, reply=reply),
    }[fault_kind]
    model.add(fault, Reply.of(Text("recovered")))  # type: ignore[arg-type]
    result = await impatient_editor.ask("read and say more")
    assert result["text"] == "recovered"
    history = model.requests[-1]["messages"]
    (use,) = [b for b in history[1]["content"] if b["type"] == "tool_use"]
    (answer,) = tool_results(model.requests[-1])
    assert answer["tool_use_id"] == use["id"]
    # the Read either finished or was stopped when the stream broke (a race: the failure can arrive before
    # the queued call started); either way it started at most once, and once if it finished
    starts = [e for e in impatient_editor.chat if e["kind"] == "toolStart" and e["toolUseId"] == use["id"]]
    if "alpha" in result_text(answer):
        assert len(starts) == 1
    else:
        assert "stopped" in result_text(answer) and len(starts) <= 1
    assert len(model.requests) == 2  # the broken message was not asked for again
    assert model.errors == []
