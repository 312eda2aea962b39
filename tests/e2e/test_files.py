"""Reading and editing through the editor: buffers, disk, read-before-edit, changes behind the agent's back."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, tool_results


def _read(path: Path) -> Reply:
    return Reply.of(ToolUse("Read", {"file_path": str(path)}))


def _edit(path: Path, old: str, new: str) -> Reply:
    return Reply.of(ToolUse("Edit", {"file_path": str(path), "old_string": old, "new_string": new}))


async def test_edit_of_a_file_not_open_goes_to_disk(editor: Editor, model: FakeModel, workspace: Path) -> None:
    notes = workspace / "notes.txt"
    model.add(_read(notes), _edit(notes, "beta", "BETA"), Reply.of(Text("done")))
    editor.answers.append("Allow once")
    result = await editor.ask("shout beta")
    assert result["stopReason"] == "end_turn"
    assert notes.read_text() == "alpha\nBETA\ngamma\n"
    assert editor.edits == []  # nothing open, so nothing went through applyEdit


async def test_edit_without_read_is_refused(editor: Editor, model: FakeModel, workspace: Path) -> None:
    notes = workspace / "notes.txt"
    model.add(_edit(notes, "beta", "BETA"), Reply.of(Text("I will read it first next time.")))
    result = await editor.ask("shout beta")
    assert result["stopReason"] == "end_turn"
    (block,) = tool_results(model.requests[1])
    assert block["is_error"] is True
    assert "read" in result_text(block).lower()
    assert notes.read_text() == "alpha\nbeta\ngamma\n"
    assert editor.prompts == []  # refused before anyone was asked


async def test_denied_write_changes_nothing(editor: Editor, model: FakeModel, workspace: Path) -> None:
    target = workspace / "new.txt"
    model.add(Reply.of(ToolUse("Write", {"file_path": str(target), "content": "x\n"})), Reply.of(Text("ok")))
    editor.answers.append("Deny")
    result = await editor.ask("write a file")
    assert result["stopReason"] == "end_turn"
    (block,) = tool_results(model.requests[1])
    assert block["is_error"] is True and "declined" in result_text(block)
    assert not target.exists()
    assert [e["decision"] for e in editor.chat if e["kind"] == "permission"] == ["deny"]


async def test_read_sees_unsaved_buffer_text(editor: Editor, model: FakeModel, workspace: Path) -> None:
    notes = workspace / "notes.txt"
    editor.open(notes)
    editor.type(notes, "alpha\nunsaved words\ngamma\n")
    model.add(_read(notes), Reply.of(Text("read")))
    await editor.ask("read notes")
    (block,) = tool_results(model.requests[1])
    assert "unsaved words" in result_text(block)
    assert notes.read_text() == "alpha\nbeta\ngamma\n"


async def test_unsaved_user_text_survives_agent_edit(editor: Editor, model: FakeModel, workspace: Path) -> None:
    notes = workspace / "notes.txt"
    editor.open(notes)
    editor.type(notes, "alpha\nbeta\ngamma\nmy unsaved line\n")
    model.add(_read(notes), _edit(notes, "alpha", "ALPHA"), Reply.of(Text("done")))
    editor.answers.append("Allow once")
    await editor.ask("shout alpha")
    assert editor.buffer(notes) == "ALPHA\nbeta\ngamma\nmy unsaved line\n"
    assert notes.read_text() == "alpha\nbeta\ngamma\n"  # the user's work was not saved behind their back
    assert editor.saves == []
    (block,) = tool_results(model.requests[2])
    assert "unsaved" in result_text(block) and not block.get("is_error")


async def test_user_typing_after_read_is_reanchored(editor: Editor, model: FakeModel, workspace: Path) -> None:
    notes = workspace / "notes.txt"
    editor.open(notes)

    def edit_after_user_typed(request: dict[str, object]) -> Reply:
        editor.type(notes, "alpha\nbeta\ngamma\ndelta typed by the user\n")
        return _edit(notes, "beta", "BETA")

    model.add(_read(notes), edit_after_user_typed, Reply.of(Text("done")))
    editor.answers.append("Allow once")
    await editor.ask("shout beta")
    assert editor.buffer(notes) == "alpha\nBETA\ngamma\ndelta typed by the user\n"
    (block,) = tool_results(model.requests[2])
    assert not block.get("is_error"), block
    assert "changed" in result_text(block).lower()


async def test_disk_change_over_the_edit_is_refused(editor: Editor, model: FakeModel, workspace: Path) -> None:
    notes = workspace / "notes.txt"

    def edit_after_disk_change(request: dict[str, object]) -> Reply:
        notes.write_text("alpha\nbeta was rewritten\ngamma\n")
        return _edit(notes, "beta\n", "BETA\n")

    model.add(_read(notes), edit_after_disk_change, Reply.of(Text("will re-read")))
    editor.answers.append("Allow once")
    await editor.ask("shout beta")
    (block,) = tool_results(model.requests[2])
    assert block["is_error"] is True
    assert notes.read_text() == "alpha\nbeta was rewritten\ngamma\n"


async def test_stale_edit_skipped_by_the_editor_is_reported(editor: Editor, model: FakeModel, workspace: Path) -> None:
    notes = workspace / "notes.txt"
    editor.open(notes)
    editor.skip_stale_edits = True
    original_apply = editor.apply

    def apply_after_user_typed(params):  # type: ignore[no-untyped-def]
        editor.type(notes, "alpha\nbeta\ngamma\nuser was faster\n")
        return original_apply(params)

    editor.apply = apply_after_user_typed  # type: ignore[method-assign]
    model.add(_read(notes), _edit(notes, "beta", "BETA"), Reply.of(Text("ok")))
    editor.answers.append("Allow once")
    await editor.ask("shout beta")
    (block,) = tool_results(model.requests[2])
    assert block["is_error"] is True, block
    assert "did not apply" in result_text(block)
    assert editor.buffer(notes) == "alpha\nbeta\ngamma\nuser was faster\n"


async def test_new_file_is_created_through_the_editor_and_saved(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    target = workspace / "pkg" / "new_module.py"
    model.add(Reply.of(ToolUse("Write", {"file_path": str(target), "content": "VALUE = 1\n"})), Reply.of(Text("ok")))
    editor.answers.append("Allow once")
    await editor.ask("create a module")
    assert editor.buffer(target) == "VALUE = 1\n"  # it opened in the editor
    assert target.read_text() == "VALUE = 1\n"  # and was saved
    assert any(isinstance(c, types.CreateFile) for e in editor.edits for c in e.edit.document_changes or [])
    (block,) = tool_results(model.requests[1])
    assert not block.get("is_error"), block
