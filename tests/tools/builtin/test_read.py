"""Read."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from handrail.tools.builtin import READ
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from tests.tools.support import BufferFileSystem, make_pdf, run, run_block


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


# ---------------------------------------------------------------- huge files, unicode, paths


async def test_huge_file_needs_offset_and_limit(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "huge.log"
    path.write_text("".join(f"log line {n:06} {'x' * 40}\n" for n in range(1, 10_001)))
    with pytest.raises(ToolError) as info:
        await run(READ, ctx, file_path=str(path))
    message = str(info.value)
    assert "exceeds the maximum size" in message and "(556 KB)" in message
    assert "offset and limit" in message and "Grep" in message
    assert ctx.file_state.get(path) is None

    text = await run(READ, ctx, file_path=str(path), offset=9_998, limit=10)
    assert text.splitlines()[0] == f"  9998\tlog line 009998 {'x' * 40}"
    assert text.splitlines()[2].startswith(" 10000\t")
    assert "Showing lines" not in text
    record = ctx.file_state.get(path)
    assert record is not None and (record.offset, record.limit) == (9_998, 3)
    middle = await run(READ, ctx, file_path=str(path), offset=5_000, limit=2)
    assert "Showing lines 5000-5001 of a 556 KB file" in middle and "offset=5002" in middle


async def test_unicode_lines(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "u.txt"
    path.write_text("🎉 party\nnaïve café\n", encoding="utf-8")
    assert await run(READ, ctx, file_path=str(path)) == "     1\t🎉 party\n     2\tnaïve café"


async def test_crlf_with_offset(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "dos.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree")
    assert await run(READ, ctx, file_path=str(path), offset=2) == "     2\ttwo\n     3\tthree"


async def test_paths_report_the_symlink_target(ctx: ToolUseContext, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "link").symlink_to(outside)
    value = READ.input_model(file_path=str(workspace / "link" / "secret.txt"))
    assert READ.paths(value) == (workspace / "link" / "secret.txt", (outside / "secret.txt").resolve())
    plain = READ.input_model(file_path=str(outside / "secret.txt"))
    assert READ.paths(plain) == (outside / "secret.txt",)
    dotted = READ.input_model(file_path=str(workspace / ".." / "outside" / "secret.txt"))
    assert READ.paths(dotted) == (outside / "secret.txt",)


async def test_pages_only_for_pdfs(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("a\n")
    with pytest.raises(ToolError, match="pages applies only to PDF"):
        await run(READ, ctx, file_path=str(path), pages="1")


# ---------------------------------------------------------------- images


def _image_bytes(size: tuple[int, int], fmt: str, mode: str = "RGB") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, (30, 60, 90)).save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "fmt", "media_type"),
    [("a.png", "PNG", "image/png"), ("b.jpg", "JPEG", "image/jpeg"), ("c.JPEG", "JPEG", "image/jpeg"),
     ("d.gif", "GIF", "image/gif"), ("e.webp", "WEBP", "image/webp")],
)
async def test_images_come_back_as_image_blocks(
    ctx: ToolUseContext, tmp_path: Path, name: str, fmt: str, media_type: str
) -> None:
    data = _image_bytes((32, 16), fmt)
    path = tmp_path / name
    path.write_bytes(data)
    block = await run_block(READ, ctx, file_path=str(path))
    assert block["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                     "data": base64.b64encode(data).decode()}}
    ]


async def test_huge_image_is_scaled_down(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "wide.png"
    path.write_bytes(_image_bytes((4000, 1000), "PNG"))
    image, note = (await run_block(READ, ctx, file_path=str(path)))["content"]
    with Image.open(io.BytesIO(base64.b64decode(image["source"]["data"]))) as decoded:
        assert decoded.size == (2000, 500)
    assert note["type"] == "text" and "4000x1000" in note["text"] and "2000x500" in note["text"]


async def test_image_by_content_under_another_name(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "screenshot"
    path.write_bytes(_image_bytes((8, 8), "PNG"))
    (image,) = (await run_block(READ, ctx, file_path=str(path)))["content"]
    assert image["source"]["media_type"] == "image/png"


async def test_broken_and_missing_images(ctx: ToolUseContext, tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not really a png")
    with pytest.raises(ToolError, match="could not be read as an image"):
        await run(READ, ctx, file_path=str(broken))
    (tmp_path / "empty.png").write_bytes(b"")
    with pytest.raises(ToolError, match="empty"):
        await run(READ, ctx, file_path=str(tmp_path / "empty.png"))
    with pytest.raises(ToolError, match=r"File does not exist\. Did you mean .*broken\.png"):
        await run(READ, ctx, file_path=str(tmp_path / "brokn.png"))


# ---------------------------------------------------------------- PDFs


async def test_pdf_page_range(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf([f"Chapter {n}\nBody of chapter {n}" for n in range(1, 13)]))
    with pytest.raises(ToolError, match=r"This PDF has 12 pages.*pages parameter"):
        await run(READ, ctx, file_path=str(path))
    text = await run(READ, ctx, file_path=str(path), pages="2-3,12")
    assert text.startswith(f"PDF file {path}: 12 pages; showing pages 2-3, 12.")
    assert "--- Page 2 ---\nChapter 2\nBody of chapter 2" in text
    assert "--- Page 3 ---\nChapter 3" in text
    assert "--- Page 12 ---\nChapter 12" in text
    assert "Chapter 4" not in text
    with pytest.raises(ToolError, match="has 12 pages"):
        await run(READ, ctx, file_path=str(path), pages="13")


async def test_small_pdf_without_pages(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "note.pdf"
    path.write_bytes(make_pdf(["Only page", ""]))
    text = await run(READ, ctx, file_path=str(path))
    assert "2 pages; showing pages 1-2." in text
    assert "--- Page 1 ---\nOnly page" in text
    assert "--- Page 2 ---\n(No text could be extracted" in text


# ---------------------------------------------------------------- notebooks


def _notebook(cells: list[dict[str, Any]], minor: int = 5) -> str:
    notebook = {
        "cells": cells,
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": minor,
    }
    return json.dumps(notebook, indent=1) + "\n"


async def test_notebook_cells_with_outputs(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "nb.ipynb"
    path.write_text(_notebook([
        {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "Some text"]},
        {"cell_type": "code", "id": "calc", "execution_count": 3, "metadata": {}, "source": "print(6 * 7)\n1 / 0",
         "outputs": [
             {"output_type": "stream", "name": "stdout", "text": ["42\n"]},
             {"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
              "traceback": ["\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"]},
         ]},
        {"cell_type": "code", "id": "val", "execution_count": 4, "metadata": {}, "source": "x",
         "outputs": [{"output_type": "execute_result", "execution_count": 4, "metadata": {},
                      "data": {"text/plain": ["'value'"], "text/html": ["<b>value</b>"]}}]},
    ]))
    text = await run(READ, ctx, file_path=str(path))
    assert text.startswith("Jupyter notebook (python, nbformat 4.5) with 3 cells.")
    assert '<cell id="intro" index="0" type="markdown">\n# Title\nSome text\n</cell>' in text
    assert '<cell id="calc" index="1" type="code" execution_count="3">\nprint(6 * 7)\n1 / 0\n</cell>' in text
    assert '<output cell="calc" type="stream">\n42\n</output>' in text
    assert "ZeroDivisionError: division by zero\nZeroDivisionError: division by zero" in text
    assert "\x1b" not in text
    assert '<output cell="val" type="execute_result">\n\'value\'\n</output>' in text
    assert ctx.file_state.get(path) is not None


async def test_notebook_output_images_are_image_blocks(ctx: ToolUseContext, tmp_path: Path) -> None:
    png = _image_bytes((10, 10), "PNG")
    path = tmp_path / "plot.ipynb"
    path.write_text(_notebook([
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "plot()", "outputs": [
            {"output_type": "display_data", "metadata": {},
             "data": {"image/png": base64.b64encode(png).decode(), "text/plain": ["<Figure>"]}}]},
        {"cell_type": "markdown", "metadata": {}, "source": "after"},
    ], minor=4))
    first, image, rest = (await run_block(READ, ctx, file_path=str(path)))["content"]
    assert '<cell id="cell-0" index="0" type="code"' in first["text"]
    assert "<Figure>\n[image/png image]" in first["text"]
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"]) == png
    assert '<cell id="cell-1" index="1" type="markdown">\nafter\n</cell>' in rest["text"]


async def test_invalid_notebook(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "bad.ipynb"
    path.write_text("{not json")
    with pytest.raises(ToolError, match="not valid JSON"):
        await run(READ, ctx, file_path=str(path))
