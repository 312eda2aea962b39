"""Files in an editor whose buffers are lines ended by line breaks (Neovim's 'eol'): an empty file is one line
break there, and a text always ends with one. New files are still created whole and saved, and an empty file is
not taken for one with unsaved changes. A VS Code-like editor (`line_ends` off) gets exactly the text."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, tool_results


def _write(path: Path, content: str) -> Reply:
    return Reply.of(ToolUse("Write", {"file_path": str(path), "content": content}))


async def test_new_file_is_created_whole_where_buffers_end_in_a_line_break(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    editor.line_ends = True
    target = workspace / "pkg" / "new.txt"
    model.add(_write(target, "first\nsecond\n"), Reply.of(Text("ok")))
    editor.answers.append("Allow once")
    result = await editor.ask("create it")
    assert result["stopReason"] == "end_turn"
    (block,) = tool_results(model.requests[1])
    assert not block.get("is_error"), result_text(block)
    assert editor.buffer(target) == "first\nsecond\n"  # the empty line the insert left was taken out again
    assert target.read_text() == "first\nsecond\n"
    assert editor.saves == [editor.uri(target)]
    assert "line break" not in result_text(block)


async def test_new_file_without_a_final_line_break_ends_with_the_editors(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    editor.line_ends = True
    target = workspace / "bare"
    model.add(
        _write(target, "no final newline"),
        Reply.of(ToolUse("Edit", {"file_path": str(target), "old_string": "final", "new_string": "last"})),
        Reply.of(Text("ok")),
    )
    editor.answers.extend(["Allow once", "Allow once"])
    await editor.ask("create it, then edit it")
    (created,) = tool_results(model.requests[1])
    assert not created.get("is_error"), result_text(created)
    assert "ends every file with a line break" in result_text(created)  # the model is told what the file holds
    (edited,) = tool_results(model.requests[2])  # and what it was told is what it may edit: no "read it again"
    assert not edited.get("is_error"), result_text(edited)
    assert target.read_text() == editor.buffer(target) == "no last newline\n"


async def test_empty_new_file_where_buffers_end_in_a_line_break(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    editor.line_ends = True
    target = workspace / "__init__.py"
    model.add(_write(target, ""), Reply.of(Text("ok")))
    editor.answers.append("Allow once")
    await editor.ask("create it")
    (block,) = tool_results(model.requests[1])
    assert not block.get("is_error"), result_text(block)
    assert editor.buffer(target) == "\n" and target.exists()


async def test_an_empty_file_open_as_one_line_break_is_not_unsaved_work(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    empty = workspace / "empty.txt"
    empty.write_text("")
    editor.open(empty, "\n")  # how Neovim reports it
    model.add(
        Reply.of(ToolUse("Read", {"file_path": str(empty)})),
        Reply.of(ToolUse("Edit", {"file_path": str(empty), "old_string": "\n", "new_string": "filled\n"})),
        Reply.of(Text("ok")),
    )
    editor.answers.append("Allow once")
    await editor.ask("fill it")
    (block,) = tool_results(model.requests[2])
    assert not block.get("is_error"), result_text(block)
    assert "unsaved" not in result_text(block)
    assert empty.read_text() == "filled\n"  # saved: the buffer had nothing the disk lacked


async def test_vscode_like_editor_gets_exactly_the_text(editor: Editor, model: FakeModel, workspace: Path) -> None:
    target = workspace / "bare"
    model.add(_write(target, "no final newline"), Reply.of(Text("ok")))
    editor.answers.append("Allow once")
    await editor.ask("create it")
    (block,) = tool_results(model.requests[1])
    assert not block.get("is_error") and "line break" not in result_text(block)
    assert target.read_text() == editor.buffer(target) == "no final newline"
    edits = [c for e in editor.edits for c in e.edit.document_changes or []]
    assert [type(c) for c in edits] == [types.CreateFile, types.TextDocumentEdit]  # no second edit
