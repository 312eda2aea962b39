"""Finding and running ripgrep, shared by Glob and Grep."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
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


_BASE_ARGS = (
    "--no-config",
    # honour .gitignore also in workspaces that are not git repositories
    "--no-require-git",
)


def _rg_or_fail(abort: asyncio.Event | None) -> str:
    rg = find_rg()
    if rg is None:
        raise ToolError("ripgrep (rg) is not installed, so searching files is not available.")
    if abort is not None and abort.is_set():
        raise ToolError("The search was interrupted.")
    return rg


async def _until_done_or_abort(work: asyncio.Future[Any], abort: asyncio.Event | None) -> None:
    """Wait for `work`; raise ToolError if `abort` is set first."""
    waiters: set[asyncio.Future[Any]] = {work}
    if abort is not None:
        waiters.add(asyncio.ensure_future(abort.wait()))
    try:
        done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters - {work}:
            waiter.cancel()
    if work not in done:
        raise ToolError("The search was interrupted.")


async def run_rg(args: list[str], *, cwd: Path, abort: asyncio.Event | None = None) -> RgResult:
    """Run ripgrep with `args` (always without user config), killing it on cancellation or abort.

    Raises ToolError when ripgrep is missing or the run was aborted.
    """
    rg = _rg_or_fail(abort)
    proc = await asyncio.create_subprocess_exec(
        rg,
        *_BASE_ARGS,
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    communicate = asyncio.ensure_future(proc.communicate())
    try:
        await _until_done_or_abort(communicate, abort)
        stdout, stderr = communicate.result()
    finally:
        communicate.cancel()
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
    return RgResult(
        proc.returncode if proc.returncode is not None else 2,
        stdout.decode("utf-8", "replace"),
        stderr.decode("utf-8", "replace"),
    )


@dataclass(frozen=True)
class RgPaths:
    """The paths one ripgrep run listed, newest first, how many there were, and how it ended."""

    returncode: int
    paths: list[str]
    total: int
    stderr: str


async def run_rg_paths(
    args: list[str],
    *,
    cwd: Path,
    abort: asyncio.Event | None = None,
    prefix: str = "",
    limit: int | None = None,
) -> RgPaths:
    """Run ripgrep for a list of paths (`--files`, `--files-with-matches`), newest first.

    Each path is stat'ed as ripgrep prints it, so sorting by modification time overlaps the
    search instead of following it; `prefix` is put before the paths returned. With `limit`, only the
    `limit` newest are returned (`total` still counts them all). Raises ToolError like `run_rg`.
    """
    rg = _rg_or_fail(abort)
    with tempfile.TemporaryFile() as errors:
        # Spawning blocks no longer than asyncio's own create_subprocess_exec, which also forks on this thread.
        proc = subprocess.Popen(  # noqa: ASYNC220
            [rg, *_BASE_ARGS, *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,  # a file, so a flood of warnings cannot block ripgrep while stdout is read
        )
        worker = asyncio.ensure_future(asyncio.to_thread(_stat_lines, proc, cwd))
        try:
            await _until_done_or_abort(worker, abort)
            keyed = worker.result()
        finally:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
            with contextlib.suppress(Exception):
                await worker  # ends at the end of the output, right after a kill
            proc.wait()
        errors.seek(0)
        stderr = errors.read().decode("utf-8", "replace")
    chosen = heapq.nsmallest(limit, keyed) if limit is not None else sorted(keyed)
    paths = [prefix + path.decode("utf-8", "replace") for _, path in chosen]
    return RgPaths(proc.returncode, paths, len(keyed), stderr)


# Stats release the GIL, so two threads overlap one's system call with the other's Python; with
# ripgrep listing on a third, mtime sorting keeps up with the listing on two cores.
_STATTERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="handrail-stat")


def _mtimes(lines: list[bytes], directory: int) -> list[tuple[int, bytes]]:
    """(minus mtime, path) for each path (relative ones from `directory`); vanished files sort last."""
    stat = os.stat
    try:  # one comprehension, no call per line: the common case, where every file is still there
        return [(-stat(line, dir_fd=directory).st_mtime_ns, line) for line in lines if line]
    except OSError:
        pass
    keyed: list[tuple[int, bytes]] = []
    for line in lines:
        if not line:
            continue
        try:
            keyed.append((-stat(line, dir_fd=directory).st_mtime_ns, line))
        except OSError:
            keyed.append((1, line))
    return keyed


def _stat_lines(proc: subprocess.Popen[bytes], cwd: Path) -> list[tuple[int, bytes]]:
    """(minus mtime, path) for each line ripgrep prints, stat'ed a chunk at a time as it comes.

    Relative paths are stat'ed from `cwd`, where ripgrep runs.
    """
    assert proc.stdout is not None
    pending = b""
    directory = os.open(cwd, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    chunks: list[Future[list[tuple[int, bytes]]]] = []
    try:
        fd = proc.stdout.fileno()
        while chunk := os.read(fd, 1 << 16):
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            chunks.append(_STATTERS.submit(_mtimes, lines, directory))
        chunks.append(_STATTERS.submit(_mtimes, [pending], directory))
        return [item for done in chunks for item in done.result()]
    finally:
        for waiting in chunks:  # the folder stays open until no stat can use it
            with contextlib.suppress(Exception):
                waiting.result()
        os.close(directory)
        proc.stdout.close()
        proc.wait()
