"""What a shell command means for the files the model knows: unsaved buffers before, changed files after."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from handrail.tools.builtin._common import display_path
from handrail.tools.context import ToolUseContext

MAX_LISTED = 10
FileStamp = tuple[int, int] | None


def _listed(paths: list[Path], cwd: Path) -> str:
    """The first MAX_LISTED paths as shown to the model, and how many more there are."""
    names = ", ".join(display_path(path, cwd) for path in paths[:MAX_LISTED])
    return names + (f" and {len(paths) - MAX_LISTED} more" if len(paths) > MAX_LISTED else "")


async def unsaved_note(ctx: ToolUseContext, cwd: Path) -> str:
    """A note naming open buffers with unsaved changes: the command sees their disk version, not what Read shows."""
    buffers = sorted(await ctx.fs.dirty_buffers())
    if not buffers:
        return ""
    return (
        f"Note: unsaved changes in the editor for {_listed(buffers, cwd)}. The command saw the version on disk, "
        "which differs from what Read shows."
    )


def _stamp(path: Path) -> FileStamp:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def _stamps(paths: tuple[Path, ...]) -> dict[Path, FileStamp]:
    return {path: _stamp(path) for path in paths}


async def known_stamps(ctx: ToolUseContext) -> dict[Path, FileStamp]:
    """Modification time and size of every file the model has read (cheap: one stat each)."""
    return await asyncio.to_thread(_stamps, ctx.file_state.paths())


async def mark_changed_files(ctx: ToolUseContext, before: dict[Path, FileStamp], cwd: Path) -> str:
    """Mark the files whose stamp moved as changed (reads of them are stale); a note naming them."""
    after = await asyncio.to_thread(_stamps, tuple(before))
    changed = sorted(path for path, stamp in before.items() if after.get(path) != stamp)
    for path in changed:
        ctx.file_state.mark_changed(path)
    if not changed:
        return ""
    return f"Files you read that changed on disk during this command: {_listed(changed, cwd)}. Read them again."
