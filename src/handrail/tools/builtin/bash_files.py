"""What a shell command means for the files the model knows: unsaved buffers before, changed files after."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from handrail.tools.builtin._common import display_path
from handrail.tools.context import ToolUseContext

MAX_LISTED = 10
FileStamp = tuple[int, int, int] | None


def _listed(paths: list[Path], cwd: Path) -> str:
    """The first MAX_LISTED paths as shown to the model, and how many more there are."""
    names = ", ".join(display_path(path, cwd) for path in paths[:MAX_LISTED])
    return names + (f" and {len(paths) - MAX_LISTED} more" if len(paths) > MAX_LISTED else "")


async def unsaved_buffers(ctx: ToolUseContext) -> dict[Path, FileStamp]:
    """The files open in the editor with unsaved changes, each with the stamp of its disk version now."""
    return await asyncio.to_thread(_stamps, tuple(sorted(await ctx.fs.dirty_buffers())))


def unsaved_note(unsaved: dict[Path, FileStamp], cwd: Path) -> str:
    """A note naming open buffers with unsaved changes: the command sees their disk version, not what Read shows."""
    if not unsaved:
        return ""
    return (
        f"Note: unsaved changes in the editor for {_listed(list(unsaved), cwd)}. The command saw the version on "
        "disk, which differs from what Read shows."
    )


async def tell_of_changed_buffers(ctx: ToolUseContext, unsaved: dict[Path, FileStamp], command: str, cwd: Path) -> str:
    """Tell the user of every file the command changed on disk while its buffer held unsaved changes (their
    buffer and the disk now differ, and saving would drop the command's change); a note for the model."""
    after = await asyncio.to_thread(_stamps, tuple(unsaved))
    changed = [path for path, stamp in unsaved.items() if after.get(path) != stamp]
    if not changed:
        return ""
    await ctx.fs.disk_changed_under_buffers(changed, f"The Bash command `{_shown(command)}`")
    return (
        f"The command changed {_listed(changed, cwd)} on disk, which the user has open with unsaved changes; the "
        "user was told that the file on disk now differs from their buffer. Their unsaved text was not touched."
    )


def _shown(command: str, most: int = 80) -> str:
    """A command on one line, cut to `most` characters, for a message that names it."""
    line = " ".join(command.split())
    return line if len(line) <= most else line[: most - 1] + "…"


def _stamp(path: Path) -> FileStamp:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


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
