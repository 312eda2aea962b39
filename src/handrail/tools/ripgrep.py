"""Finding and running ripgrep, shared by Glob and Grep."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handrail.tools.errors import ToolError

VCS_DIRS = (".git", ".svn", ".hg", ".bzr", ".jj")
"""Version-control directories searches skip even though they include hidden files."""


def find_rg() -> str | None:
    """The ripgrep executable: the one installed next to this Python first, then the one on PATH."""
    beside = Path(sys.executable).parent / "rg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")


@dataclass(frozen=True)
class RgResult:
    """What one ripgrep run printed, and its exit status (0 found, 1 nothing found, 2 error)."""

    returncode: int
    stdout: str
    stderr: str


async def run_rg(args: list[str], *, cwd: Path, abort: asyncio.Event | None = None) -> RgResult:
    """Run ripgrep with `args` (always without user config), killing it on cancellation or abort.

    Raises ToolError when ripgrep is missing or the run was aborted.
    """
    rg = find_rg()
    if rg is None:
        raise ToolError("ripgrep (rg) is not installed, so searching files is not available.")
    if abort is not None and abort.is_set():
        raise ToolError("The search was interrupted.")
    proc = await asyncio.create_subprocess_exec(
        rg,
        "--no-config",
        # honour .gitignore also in workspaces that are not git repositories
        "--no-require-git",
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        communicate = asyncio.ensure_future(proc.communicate())
        waiters: set[asyncio.Future[Any]] = {communicate}
        if abort is not None:
            waiters.add(asyncio.ensure_future(abort.wait()))
        try:
            done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
        if communicate not in done:
            raise ToolError("The search was interrupted.")
        stdout, stderr = communicate.result()
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
    return RgResult(
        proc.returncode if proc.returncode is not None else 2,
        stdout.decode("utf-8", "replace"),
        stderr.decode("utf-8", "replace"),
    )


async def newest_first(paths: list[Path]) -> list[Path]:
    """`paths` sorted by modification time, newest first (ties by name; vanished files last)."""

    def work() -> list[Path]:
        def key(path: Path) -> tuple[int, str]:
            try:
                return (-path.stat().st_mtime_ns, str(path))
            except OSError:
                return (1, str(path))

        return sorted(paths, key=key)

    return await asyncio.to_thread(work)
