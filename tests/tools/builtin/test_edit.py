"""Edit."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from handrail.tools.builtin import EDIT, READ
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from tests.tools.support import BUFFER_NOTE, BufferFileSystem, run

SOURCE = "".join(f"line {n}\n" for n in range(1, 11))


async def _read_file(ctx: ToolUseContext, path: Path, text: str = SOURCE) -> None:
    await asyncio.to_thread(path.write_text, text)
    await run(READ, ctx, file_path=str(path))


async def test_replaces_a_unique_string_and_shows_a_snippet(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ctx, path)
    text = await run(EDIT, ctx, file_path=str(path), old_string="line 5\n", new_string="five\n")
    assert path.read_text() == SOURCE.replace("line 5\n", "five\n")
    assert text.startswith(f"The file {path} has been updated.")
    assert "     5\tfive" in text
    assert "     1\tline 1" in text and "     9\tline 9" in text
    # The cache now holds the new text: a second edit needs no new Read.
    await run(EDIT, ctx, file_path=str(path), old_string="five", new_string="FIVE")
    assert "FIVE\n" in path.read_text()


async def test_requires_a_read(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text(SOURCE)
    with pytest.raises(ToolError, match=r"File has not been read yet\. Read it first before writing to it\."):
        await run(EDIT, ctx, file_path=str(path), old_string="line 1", new_string="x")


async def test_string_not_found(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ctx, path)
    with pytest.raises(ToolError, match=r"String to replace not found in file\."):
        await run(EDIT, ctx, file_path=str(path), old_string="nope", new_string="x")


async def test_not_unique_lists_line_numbers(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ctx, path, "x = 1\ny = 2\nx = 1\n")
    with pytest.raises(ToolError) as info:
        await run(EDIT, ctx, file_path=str(path), old_string="x = 1", new_string="x = 3")
    message = str(info.value)
    assert "Found 2 matches" in message
    assert "lines 1, 3" in message
    assert "replace_all" in message


async def test_identical_strings(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ctx, path)
    with pytest.raises(ToolError, match=r"No changes to make: old_string and new_string are exactly the same\."):
        await run(EDIT, ctx, file_path=str(path), old_string="line 1", new_string="line 1")


async def test_replace_all(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ctx, path, "x = 1\ny = x\n")
    text = await run(EDIT, ctx, file_path=str(path), old_string="x", new_string="z", replace_all=True)
    assert path.read_text() == "z = 1\ny = z\n"
    assert "All 2 occurrences" in text


async def test_crlf_file_matches_lf_strings_and_stays_crlf(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "dos.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await run(READ, ctx, file_path=str(path))
    await run(EDIT, ctx, file_path=str(path), old_string="one\ntwo\n", new_string="1\n2\n")
    assert path.read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_creates_a_file_with_empty_old_string(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "sub" / "new.py"
    text = await run(EDIT, ctx, file_path=str(path), old_string="", new_string="print()\n")
    assert text == f"File created successfully at: {path}"
    assert path.read_text() == "print()\n"


async def test_empty_old_string_on_existing_content_is_refused(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ctx, path)
    with pytest.raises(ToolError, match="already exists"):
        await run(EDIT, ctx, file_path=str(path), old_string="", new_string="x")


async def test_empty_old_string_fills_an_empty_file(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("")
    await run(EDIT, ctx, file_path=str(path), old_string="", new_string="content\n")
    assert path.read_text() == "content\n"


async def test_missing_file(ctx: ToolUseContext, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"File does not exist\."):
        await run(EDIT, ctx, file_path=str(tmp_path / "nope.txt"), old_string="a", new_string="b")


async def test_reanchors_when_the_user_typed_elsewhere(
    ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path
) -> None:
    path = tmp_path / "f.txt"
    path.write_text(SOURCE)
    editor.open(path)
    await run(READ, ectx, file_path=str(path))
    editor.type(path, SOURCE.replace("line 2\n", "line two, typed\n"))
    text = await run(EDIT, ectx, file_path=str(path), old_string="line 8\n", new_string="eight\n")
    assert editor.buffers[path].text == SOURCE.replace("line 2\n", "line two, typed\n").replace("line 8", "eight")
    assert "changed in the editor (unsaved) since you last read it (line 2;" in text
    assert "applied to the current text" in text
    assert BUFFER_NOTE in text


async def test_refuses_when_the_change_overlaps_the_edit(
    ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path
) -> None:
    path = tmp_path / "f.txt"
    path.write_text(SOURCE)
    editor.open(path)
    await run(READ, ectx, file_path=str(path))
    editor.type(path, SOURCE.replace("line 8\n", "line 8 # user comment\n"))
    with pytest.raises(ToolError, match="modified since read"):
        await run(EDIT, ectx, file_path=str(path), old_string="line 8", new_string="eight")
    assert "eight" not in editor.buffers[path].text


async def test_refuses_when_the_string_became_ambiguous(
    ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path
) -> None:
    path = tmp_path / "f.txt"
    path.write_text(SOURCE)
    editor.open(path)
    await run(READ, ectx, file_path=str(path))
    editor.type(path, SOURCE + "line 8\n")
    with pytest.raises(ToolError, match=r"(?s)modified since read.*more than once"):
        await run(EDIT, ectx, file_path=str(path), old_string="line 8\n", new_string="eight\n")


async def test_reanchors_after_a_disk_change(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ctx, path)
    path.write_text(SOURCE.replace("line 10\n", ""))
    text = await run(EDIT, ctx, file_path=str(path), old_string="line 1\n", new_string="one\n")
    assert path.read_text() == "one\n" + SOURCE.replace("line 1\n", "", 1).replace("line 10\n", "")
    assert "changed on disk" in text
    assert "lines removed after line 9" in text


async def test_curly_quotes_fallback(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    await _read_file(ctx, path, "say(\u201chi\u201d)\n")
    text = await run(EDIT, ctx, file_path=str(path), old_string='say("hi")', new_string='say("bye")')
    assert path.read_text() == "say(\u201cbye\u201d)\n"
    assert "curly quotes" in text


async def test_permission_check_carries_a_diff(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ctx, path)
    value = EDIT.input_model(file_path=str(path), old_string="line 3", new_string="three")
    check = await EDIT.check_permissions(value, ctx)
    assert check.behavior == "passthrough"
    assert check.diff is not None
    assert check.diff.startswith("--- a/f.txt\n+++ b/f.txt\n")
    assert "-line 3\n+three\n" in check.diff
    assert path.read_text() == SOURCE


async def test_validation_reports_problems_before_asking(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text(SOURCE)
    check = await EDIT.validate_input(EDIT.input_model(file_path=str(path), old_string="a", new_string="b"), ctx)
    assert not check.ok and "not been read" in check.message
    relative = await EDIT.validate_input(EDIT.input_model(file_path="f.txt", old_string="a", new_string="b"), ctx)
    assert not relative.ok and "absolute" in relative.message


async def test_ambiguity_error_shows_the_candidate_lines(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    await _read_file(ctx, path, "def a():\n    return None\n\ndef b():\n    return None\n")
    with pytest.raises(ToolError) as info:
        await run(EDIT, ctx, file_path=str(path), old_string="    return None", new_string="    return 1")
    assert "     2\t    return None\n     5\t    return None" in str(info.value)


async def test_crlf_untouched_lines_stay_byte_for_byte(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"a\r\nb\r\nc\r\nlf only\nd\r\n")
    await run(READ, ctx, file_path=str(path))
    await run(EDIT, ctx, file_path=str(path), old_string="b\nc\n", new_string="B\nC\nC2\n")
    assert path.read_bytes() == b"a\r\nB\r\nC\r\nC2\r\nlf only\nd\r\n"


async def test_trailing_whitespace_and_missing_final_newline_are_kept(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "ws.md"
    await _read_file(ctx, path, "keep  \nline two\t\nlast line   ")
    await run(EDIT, ctx, file_path=str(path), old_string="line two", new_string="line 2  ")
    assert path.read_text() == "keep  \nline 2  \t\nlast line   "


async def test_emoji_before_the_edit(ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path) -> None:
    path = tmp_path / "e.txt"
    path.write_text("🎉🎉 x = 1\n")
    editor.open(path, "🎉🎉 x = 1 # 👍 typed\n")
    await run(READ, ectx, file_path=str(path))
    await run(EDIT, ectx, file_path=str(path), old_string="x = 1", new_string="x = 2")
    assert editor.buffers[path].text == "🎉🎉 x = 2 # 👍 typed\n"
    disk = tmp_path / "d.txt"
    await _read_file(ectx, disk, "👩‍👩‍👧 a\nb\n")
    await run(EDIT, ectx, file_path=str(disk), old_string="a\n", new_string="α\n")
    assert disk.read_text() == "👩‍👩‍👧 α\nb\n"


async def test_one_write_per_call(ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ectx, path, "x\ny\nx\n")
    await run(EDIT, ectx, file_path=str(path), old_string="x", new_string="z", replace_all=True)
    assert editor.writes == [(path, "Edit f.txt")]


async def test_notebooks_are_sent_to_notebook_edit(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    path.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n')
    await run(READ, ctx, file_path=str(path))
    with pytest.raises(ToolError, match="NotebookEdit"):
        await run(EDIT, ctx, file_path=str(path), old_string="cells", new_string="x")


async def test_paths_report_the_symlink_target(ctx: ToolUseContext, tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("a\n")
    (tmp_path / "alias.txt").symlink_to(target)
    value = EDIT.input_model(file_path=str(tmp_path / "alias.txt"), old_string="a", new_string="b")
    assert EDIT.paths(value) == (tmp_path / "alias.txt", target.resolve())
