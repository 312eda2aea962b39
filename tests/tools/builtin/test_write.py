"""Write."""

from __future__ import annotations

from pathlib import Path

import pytest

from handrail.tools.builtin import EDIT, READ, WRITE
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from tests.tools.support import BUFFER_NOTE, BufferFileSystem, run


async def test_creates_file_and_parent_dirs(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "new.txt"
    text = await run(WRITE, ctx, file_path=str(path), content="hello\n")
    assert text == f"File created successfully at: {path}"
    assert path.read_text() == "hello\n"
    # The new content is known, so an Edit needs no Read first.
    await run(EDIT, ctx, file_path=str(path), old_string="hello", new_string="bye")
    assert path.read_text() == "bye\n"


async def test_overwrite_requires_a_read(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("old\n")
    with pytest.raises(ToolError, match="has not been read yet"):
        await run(WRITE, ctx, file_path=str(path), content="new\n")
    assert path.read_text() == "old\n"
    await run(READ, ctx, file_path=str(path))
    text = await run(WRITE, ctx, file_path=str(path), content="new\n")
    assert text == f"The file {path} has been updated."
    assert path.read_text() == "new\n"


async def test_overwrite_after_external_change_is_refused(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("old\n")
    await run(READ, ctx, file_path=str(path))
    path.write_text("someone else\n")
    with pytest.raises(ToolError, match="modified since read"):
        await run(WRITE, ctx, file_path=str(path), content="new\n")
    assert path.read_text() == "someone else\n"


async def test_keeps_crlf_line_endings(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "dos.txt"
    path.write_bytes(b"a\r\nb\r\n")
    await run(READ, ctx, file_path=str(path))
    await run(WRITE, ctx, file_path=str(path), content="x\ny\n")
    assert path.read_bytes() == b"x\r\ny\r\n"


async def test_relative_path_is_refused(ctx: ToolUseContext) -> None:
    with pytest.raises(ToolError, match="absolute"):
        await run(WRITE, ctx, file_path="rel.txt", content="x")


async def test_permission_check_carries_a_diff(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("old\n")
    await run(READ, ctx, file_path=str(path))
    check = await WRITE.check_permissions(WRITE.input_model(file_path=str(path), content="new\n"), ctx)
    assert check.behavior == "passthrough"
    assert check.diff is not None
    assert check.diff.startswith("--- a/f.txt\n+++ b/f.txt\n")
    assert "-old\n+new\n" in check.diff

    created = await WRITE.check_permissions(WRITE.input_model(file_path=str(tmp_path / "n.txt"), content="hi\n"), ctx)
    assert created.diff is not None and created.diff.startswith("--- /dev/null\n+++ b/n.txt\n")


async def test_write_to_open_buffer_says_so(ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path) -> None:
    path = tmp_path / "open.txt"
    path.write_text("disk\n")
    editor.open(path)
    await run(READ, ectx, file_path=str(path))
    text = await run(WRITE, ectx, file_path=str(path), content="buffer\n")
    assert BUFFER_NOTE in text
    assert editor.buffers[path].text == "buffer\n"
    assert path.read_text() == "disk\n"


async def test_parent_that_is_a_file(ctx: ToolUseContext, tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    with pytest.raises(ToolError, match="one of its parents is a file"):
        await run(WRITE, ctx, file_path=str(tmp_path / "plain" / "child.txt"), content="y")


async def test_unicode_content_round_trips(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "u.txt"
    await run(WRITE, ctx, file_path=str(path), content="🎉 naïve\n")
    assert path.read_text(encoding="utf-8") == "🎉 naïve\n"


def test_paths_report_the_symlink_target(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "out").symlink_to(outside)
    value = WRITE.input_model(file_path=str(tmp_path / "ws" / "out" / "new.txt"), content="x")
    assert WRITE.paths(value) == (tmp_path / "ws" / "out" / "new.txt", outside.resolve() / "new.txt")
