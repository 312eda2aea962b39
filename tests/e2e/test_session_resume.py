"""Sessions outlive the server: a restarted server resumes a session by id from its transcript."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path

import pytest
from lsprotocol import types

from handrail.agent.transcript import INTERRUPTED_NOTE
from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, server_env, start_editor


async def _start(workspace: Path, model: FakeModel) -> Editor:
    return await start_editor(workspace, server_env(model.base_url, workspace.parent / "state"))


async def _stop(editor: Editor) -> None:
    await editor.client.shutdown_session()
    await editor.client.stop()


async def test_a_restarted_server_resumes_a_session_by_id(workspace: Path, model: FakeModel) -> None:
    notes = workspace / "notes.txt"
    model.add(Reply.of(ToolUse("Read", {"file_path": str(notes)})), Reply.of(Text("it lists three words")))
    first = await _start(workspace, model)
    await first.ask("what is in notes.txt?", session_id="kept")
    await _stop(first)

    model.add(Reply.of(Text("alpha came first")))
    second = await _start(workspace, model)
    try:
        # a client may name its session (setting its mode) before the first ask: the history still comes back
        await second.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="handrail.setMode", arguments=[{"mode": "acceptEdits",
                                                                               "sessionId": "kept"}]))
        result = await second.ask("which came first?", session_id="kept")
    finally:
        await _stop(second)
    assert result["text"] == "alpha came first"
    history = model.requests[-1]["messages"]
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant", "user"]
    assert "alpha" in result_text(history[2]["content"][0])  # the Read's result came back from disk
    assert history[-1]["content"][-1]["text"] == "which came first?"
    assert model.errors == []


@pytest.mark.cold_server("SIGKILLs the server process itself (a crash)")
async def test_a_session_cut_off_by_a_crash_resumes_with_its_call_answered(
    workspace: Path, model: FakeModel
) -> None:
    model.add(Reply.of(ToolUse("Bash", {"command": "touch crashed.txt"})))
    first = await _start(workspace, model)
    first.release_prompt = asyncio.Event()  # the prompt stays open until the server is gone
    ask = asyncio.create_task(first.ask("make a file", session_id="crashy"))
    await first.prompt_started.wait()
    server = first.client._server
    assert server is not None
    server.kill()
    await server.wait()
    ask.cancel()
    with contextlib.suppress(BaseException):
        await ask
    with contextlib.suppress(Exception):
        await first.client.stop()

    model.add(Reply.of(Text("it may not have run")))
    second = await _start(workspace, model)
    try:
        result = await second.ask("did it work?", session_id="crashy")
    finally:
        await _stop(second)
    assert result["text"] == "it may not have run"
    history = model.requests[-1]["messages"]
    (answer,) = [b for b in history[2]["content"] if b.get("type") == "tool_result"]
    assert answer["is_error"] and answer["content"] == INTERRUPTED_NOTE
    assert not (workspace / "crashed.txt").exists()
    assert model.errors == []


async def test_old_session_files_are_removed_at_start_up(workspace: Path, model: FakeModel) -> None:
    old = workspace.parent / "state" / "sessions" / "ancient"
    (old / "tool-results").mkdir(parents=True)
    files = [old / "tool-results" / "toolu_1.txt", old / "transcript.jsonl"]
    for path in files:
        path.write_text("old")
        os.utime(path, (time.time() - 40 * 86400,) * 2)
    editor = await _start(workspace, model)
    try:
        for _ in range(400):  # the clean-up runs in the background: wait for it to finish
            if not old.exists():
                break
            await asyncio.sleep(0.025)
    finally:
        await _stop(editor)
    assert not old.exists()
