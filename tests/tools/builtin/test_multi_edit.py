"""MultiEdit."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from handrail.tools.builtin import MULTI_EDIT, READ
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from tests.tools.support import BufferFileSystem, run

SOURCE = "".join(f"line {n}\n" for n in range(1, 21))


def edits(*pairs: tuple[str, str] | tuple[str, str, bool]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for pair in pairs:
        item: dict[str, Any] = {"old_string": pair[0], "new_string": pair[1]}
        if len(pair) == 3:
            item["replace_all"] = pair[2]
        out.append(item)
    return out


async def _read_file(ctx: ToolUseContext, path: Path, text: str = SOURCE) -> None:
    await asyncio.to_thread(path.write_text, text)
    await run(READ, ctx, file_path=str(path))


async def test_applies_edits_in_order(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ctx, path)
    text = await run(
        MULTI_EDIT, ctx, file_path=str(path),
        edits=edits(("line 2\n", "two\n"), ("two\nline 3", "two\nthree"), ("line 18\n", "eighteen\n")),
    )
    assert path.read_text() == SOURCE.replace("line 2\n", "two\n").replace("line 3", "three").replace(
        "line 18\n", "eighteen\n"
    )
    assert text.startswith(f"Applied 3 edits to {path}.")
    assert "     2\ttwo\n     3\tthree" in text
    assert "    18\teighteen" in text


async def test_all_or_nothing(ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ectx, path)
    with pytest.raises(ToolError) as info:
        await run(MULTI_EDIT, ectx, file_path=str(path), edits=edits(("line 1\n", "one\n"), ("nope", "x")))
    message = str(info.value)
    assert message.startswith("Edit 2 of 2: String to replace not found in file.")
    assert "None of the edits were applied." in message
    assert path.read_text() == SOURCE
    assert editor.writes == []


async def test_one_write_for_all_edits(ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text(SOURCE)
    editor.open(path)
    await run(READ, ectx, file_path=str(path))
    await run(MULTI_EDIT, ectx, file_path=str(path), edits=edits(("line 1\n", "1\n"), ("line 9\n", "9\n")))
    assert editor.writes == [(path, "MultiEdit f.txt")]
    assert editor.buffers[path].text == SOURCE.replace("line 1\n", "1\n").replace("line 9\n", "9\n")


async def test_replace_all_and_uniqueness(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    await _read_file(ctx, path, "a = 1\nb = a\nc = a\n")
    with pytest.raises(ToolError, match=r"(?s)Edit 1 of 2: Found 2 matches.*     2\tb = a\n     3\tc = a"):
        await run(MULTI_EDIT, ctx, file_path=str(path), edits=edits(("= a", "= z"), ("a = 1", "z = 1")))
    await run(MULTI_EDIT, ctx, file_path=str(path), edits=edits(("= a", "= z", True), ("a = 1", "z = 1")))
    assert path.read_text() == "z = 1\nb = z\nc = z\n"


async def test_refuses_to_edit_what_an_earlier_edit_wrote(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ctx, path)
    with pytest.raises(ToolError, match="Edit 2 of 2: old_string is a substring of the new_string of an earlier"):
        await run(MULTI_EDIT, ctx, file_path=str(path), edits=edits(("line 5", "line 5 new"), ("5 new", "x")))


async def test_identical_strings(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ctx, path)
    with pytest.raises(ToolError, match="Edit 2 of 2: No changes to make"):
        await run(MULTI_EDIT, ctx, file_path=str(path), edits=edits(("line 1", "x"), ("line 2", "line 2")))


async def test_creates_a_file(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "new" / "mod.py"
    text = await run(MULTI_EDIT, ctx, file_path=str(path), edits=edits(("", "x = 1\ny = 2\n"), ("y = 2", "y = 3")))
    assert text == f"File created successfully at: {path}"
    assert path.read_text() == "x = 1\ny = 3\n"


async def test_requires_a_read_and_edits(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text(SOURCE)
    with pytest.raises(ToolError, match="has not been read yet"):
        await run(MULTI_EDIT, ctx, file_path=str(path), edits=edits(("line 1", "x")))
    with pytest.raises(ValueError, match="at least 1 item"):
        MULTI_EDIT.input_model.model_validate({"file_path": str(path), "edits": []})


async def test_crlf_file(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "dos.txt"
    path.write_bytes(b"a\r\nb\r\nc\r\n")
    await run(READ, ctx, file_path=str(path))
    await run(MULTI_EDIT, ctx, file_path=str(path), edits=edits(("a\nb\n", "A\nB\n"), ("c", "C")))
    assert path.read_bytes() == b"A\r\nB\r\nC\r\n"


async def test_reanchors_over_changes_elsewhere(
    ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path
) -> None:
    path = tmp_path / "f.txt"
    path.write_text(SOURCE)
    editor.open(path)
    await run(READ, ectx, file_path=str(path))
    typed = SOURCE.replace("line 10\n", "line 10\ntyped a\ntyped b\n")
    editor.type(path, typed)
    text = await run(
        MULTI_EDIT, ectx, file_path=str(path),
        edits=edits(("line 2\n", "two\nthree lines\n"), ("line 15\n", "fifteen\n")),
    )
    assert editor.buffers[path].text == typed.replace("line 2\n", "two\nthree lines\n").replace(
        "line 15\n", "fifteen\n"
    )
    assert "changed in the editor (unsaved) since you last read it (lines 11-12;" in text


async def test_refuses_when_a_later_edit_overlaps_a_change(
    ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path
) -> None:
    path = tmp_path / "f.txt"
    path.write_text(SOURCE)
    editor.open(path)
    await run(READ, ectx, file_path=str(path))
    editor.type(path, SOURCE.replace("line 12\n", "line 12 # mine\n"))
    with pytest.raises(ToolError, match=r"(?s)Edit 2 of 2: File has been modified since read.*lines you are editing"):
        # The first edit adds lines above, so the user's change sits lower by the time edit 2 runs.
        await run(
            MULTI_EDIT, ectx, file_path=str(path),
            edits=edits(("line 1\n", "one\nuno\neins\n"), ("line 12", "twelve")),
        )
    assert editor.writes == []


async def test_permission_diff_is_the_whole_change(ctx: ToolUseContext, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    await _read_file(ctx, path)
    value = MULTI_EDIT.input_model.model_validate(
        {"file_path": str(path), "edits": edits(("line 1\n", "one\n"), ("line 20\n", "twenty\n"))}
    )
    check = await MULTI_EDIT.check_permissions(value, ctx)
    assert check.diff is not None
    assert check.diff.startswith("--- a/f.txt\n+++ b/f.txt\n")
    assert "-line 1\n+one\n" in check.diff and "-line 20\n+twenty\n" in check.diff
    assert path.read_text() == SOURCE


def test_flags_and_summary() -> None:
    value = MULTI_EDIT.input_model.model_validate({"file_path": "/w/a.py", "edits": edits(("a", "b"), ("c", "d"))})
    assert not MULTI_EDIT.is_read_only(value) and not MULTI_EDIT.is_concurrency_safe(value)
    assert MULTI_EDIT.paths(value) == (Path("/w/a.py"),)
    assert MULTI_EDIT.rule_content(value) == "/w/a.py"
    assert MULTI_EDIT.summary(value) == "MultiEdit /w/a.py (2 edits)"
    schema = MULTI_EDIT.definition()["input_schema"]
    assert schema["required"] == ["file_path", "edits"]


async def test_changes_elsewhere_are_followed_through_earlier_edits(
    ectx: ToolUseContext, editor: BufferFileSystem, tmp_path: Path
) -> None:
    path = tmp_path / "f.txt"
    path.write_text(SOURCE)
    editor.open(path)
    await run(READ, ectx, file_path=str(path))
    editor.type(path, SOURCE.replace("line 12\n", "line 12 # mine\n"))
    # After edit 1 adds two lines, "line 10" sits on line 12: where the user's change was before the edit.
    await run(
        MULTI_EDIT, ectx, file_path=str(path),
        edits=edits(("line 1\n", "one\nuno\neins\n"), ("line 10\n", "ten\n")),
    )
    assert editor.buffers[path].text.splitlines()[11:15] == ["ten", "line 11", "line 12 # mine", "line 13"]


def test_apply_edits_reports_spans_in_the_final_text() -> None:
    from handrail.tools.text_ops import EditSpec, apply_edits

    applied = apply_edits(SOURCE, [EditSpec("line 10\n", "ten\n"), EditSpec("line 2\n", "two\nand\nmore\n")])
    assert applied.spans == ((12, 12), (2, 4))
    assert applied.text.splitlines()[11] == "ten"
