"""Grep."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from handrail.tools.builtin import GREP
from handrail.tools.builtin.grep import exclusion_glob, merge_results, rg_args, search_buffers
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.ripgrep import run_rg

from .support import BufferFileSystem, run


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
    assert text.splitlines() == [
        "1:import os",
        "3:def main():",
        "(Showing lines 1-2 of 4. To see more, call Grep again with offset=2.)",
    ]


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
    with pytest.raises(ToolError, match="does not exist"):
        await run(GREP, ctx, pattern="x", path=str(tmp_path / "missing"))
    with pytest.raises(ToolError, match="does not exist"):
        await run(GREP, ctx, pattern="x", path="missing")
    with pytest.raises(ToolError, match="unrecognized file type"):
        await run(GREP, ctx, pattern="x", type="nosuchtype")


async def test_offset_pages_through_results(ctx: ToolUseContext, tree: Path) -> None:
    app = str(tree / "src" / "app.py")
    text = await run(GREP, ctx, pattern=".", path=app, output_mode="content", offset=1, head_limit=2)
    assert text.splitlines() == [
        "3:def main():",
        "4:    print('Hello')",
        "(Showing lines 2-3 of 4. To see more, call Grep again with offset=3.)",
    ]
    last = await run(GREP, ctx, pattern=".", path=app, output_mode="content", offset=3)
    assert last.splitlines() == ["5:    return 0", "(Showing lines 4-4 of 4.)"]
    past = await run(GREP, ctx, pattern=".", path=app, output_mode="content", offset=9)
    assert past == "No results at offset 9: there are 4 lines."
    files = await run(GREP, ctx, pattern="(?i)hello", offset=1, head_limit=1)
    assert files.splitlines() == [
        "Found 3 files",
        str(tree / "src" / "util.py"),
        "(Showing files 2-2 of 3. To see more, call Grep again with offset=2.)",
    ]
    counts = await run(GREP, ctx, pattern="(?i)hello", output_mode="count", offset=2)
    assert counts.splitlines()[0].endswith(":1")
    assert "Found 3 matching lines across 3 files." in counts


async def test_relative_path_is_taken_from_the_working_directory(ctx: ToolUseContext, tree: Path) -> None:
    text = await run(GREP, ctx, pattern="(?i)hello", path="src")
    assert text.splitlines() == ["Found 2 files", str(tree / "src" / "util.py"), str(tree / "src" / "app.py")]
    assert GREP.paths(GREP.input_model(pattern="x", path="src")) == (Path("src"),)
    assert GREP.paths(GREP.input_model(pattern="x")) == ()
    assert GREP.paths(GREP.input_model(pattern="x", path="/w/../w/src")) == (Path("/w/src"),)


# ---------------------------------------------------------------- unsaved editor buffers


async def test_unsaved_buffers_are_searched_instead_of_the_disk(
    ectx: ToolUseContext, editor: BufferFileSystem, tree: Path
) -> None:
    app = tree / "src" / "app.py"
    util = tree / "src" / "util.py"
    editor.open(app, "import os\n\ndef main():\n    print('Hello, unsaved zebra')\n")
    editor.open(util, "def helper():\n    return 'bye'\n")
    editor.open(tree / "README.md")  # open but clean: searched on disk
    text = await run(GREP, ectx, pattern="zebra")
    assert text.splitlines()[:2] == ["Found 1 file", str(app)]
    assert "unsaved changes were searched in the editor's text" in text
    text = await run(GREP, ectx, pattern="(?i)hello")
    assert text.splitlines()[:3] == ["Found 2 files", str(app), str(tree / "README.md")]
    content = await run(GREP, ectx, pattern="zebra|bye", output_mode="content")
    assert sorted(content.splitlines()[:2]) == [
        f"{app}:4:    print('Hello, unsaved zebra')",
        f"{util}:2:    return 'bye'",
    ]
    counts = await run(GREP, ectx, pattern="e", output_mode="count", path=str(app))
    assert counts.splitlines()[0] == f"{app}:2"
    single = await run(GREP, ectx, pattern="zebra", output_mode="content", path=str(app))
    assert single.splitlines()[0] == "4:    print('Hello, unsaved zebra')"


async def test_search_buffers_applies_filters_and_ignore_files(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "src").mkdir()
    buffers = {
        tmp_path / "src" / "a.py": "needle in python\n",
        tmp_path / "src" / "b.md": "needle in markdown\n",
        tmp_path / "build" / "gen.py": "needle in ignored output\n",
        tmp_path / "src" / "we[ird] {name}.py": "needle again\n",
    }
    value = GREP.input_model(pattern="needle", type="py")
    found = await search_buffers(value, tmp_path, buffers)
    assert sorted(found) == [str(tmp_path / "src" / "a.py"), str(tmp_path / "src" / "we[ird] {name}.py")]
    content = GREP.input_model(pattern="needle", glob="*.md", output_mode="content")
    assert await search_buffers(content, tmp_path, buffers) == [f"{tmp_path / 'src' / 'b.md'}:1:needle in markdown"]
    assert await search_buffers(value, tmp_path / "elsewhere", buffers) == []


async def test_disk_results_leave_out_open_buffers(ctx: ToolUseContext, tmp_path: Path) -> None:
    weird = tmp_path / "we[ird] {name}.py"
    weird.write_text("needle on disk\n")
    (tmp_path / "other.py").write_text("needle on disk\n")
    value = GREP.input_model(pattern="needle")
    target = tmp_path
    result = await run_rg(rg_args(value, target, exclude=[exclusion_glob(weird, target)]), cwd=target)
    assert result.stdout.splitlines() == [str(tmp_path / "other.py")]


def test_merge_results() -> None:
    files = GREP.input_model(pattern="x")
    assert merge_results(files, ["/a"], ["/b"]) == ["/b", "/a"]
    content = GREP.input_model(pattern="x", output_mode="content", **{"-C": 1})
    assert merge_results(content, ["/a:1:x"], ["/b:2:x"]) == ["/a:1:x", "--", "/b:2:x"]
    assert merge_results(content, [], ["/b:2:x"]) == ["/b:2:x"]
    plain = GREP.input_model(pattern="x", output_mode="content")
    assert merge_results(plain, ["/a:1:x"], ["/b:2:x"]) == ["/a:1:x", "/b:2:x"]


def test_exclusion_glob_escapes() -> None:
    assert exclusion_glob(Path("/w/src/a.py"), Path("/w")) == "!/src/a.py"
    assert exclusion_glob(Path("/w/x[1]*?{a}.py"), Path("/w")) == "!/x[[]1[]][*][?][{]a[}].py"
