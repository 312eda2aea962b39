"""Turn mechanics: sessions, bad tool calls, permissions remembered, cancellation, model faults."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled

from handrail.fake_model import Drop, FakeModel, Hold, HttpError, Reply, StreamError, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, tool_results


async def test_session_continues_with_its_id(editor: Editor, model: FakeModel) -> None:
    model.add(Reply.of(Text("first")), Reply.of(Text("second")))
    first = await editor.ask("one")
    second = await editor.ask("two", session_id=first["sessionId"])
    assert second["sessionId"] == first["sessionId"]
    history = model.requests[1]["messages"]
    assert [m["role"] for m in history] == ["user", "assistant", "user"]
    assert history[1]["content"][0]["text"] == "first"


async def test_invalid_input_and_unknown_tool_become_errors(editor: Editor, model: FakeModel) -> None:
    model.add(
        Reply.of(ToolUse("Read", {"offset": "not a number"}), ToolUse("Teleport", {"where": "mars"})),
        Reply.of(Text("recovered")),
    )
    result = await editor.ask("do odd things")
    assert (result["stopReason"], result["text"]) == ("end_turn", "recovered") and "error" not in result
    invalid, unknown = tool_results(model.requests[1])
    assert invalid["is_error"] and "file_path" in result_text(invalid)
    assert unknown["is_error"] and "No such tool" in result_text(unknown) and "Read" in result_text(unknown)


async def test_always_allow_is_remembered_for_the_session(editor: Editor, model: FakeModel) -> None:
    bash = {"command": "touch made.txt && echo made", "description": "make a file"}
    model.add(Reply.of(ToolUse("Bash", bash)), Reply.of(ToolUse("Bash", bash)), Reply.of(Text("twice")))
    editor.answers.append("Always allow")
    await editor.ask("make a file twice")
    assert len(editor.prompts) == 1
    assert [result_text(b).strip() for b in tool_results(model.requests[2])] == ["made"]


async def test_rich_permission_request_carries_the_diff(
    rich_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    notes = workspace / "notes.txt"
    model.add(
        Reply.of(ToolUse("Read", {"file_path": str(notes)})),
        Reply.of(ToolUse("Edit", {"file_path": str(notes), "old_string": "gamma", "new_string": "GAMMA"})),
        Reply.of(Text("done")),
    )
    rich_editor.answers.append("allow")
    await rich_editor.ask("shout gamma")
    (prompt,) = rich_editor.prompts
    assert prompt["tool"] == "Edit"
    assert "-gamma" in prompt["diff"] and "+GAMMA" in prompt["diff"]
    assert notes.read_text() == "alpha\nbeta\nGAMMA\n"


async def test_progress_is_reported(editor: Editor, model: FakeModel) -> None:
    model.add(Reply.of(Text("hi")))
    await editor.ask("hi")
    (reports,) = editor.client.progress_reports.values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)


async def test_cancel_while_permission_prompt_is_open(editor: Editor, model: FakeModel, workspace: Path) -> None:
    editor.release_prompt = asyncio.Event()  # the user never answers in time
    model.add(Reply.of(ToolUse("Bash", {"command": "touch should-not-exist"}), ToolUse("Read", {"file_path": "/x"})))
    model.add(Reply.of(Text("after cancel")))
    ask = asyncio.create_task(editor.ask("touch a file"))
    await editor.prompt_started.wait()
    session_id = editor.chat[0]["sessionId"]
    assert await editor.cancel(session_id) == {"cancelled": True}
    result = await ask
    assert result["stopReason"] == "cancelled"
    assert not (workspace / "should-not-exist").exists()
    editor.release_prompt.set()
    # the history stays valid: the next turn sends every tool_use answered (the fake model checks it)
    follow = await editor.ask("what happened?", session_id=session_id)
    assert follow["text"] == "after cancel"
    answered = tool_results(model.requests[1])
    assert len(answered) == 2 and all(b["is_error"] for b in answered)
    assert model.errors == []


async def test_cancel_request_stops_a_streaming_turn(editor: Editor, model: FakeModel) -> None:
    hold = Hold(Reply.of(Text("a long answer that never ends")), partial_block=True)
    model.add(hold, Reply.of(Text("fresh")))
    future = editor.client.protocol.send_request(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command="handrail.ask", arguments=[{"prompt": "talk", "sessionId": "s1"}]),
        msg_id="ask-1",
    )
    assert await asyncio.to_thread(hold.held.wait, 60)
    editor.client.cancel_request(types.CancelParams(id="ask-1"))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wrap_future(future)
    assert await asyncio.to_thread(hold.abandoned.wait, 60)  # the stream was closed
    # "cancelled" is answered at once; the turn then winds up (saves its transcript) and says it ended,
    # as clients wait for before they send the session's next prompt
    await editor.wait_for_chat(lambda e: e["kind"] == "turnEnd" and e["sessionId"] == "s1")
    follow = await editor.ask("again", session_id="s1")
    assert follow["text"] == "fresh"


@pytest.mark.parametrize(
    "fault",
    [
        HttpError(429, "rate_limit_error", "slow down", retry_after=0),
        HttpError(529, "overloaded_error", "overloaded"),
        StreamError(after_blocks=1, reply=Reply.of(Text("partial"), Text("more"))),
        Drop(after_blocks=1, reply=Reply.of(Text("partial"), Text("more"))),
    ],
    ids=["429", "529", "error-event", "dropped-connection"],
)
async def test_model_faults_are_recovered(editor: Editor, model: FakeModel, workspace: Path, fault: object) -> None:
    notes = workspace / "notes.txt"
    model.add(Reply.of(ToolUse("Read", {"file_path": str(notes)})), fault, Reply.of(Text("recovered")))  # type: ignore[arg-type]
    result = await editor.ask("read and answer")
    assert result["stopReason"] == "end_turn"
    assert result["text"] == "recovered"
    # the Read ran once: both attempts after it carry the same single tool_result
    assert len(tool_results(model.requests[-1])) == 1
    assert model.errors == []


async def test_late_answer_to_a_cancelled_prompt_raises_no_error(editor: Editor, model: FakeModel) -> None:
    editor.release_prompt = asyncio.Event()
    model.add(Reply.of(ToolUse("Bash", {"command": "touch late.txt"})), Reply.of(Text("next")))
    ask = asyncio.create_task(editor.ask("run"))
    await editor.prompt_started.wait()
    await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="handrail.cancel", arguments=[{"sessionId": editor.chat[0]["sessionId"]}])
    )
    assert (await ask)["stopReason"] == "cancelled"
    editor.answers.append("Allow once")
    editor.release_prompt.set()  # the user answers the prompt after the turn was cancelled
    follow = await editor.ask("next", session_id=editor.chat[0]["sessionId"])  # a round trip after the late answer
    assert follow["text"] == "next"
    assert [m.message for m in editor.client.messages if "Error" in m.message] == []


async def test_max_turns_stops_a_looping_model(editor: Editor, model: FakeModel, workspace: Path) -> None:
    editor.client.set_configuration({"handrail": {"maxTurns": 2}})
    notes = str(workspace / "notes.txt")
    model.add(*(Reply.of(Text(f"round {i}"), ToolUse("Read", {"file_path": notes})) for i in range(2)))
    result = await editor.ask("loop")
    assert result["stopReason"] == "max_turns"
    assert result["text"] == "round 1"
    assert model.remaining == 0 and len(model.requests) == 2


async def test_shutdown_with_a_turn_in_flight(editor: Editor, model: FakeModel) -> None:
    hold = Hold(Reply.of(Text("never finished")), partial_block=True)
    model.add(hold)
    ask = asyncio.ensure_future(editor.ask("talk"))
    assert await asyncio.to_thread(hold.held.wait, 60)
    await editor.client.shutdown_async(None)  # pygls 2.1.1 fails here without our protocol fix
    result = await ask  # shutdown stopped the turn and the ask still got its answer
    assert result["stopReason"] == "cancelled"
    editor.client.exit(None)
    editor.client.capabilities = None  # already shut down: the fixture must not do it again


async def test_shutdown_while_a_prompt_is_open(editor: Editor, model: FakeModel) -> None:
    editor.release_prompt = asyncio.Event()
    model.add(Reply.of(ToolUse("Bash", {"command": "touch late.txt"})))
    ask = asyncio.ensure_future(editor.ask("run"))
    await editor.prompt_started.wait()
    await editor.client.shutdown_async(None)
    assert (await ask)["stopReason"] == "cancelled"
    editor.client.exit(None)
    editor.client.capabilities = None


def _send_ask(editor: Editor, prompt: str, session_id: str) -> Future[Any]:
    """Send `handrail.ask` at once (not when a task first runs): its answer, to come."""
    params = types.ExecuteCommandParams(command="handrail.ask", arguments=[{"prompt": prompt, "sessionId": session_id}])
    future: Future[Any] = editor.client.protocol.send_request(types.WORKSPACE_EXECUTE_COMMAND, params)
    return future


def _repository_with_a_waiting_hook(workspace: Path) -> Path:
    """A repository whose pre-commit hook says it started, then waits for a line on the FIFO returned."""
    release = workspace.parent / "release-hook"
    os.mkfifo(release)
    for args in (["init", "-q"], ["config", "user.name", "t"], ["config", "user.email", "t@t"]):
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True)
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\necho hook started\nread line < '{release}'\n")
    hook.chmod(0o755)
    return release


async def test_an_ask_sent_right_after_stop_runs_once_the_stopped_turn_has_ended(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    """Stop, then ask again at once (as a user does): the new prompt is not refused while the old turn winds down.

    The stopped turn is held in its wind-down by a `git commit` (which is never cut in half) whose hook
    waits on a FIFO the test opens only after the next ask was sent.
    """
    release = _repository_with_a_waiting_hook(workspace)
    model.add(Reply.of(ToolUse("Bash", {"command": "git commit --allow-empty -qm wip"})), Reply.of(Text("fresh")))
    editor.answers.append("Allow once")
    first = asyncio.ensure_future(editor.ask("commit", session_id="s3"))
    await editor.wait_for_chat(lambda e: e["kind"] == "toolProgress" and "hook started" in json.dumps(e))
    assert await editor.cancel("s3") == {"cancelled": True}
    again = _send_ask(editor, "again", "s3")  # sent now, before the next one
    with pytest.raises(JsonRpcException, match="still running"):  # one waiting ask at a time
        await editor.ask("and again", session_id="s3")
    assert not first.done()  # the commit still runs: the stopped turn has not ended
    await asyncio.to_thread(release.write_text, "go\n")
    assert (await first)["stopReason"] == "cancelled"
    assert (await asyncio.wrap_future(again))["text"] == "fresh"
    kinds = [e["kind"] for e in editor.chat if e["sessionId"] == "s3" and e["kind"] in ("turnStart", "turnEnd")]
    assert kinds == ["turnStart", "turnEnd", "turnStart", "turnEnd"]  # never two turns at once
    assert model.errors == []


async def test_a_second_ask_for_a_busy_session_is_refused(editor: Editor, model: FakeModel) -> None:
    hold = Hold(Reply.of(Text("slow answer")))
    model.add(hold)
    first = asyncio.ensure_future(editor.ask("one", session_id="busy"))
    second = asyncio.ensure_future(editor.ask("two", session_id="busy"))
    with pytest.raises(JsonRpcException, match="still running"):
        await second
    hold.release.set()
    assert (await first)["text"] == "slow answer"
