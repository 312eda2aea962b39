"""Transcripts on disk: appended as the history grows, rewritten after compaction, repaired when loaded."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from handrail.agent.agent_loop import add_user_content
from handrail.agent.persistence import SessionArchive
from handrail.agent.retention import remove_old_session_files
from handrail.agent.session import Session
from handrail.agent.transcript import INTERRUPTED_NOTE, Transcript, load_transcript
from handrail.fake_model import validate_request
from handrail.permissions.context import PermissionContext


def _save(transcript: Transcript, messages: list[dict[str, Any]]) -> None:
    transcript.write(*transcript.pending(messages))


def _use(tool_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": "/x"}}


def _result(tool_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}


def test_a_history_saved_step_by_step_loads_back_equal(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "t.jsonl")
    messages: list[dict[str, Any]] = []
    add_user_content(messages, [{"type": "text", "text": "read x"}])
    _save(transcript, messages)
    messages.append({"role": "assistant", "content": [_use("a")]})
    _save(transcript, messages)
    add_user_content(messages, [_result("a")])
    _save(transcript, messages)
    add_user_content(messages, [{"type": "text", "text": "and then?"}])  # merges into the last user message
    _save(transcript, messages)
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "done"}]})
    _save(transcript, messages)
    _save(transcript, messages)  # nothing new: nothing written
    assert load_transcript(transcript.path) == messages
    assert len(transcript.path.read_text().splitlines()) == 5


def test_a_rewritten_history_replaces_the_file(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "t.jsonl")
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "long ago"}]},
                                      {"role": "assistant", "content": [{"type": "text", "text": "yes"}]}]
    _save(transcript, messages)
    messages[:] = [{"role": "user", "content": [{"type": "text", "text": "summary"}]}]
    _save(transcript, messages)
    assert load_transcript(transcript.path) == messages
    assert "long ago" not in transcript.path.read_text()


def test_a_torn_line_and_an_unanswered_call_are_repaired(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    records = [{"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "go"}]}},
               {"type": "message", "message": {"role": "assistant", "content": [_use("a"), _use("b")]}},
               {"type": "message", "message": {"role": "user", "content": [_result("b")]}}]
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + '{"type": "message", "mess')
    messages = load_transcript(path)
    assert validate_request({"messages": messages}) is None
    answers = {b["tool_use_id"]: b for b in messages[2]["content"]}
    assert answers["a"]["is_error"] and answers["a"]["content"] == INTERRUPTED_NOTE
    assert answers["b"] == _result("b")


def test_a_call_cut_off_by_a_crash_is_answered(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    records = [{"role": "assistant", "content": []}, {"role": "user", "content": [{"type": "text", "text": "go"}]},
               {"role": "assistant", "content": [_use("a")]}]
    path.write_text("".join(json.dumps({"type": "message", "message": m}) + "\n" for m in records))
    messages = load_transcript(path)
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert validate_request({"messages": messages}) is None


def test_a_missing_or_garbage_file_is_an_empty_history(tmp_path: Path) -> None:
    assert load_transcript(tmp_path / "none.jsonl") == []
    (tmp_path / "bad.jsonl").write_bytes(b"\xff\xfe\x00garbage\n[1, 2]\n")
    assert load_transcript(tmp_path / "bad.jsonl") == []


def test_old_tool_results_and_transcripts_are_removed(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for session in (old, new):
        (session / "tool-results").mkdir(parents=True)
        (session / "tool-results" / "toolu_1.txt").write_text("big output")
        (session / "transcript.jsonl").write_text("{}\n")
    (old / "audit.jsonl").write_text("{}\n")
    (tmp_path / "outside.txt").write_text("not a session")
    month_ago = time.time() - 31 * 86400
    for path in [old / "tool-results" / "toolu_1.txt", old / "transcript.jsonl", old / "audit.jsonl"]:
        os.utime(path, (month_ago, month_ago))
    assert remove_old_session_files(tmp_path, 30) == 2
    assert not (old / "tool-results").exists() and not (old / "transcript.jsonl").exists()
    assert (old / "audit.jsonl").exists()  # not ours to remove
    assert (new / "tool-results" / "toolu_1.txt").exists() and (new / "transcript.jsonl").exists()
    assert (tmp_path / "outside.txt").exists()
    assert remove_old_session_files(tmp_path / "missing", 30) == 0


async def test_a_resumed_session_saved_again_is_not_stored_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HANDRAIL_STATE_DIR", str(tmp_path))
    first = Session("s", PermissionContext())
    first.messages += [{"role": "user", "content": [{"type": "text", "text": "hi"}]},
                       {"role": "assistant", "content": [_use("a")]}]
    await SessionArchive().save(first)
    resumed = Session("s", PermissionContext())
    archive = SessionArchive()  # a restarted server
    await archive.resume(resumed)  # the repair answers the call the file left open
    add_user_content(resumed.messages, [{"type": "text", "text": "again"}])
    await archive.save(resumed)
    again = Session("s", PermissionContext())
    await SessionArchive().resume(again)
    assert again.messages == resumed.messages


async def test_saves_handed_to_the_background_land_in_order_before_a_waited_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HANDRAIL_STATE_DIR", str(tmp_path))
    session = Session("s", PermissionContext())
    archive = SessionArchive()
    for n in range(30):  # the agent loop's saves: handed over, not waited for
        add_user_content(session.messages, [{"type": "text", "text": f"prompt {n}"}])
        archive.save_soon(session)
        session.messages.append({"role": "assistant", "content": [{"type": "text", "text": f"answer {n}"}]})
        archive.save_soon(session)
    session.messages[:] = session.messages[-2:]  # compacted: the file is rewritten
    archive.save_soon(session)
    add_user_content(session.messages, [{"type": "text", "text": "last"}])
    await archive.save(session)  # the turn's end waits for every write before it
    again = Session("s", PermissionContext())
    await SessionArchive().resume(again)
    assert again.messages == session.messages
