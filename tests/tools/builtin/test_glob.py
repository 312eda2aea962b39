"""Glob."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from handrail.tools.builtin import GLOB
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from tests.tools.support import run


def _touch(path: Path, mtime: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    os.utime(path, (mtime, mtime))
    return path


async def test_newest_first_absolute_paths(ctx: ToolUseContext, tmp_path: Path) -> None:
    old = _touch(tmp_path / "old.py", 1_000_000)
    new = _touch(tmp_path / "src" / "new.py", 3_000_000)
    mid = _touch(tmp_path / "src" / "deep" / "mid.py", 2_000_000)
    _touch(tmp_path / "notes.txt", 4_000_000)
    text = await run(GLOB, ctx, pattern="**/*.py")
    assert text.splitlines() == [str(new), str(mid), str(old)]


async def test_path_and_anchored_patterns(ctx: ToolUseContext, tmp_path: Path) -> None:
    top = _touch(tmp_path / "src" / "a.py", 1_000_000)
    _touch(tmp_path / "src" / "sub" / "b.py", 1_000_000)
    _touch(tmp_path / "other" / "c.py", 1_000_000)
    assert await run(GLOB, ctx, pattern="src/*.py") == str(top)
    in_src = await run(GLOB, ctx, pattern="*.py", path=str(tmp_path / "src"))
    assert sorted(in_src.splitlines()) == [str(top), str(tmp_path / "src" / "sub" / "b.py")]
    assert await run(GLOB, ctx, pattern=f"{tmp_path}/src/*.py") == str(top)


async def test_gitignore_is_respected(ctx: ToolUseContext, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("build/\n")
    kept = _touch(tmp_path / "main.py", 1_000_000)
    _touch(tmp_path / "build" / "gen.py", 1_000_000)
    _touch(tmp_path / ".git" / "hook.py", 1_000_000)
    hidden = _touch(tmp_path / ".github" / "ci.py", 2_000_000)
    assert (await run(GLOB, ctx, pattern="**/*.py")).splitlines() == [str(hidden), str(kept)]


async def test_truncates_at_100(ctx: ToolUseContext, tmp_path: Path) -> None:
    for n in range(105):
        _touch(tmp_path / f"f{n:03}.txt", 1_000_000 + n)
    lines = (await run(GLOB, ctx, pattern="*.txt")).splitlines()
    assert len(lines) == 101
    assert lines[0] == str(tmp_path / "f104.txt")
    assert lines[-1].startswith("(Results are truncated: showing the 100 most recently modified of 105 files.")


async def test_no_match(ctx: ToolUseContext, tmp_path: Path) -> None:
    _touch(tmp_path / "a.py", 1_000_000)
    assert await run(GLOB, ctx, pattern="*.rs") == "No files found"


async def test_bad_paths(ctx: ToolUseContext, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="does not exist"):
        await run(GLOB, ctx, pattern="*.py", path=str(tmp_path / "missing"))
    with pytest.raises(ToolError, match="does not exist"):
        await run(GLOB, ctx, pattern="*.py", path="missing")
    _touch(tmp_path / "file.py", 1_000_000)
    with pytest.raises(ToolError, match="not a directory"):
        await run(GLOB, ctx, pattern="*.py", path=str(tmp_path / "file.py"))
    with pytest.raises(ToolError, match="must not be empty"):
        await run(GLOB, ctx, pattern=" ")


async def test_relative_path_is_taken_from_the_working_directory(ctx: ToolUseContext, tmp_path: Path) -> None:
    inside = _touch(tmp_path / "src" / "a.py", 1_000_000)
    _touch(tmp_path / "b.py", 1_000_000)
    assert await run(GLOB, ctx, pattern="*.py", path="src") == str(inside)
    assert await run(GLOB, ctx, pattern="*.py", path="./src/../src") == str(inside)


async def test_patterns_that_climb_out(ctx: ToolUseContext, tmp_path: Path) -> None:
    sibling = _touch(tmp_path / "lib" / "x.py", 1_000_000)
    _touch(tmp_path / "src" / "y.py", 1_000_000)
    assert await run(GLOB, ctx, pattern="../lib/*.py", path=str(tmp_path / "src")) == str(sibling)
    assert await run(GLOB, ctx, pattern="./lib/*.py") == str(sibling)


def test_paths() -> None:
    assert GLOB.paths(GLOB.input_model(pattern="*.py")) == ()
    assert GLOB.paths(GLOB.input_model(pattern="*.py", path="/w/src")) == (Path("/w/src"),)
    assert GLOB.paths(GLOB.input_model(pattern="*.py", path="src")) == (Path("src"),)
    assert GLOB.paths(GLOB.input_model(pattern="/w/src/**/*.py")) == (Path("/w/src"),)
    assert GLOB.paths(GLOB.input_model(pattern="../lib/**/*.py", path="/w/src")) == (Path("/w/lib"),)
    assert GLOB.paths(GLOB.input_model(pattern="../../*.py")) == (Path("../.."),)


async def test_symlinked_directory_reports_its_target(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    value = GLOB.input_model(pattern="*.py", path=str(tmp_path / "link"))
    assert GLOB.paths(value) == (tmp_path / "link", real.resolve())


def test_read_only_and_concurrency_safe() -> None:
    value = GLOB.input_model(pattern="*")
    assert GLOB.is_read_only(value) and GLOB.is_concurrency_safe(value)
