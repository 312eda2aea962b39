"""Grep."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from handrail.tools.builtin import GREP
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError

from .support import run


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    files = {
        "src/app.py": "import os\n\ndef main():\n    print('Hello')\n    return 0\n",
        "src/util.py": "def helper():\n    return 'hello world'\n",
        "README.md": "Hello readme\n",
    }
    for mtime, (name, text) in enumerate(files.items(), start=1):
        path = tmp_path / name
        path.write_text(text)
        os.utime(path, (mtime * 1_000_000, mtime * 1_000_000))
    return tmp_path


async def test_files_with_matches_newest_first(ctx: ToolUseContext, tree: Path) -> None:
    text = await run(GREP, ctx, pattern="hello", **{"-i": True})
    assert text.splitlines() == [
        "Found 3 files",
        str(tree / "README.md"),
        str(tree / "src" / "util.py"),
        str(tree / "src" / "app.py"),
    ]


async def test_case_sensitive_by_default(ctx: ToolUseContext, tree: Path) -> None:
    text = await run(GREP, ctx, pattern="hello")
    assert text.splitlines() == ["Found 1 file", str(tree / "src" / "util.py")]


async def test_content_mode_with_line_numbers_and_context(ctx: ToolUseContext, tree: Path) -> None:
    app = tree / "src" / "app.py"
    text = await run(GREP, ctx, pattern="print", path=str(app), output_mode="content", **{"-B": 1})
    assert text.splitlines() == ["3-def main():", "4:    print('Hello')"]
    text = await run(GREP, ctx, pattern="print", output_mode="content", **{"-C": 1, "-n": False})
    assert text.splitlines() == [
        f"{app}-def main():",
        f"{app}:    print('Hello')",
        f"{app}-    return 0",
    ]


async def test_glob_and_type_filters(ctx: ToolUseContext, tree: Path) -> None:
    text = await run(GREP, ctx, pattern="(?i)hello", glob="*.md")
    assert text.splitlines() == ["Found 1 file", str(tree / "README.md")]
    text = await run(GREP, ctx, pattern="(?i)hello", type="py", output_mode="files_with_matches")
    assert "README.md" not in text and text.startswith("Found 2 files")
    text = await run(GREP, ctx, pattern="(?i)hello", glob="*.{md,txt}")
    assert text.startswith("Found 1 file")


async def test_count_mode(ctx: ToolUseContext, tree: Path) -> None:
    text = await run(GREP, ctx, pattern="return", output_mode="count")
    lines = text.splitlines()
    assert sorted(lines[:2]) == [f"{tree / 'src' / 'app.py'}:1", f"{tree / 'src' / 'util.py'}:1"]
    assert lines[-1] == "Found 2 matching lines across 2 files."


async def test_head_limit(ctx: ToolUseContext, tree: Path) -> None:
    text = await run(GREP, ctx, pattern=".", path=str(tree / "src" / "app.py"), output_mode="content", head_limit=2)
    assert text.splitlines() == ["1:import os", "3:def main():", "(Showing the first 2 of 4 lines.)"]


async def test_multiline(ctx: ToolUseContext, tree: Path) -> None:
    text = await run(GREP, ctx, pattern=r"main\(\):.*Hello", output_mode="files_with_matches")
    assert text == "No matches found"
    text = await run(GREP, ctx, pattern=r"main\(\):.*Hello", multiline=True)
    assert text.splitlines() == ["Found 1 file", str(tree / "src" / "app.py")]


async def test_pattern_starting_with_dash(ctx: ToolUseContext, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a --flag here\n")
    text = await run(GREP, ctx, pattern="--flag", output_mode="content")
    assert text == f"{tmp_path / 'f.txt'}:1:a --flag here"


async def test_no_match(ctx: ToolUseContext, tree: Path) -> None:
    assert await run(GREP, ctx, pattern="zebra") == "No matches found"


async def test_bad_regex_is_an_error(ctx: ToolUseContext, tree: Path) -> None:
    with pytest.raises(ToolError, match="regex parse error"):
        await run(GREP, ctx, pattern="(unclosed")


async def test_bad_paths(ctx: ToolUseContext, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="absolute"):
        await run(GREP, ctx, pattern="x", path="src")
    with pytest.raises(ToolError, match="does not exist"):
        await run(GREP, ctx, pattern="x", path=str(tmp_path / "missing"))
