"""Grep."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from handrail.tools.builtin import GREP
from handrail.tools.builtin.grep import exclusion_glob, rg_args, search_buffers
from handrail.tools.builtin.grep_results import MAX_OUTPUT_CHARS, ContentReader, LineWindow, PathReader
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.ripgrep import MAX_RECORD_BYTES, _NewestPaths, run_rg_paths, stream_rg
from tests.tools.support import BufferFileSystem, run


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
        "(Showing lines 1-2; more matched. To see more, call Grep again with offset=2.)",
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
        "(Showing lines 2-3; more matched. To see more, call Grep again with offset=3.)",
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
    found = PathReader()
    await search_buffers(value, tmp_path, buffers, found.below, extra=("--null",), separator=b"\0")
    assert sorted(found.paths) == [str(tmp_path / "src" / "a.py"), str(tmp_path / "src" / "we[ird] {name}.py")]
    content = GREP.input_model(pattern="needle", glob="*.md", output_mode="content")
    window = LineWindow()
    await search_buffers(
        content, tmp_path, buffers, lambda strip: ContentReader(window, fields=2, paths=True, visible=None, strip=strip)
    )
    assert window.lines == [f"{tmp_path / 'src' / 'b.md'}:1:needle in markdown"]
    assert await search_buffers(value, tmp_path / "elsewhere", buffers, found.below) is None


async def test_disk_results_leave_out_open_buffers(ctx: ToolUseContext, tmp_path: Path) -> None:
    weird = tmp_path / "we[ird] {name}.py"
    weird.write_text("needle on disk\n")
    (tmp_path / "other.py").write_text("needle on disk\n")
    value = GREP.input_model(pattern="needle")
    target = tmp_path
    result = await run_rg_paths(rg_args(value, target, exclude=[exclusion_glob(weird, target)]), cwd=target, limit=9)
    assert result.paths == [str(tmp_path / "other.py")]


def test_exclusion_glob_escapes() -> None:
    assert exclusion_glob(Path("/w/src/a.py"), Path("/w")) == "!/src/a.py"
    assert exclusion_glob(Path("/w/x[1]*?{a}.py"), Path("/w")) == "!/x[[]1[]][*][?][{]a[}].py"


# ---------------------------------------------------------------- bounded: ripgrep's output is streamed


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """A 6 MB file where every line matches."""
    path = tmp_path / "big.log"
    path.write_text("".join(f"line {n:07} matches needle\n" for n in range(200_000)))
    return path


class CountingReader:
    """A consumer that counts what it was given and wants `wanted` records."""

    def __init__(self, wanted: int) -> None:
        self.wanted = wanted
        self.records = 0
        self.largest = 0

    def __call__(self, records: list[bytes]) -> bool:
        self.records += len(records)
        self.largest = max([self.largest, *(len(r) for r in records)])
        return self.records < self.wanted


async def test_ripgrep_is_stopped_when_the_reader_has_enough(big: Path) -> None:
    reader = CountingReader(wanted=10)
    run = await stream_rg(["-n", "needle", str(big)], cwd=big.parent, consume=reader)
    assert run.stopped and run.returncode == 0
    assert reader.records < 200_000 // 10  # a chunk or two of the output, not all of it
    everything = CountingReader(wanted=10**9)
    run = await stream_rg(["-n", "needle", str(big)], cwd=big.parent, consume=everything)
    assert not run.stopped and run.returncode == 0 and everything.records == 200_000


async def test_an_over_long_line_is_cut(tmp_path: Path) -> None:
    (tmp_path / "one.txt").write_text("needle" + "x" * (3 * MAX_RECORD_BYTES) + "\nneedle again\n")
    reader = CountingReader(wanted=10**9)
    await stream_rg(["needle", "one.txt"], cwd=tmp_path, consume=reader)
    assert reader.records == 2 and reader.largest == MAX_RECORD_BYTES


async def test_head_limit_stops_the_search(ctx: ToolUseContext, big: Path) -> None:
    text = await run(GREP, ctx, pattern="needle", output_mode="content", head_limit=3)
    assert text.splitlines() == [
        f"{big}:1:line 0000000 matches needle",
        f"{big}:2:line 0000001 matches needle",
        f"{big}:3:line 0000002 matches needle",
        "(Showing lines 1-3; more matched. To see more, call Grep again with offset=3.)",
    ]


async def test_a_window_keeps_what_can_be_shown_and_no_more() -> None:
    window = LineWindow(offset=5, budget=1_000)
    taken = 0
    while window.add(f"line {taken:05}"):
        taken += 1
    assert window.more and len(window.lines) == 1_001 // len("line 00000\n")
    assert len("\n".join(window.lines)) <= 1_000
    assert window.lines[0] == "line 00005"
    counting = LineWindow(limit=2, stops=False)
    assert all(counting.add(str(n)) for n in range(50))
    assert counting.lines == ["0", "1"] and counting.seen == 50


async def test_content_without_a_limit_ends_at_the_budget(ctx: ToolUseContext, big: Path) -> None:
    text = await run(GREP, ctx, pattern="needle", output_mode="content")
    assert len(text) <= MAX_OUTPUT_CHARS  # within the tool's limit: the model gets it all, not a preview
    last = text.splitlines()[-1]
    assert last.startswith("(Output truncated: lines 1-") and "more matched" in last and "offset=" in last


async def test_counts_keep_a_window_and_total_everything(ctx: ToolUseContext, tmp_path: Path) -> None:
    for n in range(30):
        (tmp_path / f"f{n:02}.txt").write_text("needle\n" * (n + 1))
    text = await run(GREP, ctx, pattern="needle", output_mode="count", head_limit=2)
    lines = text.splitlines()
    assert len([line for line in lines if line.endswith(tuple("0123456789"))]) == 2
    assert "Found 465 matching lines across 30 files." in text


def test_the_newest_paths_are_kept_and_no_more(tmp_path: Path) -> None:
    newest = _NewestPaths(3, b"", None)
    files = []
    for n in range(40):
        path = tmp_path / f"f{n:02}"
        path.write_text("")
        os.utime(path, (1_000_000 + n, 1_000_000 + n))
        files.append(os.fsencode(path))
    for start in range(0, 40, 4):
        newest.add(files[start : start + 4])
        assert len(newest._newest) <= 3
    assert newest.finish() == [files[39], files[38], files[37]]
    assert newest.total == 40


async def test_files_mode_lists_within_the_budget(ctx: ToolUseContext, tmp_path: Path) -> None:
    folder = tmp_path / ("deep" * 20)
    folder.mkdir()
    for n in range(1_200):
        (folder / f"match_{n:04}.txt").write_text("needle\n")
    text = await run(GREP, ctx, pattern="needle")
    lines = text.splitlines()
    assert lines[0] == "Found 1200 files" and len(text) <= MAX_OUTPUT_CHARS
    assert lines[-1].startswith("(Showing files 1-") and "of 1200. To see more" in lines[-1]
