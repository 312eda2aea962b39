"""Read."""

from __future__ import annotations

from pathlib import Path

import pytest

from handrail.tools.builtin import READ
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError

from .support import BufferFileSystem, run


async def test_numbers_lines_like_cat_n_and_records_the_read(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "app.py"
    path.write_text("import os\n\nprint(os.name)\n")
    text = await run(READ, ctx, file_path=str(path))
    assert text == "     1\timport os\n     2\t\n     3\tprint(os.name)"
    record = ctx.file_state.get(path)
    assert record is not None
    assert record.text == path.read_text()
    assert (record.offset, record.limit) == (None, None)


async def test_offset_and_limit(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "ten.txt"
    path.write_text("".join(f"line {n}\n" for n in range(1, 11)))
    text = await run(READ, ctx, file_path=str(path), offset=3, limit=2)
    assert text.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"]
    assert "Showing lines 3-4 of 10" in text
    assert "offset=5" in text
    record = ctx.file_state.get(path)
    assert record is not None and record.partial
    assert (record.offset, record.limit) == (3, 2)


async def test_default_limit_is_2000_lines(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("x\n" * 2500)
    text = await run(READ, ctx, file_path=str(path))
    assert "  2000\tx" in text
    assert "  2001\t" not in text
    assert "Showing lines 1-2000 of 2500" in text


async def test_long_lines_are_cut(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_text("a" * 2500 + "\nshort\n")
    text = await run(READ, ctx, file_path=str(path))
    first, second = text.splitlines()
    assert first.startswith("     1\t" + "a" * 2000 + "…")
    assert "2500 characters" in first
    assert second == "     2\tshort"


async def test_crlf_lines_show_without_carriage_returns(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "dos.txt"
    path.write_bytes(b"one\r\ntwo\r\n")
    assert await run(READ, ctx, file_path=str(path)) == "     1\tone\n     2\ttwo"


async def test_empty_file(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_text("")
    text = await run(READ, ctx, file_path=str(path))
    assert "exists but the contents are empty" in text
    assert ctx.file_state.get(path) is not None


async def test_binary_file(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "image.bin"
    path.write_bytes(b"\x89PNG\x00\x00\x01")
    with pytest.raises(ToolError, match="binary"):
        await run(READ, ctx, file_path=str(path))


async def test_missing_file_suggests_a_close_name(ctx: ToolUseContext, tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("a: 1\n")
    with pytest.raises(ToolError) as info:
        await run(READ, ctx, file_path=str(tmp_path / "config.yml"))
    assert str(info.value).startswith("File does not exist.")
    assert f"Did you mean {tmp_path / 'config.yaml'}?" in str(info.value)


async def test_missing_file_without_suggestion(ctx: ToolUseContext, tmp_path: Path) -> None:
    with pytest.raises(ToolError) as info:
        await run(READ, ctx, file_path=str(tmp_path / "nothing" / "here.txt"))
    assert "Did you mean" not in str(info.value)


async def test_directory(ctx: ToolUseContext, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"is a directory.*Glob"):
        await run(READ, ctx, file_path=str(tmp_path))


async def test_relative_path_fails_validation(ctx: ToolUseContext) -> None:
    value = READ.input_model(file_path="src/app.py")
    check = await READ.validate_input(value, ctx)
    assert not check.ok
    assert "absolute" in check.message


async def test_offset_past_the_end(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "three.txt"
    path.write_text("a\nb\nc\n")
    text = await run(READ, ctx, file_path=str(path), offset=10)
    assert "The file has 3 lines" in text
    assert ctx.file_state.get(path) is None


async def test_reads_the_unsaved_editor_buffer(ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path) -> None:
    path = tmp_path / "open.py"
    path.write_text("on disk\n")
    editor.open(path, "typed in the editor\n")
    text = await run(READ, ectx, file_path=str(path))
    assert text.startswith("     1\ttyped in the editor")
    assert "unsaved" in text
    record = ectx.file_state.get(path)
    assert record is not None and record.text == "typed in the editor\n"


async def test_clean_buffer_has_no_unsaved_note(ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path) -> None:
    path = tmp_path / "open.py"
    path.write_text("same\n")
    editor.open(path)
    assert await run(READ, ectx, file_path=str(path)) == "     1\tsame"
