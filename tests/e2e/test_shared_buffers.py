"""Buffers the editor holds without having opened them to handrail (a restarted server, a buffer with no filetype in
Neovim): a client that declares `shareDocument` is asked before handrail reads or writes such a file on disk, and
handrail refuses to write when the client cannot tell or does not share the buffer it holds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio
from pygls.exceptions import JsonRpcInternalError

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, server_env, start_editor, tool_results

NOTES = "alpha\nbeta\ngamma\n"
UNSAVED = "alpha\nbeta\ngamma\nmy unsaved line\n"


@pytest_asyncio.fixture
async def sharing_editor(workspace: Path, model: FakeModel) -> AsyncIterator[Editor]:
    """A plain-LSP editor that can save and declares `shareDocument`."""
    env = server_env(model.base_url, workspace.parent / "state")
    editor = await start_editor(workspace, env, extra={"shareDocument": True})
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


def _read(path: Path) -> Reply:
    return Reply.of(ToolUse("Read", {"file_path": str(path)}))


def _edit(path: Path, old: str, new: str) -> Reply:
    return Reply.of(ToolUse("Edit", {"file_path": str(path), "old_string": old, "new_string": new}))


async def test_a_held_buffer_is_shared_before_the_agent_reads_or_edits(
    sharing_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    editor, notes = sharing_editor, workspace / "notes.txt"
    editor.hold(notes, UNSAVED)
    model.add(_read(notes), _edit(notes, "beta", "BETA"), Reply.of(Text("ok")))
    editor.answers.append("Allow once")
    await editor.ask("shout beta")
    (read,) = tool_results(model.requests[1])
    assert "my unsaved line" in result_text(read)  # the agent read what the user sees
    (edited,) = tool_results(model.requests[2])
    assert not edited.get("is_error") and "unsaved" in result_text(edited)
    assert editor.buffer(notes) == UNSAVED.replace("beta", "BETA")  # the edit went into the buffer...
    assert notes.read_text() == NOTES  # ...and nothing was written behind it
    assert editor.share_requests == [editor.uri(notes)]  # asked once; the buffer is open from then on


async def test_a_file_the_editor_does_not_hold_is_written_on_disk(
    sharing_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    editor, notes = sharing_editor, workspace / "notes.txt"
    model.add(_read(notes), _edit(notes, "beta", "BETA"), Reply.of(Text("ok")))
    editor.answers.append("Allow once")
    await editor.ask("shout beta")
    (edited,) = tool_results(model.requests[2])
    assert not edited.get("is_error"), result_text(edited)
    assert notes.read_text() == NOTES.replace("beta", "BETA")
    assert set(editor.share_requests) == {editor.uri(notes)} and editor.edits == []  # asked at each read and write


async def test_a_held_new_file_gets_the_text_in_its_buffer(
    sharing_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    editor, target = sharing_editor, workspace / "draft.txt"
    editor.hold(target, "the user's draft\n")  # `:e draft.txt`, typed, not saved: no file on disk yet
    model.add(_read(target), Reply.of(ToolUse("Write", {"file_path": str(target), "content": "the agent's text\n"})))
    model.add(Reply.of(Text("ok")))
    editor.answers.append("Allow once")
    await editor.ask("write the draft")
    (read,) = tool_results(model.requests[1])
    assert "the user's draft" in result_text(read)
    (block,) = tool_results(model.requests[2])
    assert not block.get("is_error") and "unsaved" in result_text(block)
    assert editor.buffer(target) == "the agent's text\n"  # one undo step away from the user's draft
    assert not target.exists()


async def test_a_held_buffer_that_is_not_shared_is_not_written_behind(
    sharing_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    editor, target = sharing_editor, workspace / "draft.txt"
    editor.share_answer = {"open": True}  # it holds the file, and never opens it to handrail
    model.add(Reply.of(ToolUse("Write", {"file_path": str(target), "content": "the agent's text\n"})))
    model.add(Reply.of(Text("ok")))
    editor.answers.append("Allow once")
    await editor.ask("write the draft")
    (block,) = tool_results(model.requests[1])
    assert block["is_error"] is True
    assert "did not share its buffer" in result_text(block) and "did not write" in result_text(block)
    assert not target.exists() and editor.edits == []


async def test_a_client_that_cannot_answer_gets_no_write(
    sharing_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    editor, notes = sharing_editor, workspace / "notes.txt"
    editor.share_answer = JsonRpcInternalError("buffer list unavailable")
    model.add(_read(notes), _edit(notes, "beta", "BETA"), Reply.of(Text("ok")))
    editor.answers.append("Allow once")
    await editor.ask("shout beta")
    (read,) = tool_results(model.requests[1])
    assert not read.get("is_error") and "beta" in result_text(read)  # reading the disk loses nothing
    (edited,) = tool_results(model.requests[2])
    assert edited["is_error"] is True and "could not ask the editor" in result_text(edited)
    assert notes.read_text() == NOTES


async def test_a_client_without_share_document_is_taken_at_its_word(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    notes = workspace / "notes.txt"
    editor.hold(notes, UNSAVED)  # held, but this client never said it would share: LSP's word is its didOpens
    model.add(_read(notes), _edit(notes, "beta", "BETA"), Reply.of(Text("ok")))
    editor.answers.append("Allow once")
    await editor.ask("shout beta")
    assert editor.share_requests == []
    assert notes.read_text() == NOTES.replace("beta", "BETA")
