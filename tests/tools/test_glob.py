"""Glob."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from handrail.tools.builtin import GLOB
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError

from .support import run


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
    assert lines[-1].startswith("(Results are truncated.")


async def test_no_match(ctx: ToolUseContext, tmp_path: Path) -> None:
    _touch(tmp_path / "a.py", 1_000_000)
    assert await run(GLOB, ctx, pattern="*.rs") == "No files found"


async def test_bad_paths(ctx: ToolUseContext, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="absolute"):
        await run(GLOB, ctx, pattern="*.py", path="src")
    with pytest.raises(ToolError, match="does not exist"):
        await run(GLOB, ctx, pattern="*.py", path=str(tmp_path / "missing"))
    _touch(tmp_path / "file.py", 1_000_000)
    with pytest.raises(ToolError, match="not a directory"):
        await run(GLOB, ctx, pattern="*.py", path=str(tmp_path / "file.py"))
