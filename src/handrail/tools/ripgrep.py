"""Finding and running ripgrep, shared by Glob and Grep.

ripgrep's output is read as it comes and handed on a chunk of records at a time, so nothing ever
holds all of it; a reader that has what it needs says so, and ripgrep is stopped at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handrail.tools.errors import ToolError

VCS_DIRS = (".git", ".svn", ".hg", ".bzr", ".jj")
"""Version-control directories searches skip even though they include hidden files."""

CHUNK_BYTES = 1 << 16
MAX_RECORD_BYTES = 1 << 16
"""A longer output record is cut here (lines are short anyway: Grep passes `--max-columns`)."""
MAX_STDERR_BYTES = 8 << 10
"""How much of ripgrep's warnings is kept (a tree of unreadable files can print megabytes)."""


def find_rg() -> str | None:
    """The ripgrep executable: the one installed next to this Python first, then the one on PATH."""
    beside = Path(sys.executable).parent / "rg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")


_BASE_ARGS = (
    "--no-config",
    # honour .gitignore also in workspaces that are not git repositories
    "--no-require-git",
)

Consumer = Callable[[list[bytes]], bool]
"""Takes ripgrep's next complete records (in a worker thread); returns False when it needs no more."""


@dataclass(frozen=True)
class RgRun:
    """How one ripgrep run ended.

    `returncode` is ripgrep's (0 found, 1 nothing found, 2 error), 0 when the reader stopped it
    (`stopped`) because it had all it needed; `stderr` is the start of ripgrep's warnings.
    """

    returncode: int
    stderr: str
    stopped: bool = False

    def warnings(self, count: int = 3) -> str:
        """The first `count` lines of the warnings, joined for a note."""
        return "; ".join(self.stderr.strip().splitlines()[:count])


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


async def stream_rg(
    args: list[str],
    *,
    cwd: Path,
    consume: Consumer,
    abort: asyncio.Event | None = None,
    separator: bytes = b"\n",
) -> RgRun:
    """Run ripgrep with `args` (always without user config), handing its output to `consume`.

    The output is split at `separator` and passed on one chunk of complete records at a time;
    when `consume` returns False ripgrep is killed. It is killed too on cancellation or `abort`.
    Raises ToolError when ripgrep is missing or the run was aborted.
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
        worker = asyncio.ensure_future(asyncio.to_thread(_pump, proc, consume, separator))
        try:
            await _until_done_or_abort(worker, abort)
            stopped = worker.result()
        finally:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
            with contextlib.suppress(Exception):
                await worker  # ends at the end of the output, right after a kill
            proc.wait()
        errors.seek(0)
        stderr = errors.read(MAX_STDERR_BYTES).decode("utf-8", "replace")
    return RgRun(0 if stopped else proc.returncode, stderr, stopped)


def _pump(proc: subprocess.Popen[bytes], consume: Consumer, separator: bytes) -> bool:
    """Read ripgrep's output and hand it on in records; True when `consume` asked to stop."""
    assert proc.stdout is not None
    pending = b""
    overlong = False  # the pending record was cut; the rest of it is dropped up to its separator
    try:
        fd = proc.stdout.fileno()
        while chunk := os.read(fd, CHUNK_BYTES):
            records = chunk.split(separator)
            records[0] = pending if overlong else pending + records[0]
            pending = records.pop()
            if records:
                overlong = False
            if len(pending) > MAX_RECORD_BYTES:
                pending, overlong = pending[:MAX_RECORD_BYTES], True
            if records and not consume(records):
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                return True
        return bool(pending) and not consume([pending])
    finally:
        proc.stdout.close()


@dataclass(frozen=True)
class RgPaths:
    """The paths one ripgrep run listed: the newest (at most the limit), how many there were, and how it ended."""

    run: RgRun
    paths: list[str]
    total: int


async def run_rg_paths(
    args: list[str],
    *,
    cwd: Path,
    limit: int,
    abort: asyncio.Event | None = None,
    prefix: str = "",
    visible: Callable[[str], bool] | None = None,
    newest_first: bool = False,
) -> RgPaths:
    """Run ripgrep for a list of paths (`--files`, `--files-with-matches`) and keep the `limit` newest.

    `prefix` is put before each path ripgrep prints (relative paths are printed relative to `cwd`).
    `visible`, given such a full path, says whether it may be reported: the others are neither
    returned nor counted. Paths are stat'ed as ripgrep prints them, so sorting by modification
    time overlaps a parallel search instead of following it, and only the newest `limit` are ever
    kept; with `newest_first`, ripgrep prints them sorted already (`--sortr modified`, a listing
    on one thread) and the first `limit` are kept. Raises ToolError like `stream_rg`.
    """
    collect = (
        _FirstPaths(limit, os.fsencode(prefix), visible)
        if newest_first
        else _NewestPaths(limit, os.fsencode(prefix), visible)
    )
    run = await stream_rg(["--null", *args], cwd=cwd, consume=collect.add, abort=abort, separator=b"\0")
    kept = await asyncio.to_thread(collect.finish)
    return RgPaths(run, [path.decode("utf-8", "replace") for path in kept], collect.total)


# Stats release the GIL, so two threads overlap one's system call with the other's Python; with
# ripgrep listing on a third, mtime sorting keeps up with the listing on two cores.
_STATTERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="handrail-stat")
_MAX_WAITING = 4  # chunks being stat'ed at once; more would only hold their paths longer

Keyed = list[tuple[int, bytes]]


def _newest(paths: list[bytes], limit: int) -> Keyed:
    """The `limit` newest of `paths` as (minus mtime, path), newest first; vanished files sort last."""
    stat = os.stat
    try:  # one comprehension, no call per path: the common case, where every file is still there
        keyed = [(-stat(path).st_mtime_ns, path) for path in paths]
    except OSError:
        keyed = []
        for path in paths:
            try:
                keyed.append((-stat(path).st_mtime_ns, path))
            except OSError:
                keyed.append((1, path))
    keyed.sort()
    return keyed[:limit]


class _FirstPaths:
    """The first `limit` paths of a listing that ripgrep sorted, and how many it listed."""

    def __init__(self, limit: int, prefix: bytes, visible: Callable[[str], bool] | None) -> None:
        self._limit = limit
        self._prefix = prefix
        self._visible = visible
        self._kept: list[bytes] = []
        self.total = 0

    def _shown(self, records: list[bytes]) -> list[bytes]:
        """The records as full paths, without the ones that may not be shown."""
        prefix = self._prefix
        paths = [prefix + record for record in records if record]
        if self._visible is None:
            return paths
        visible = self._visible
        return [path for path in paths if visible(os.fsdecode(path))]

    def add(self, records: list[bytes]) -> bool:
        """Count a chunk of listed paths and keep the first ones."""
        paths = self._shown(records)
        self.total += len(paths)
        room = self._limit - len(self._kept)
        if room > 0:
            self._kept += paths[:room]
        return True

    def finish(self) -> list[bytes]:
        """The paths kept, in ripgrep's order."""
        return self._kept


class _NewestPaths(_FirstPaths):
    """The newest paths of a listing in ripgrep's own order, kept as it is read: at most `limit` at any time."""

    def __init__(self, limit: int, prefix: bytes, visible: Callable[[str], bool] | None) -> None:
        super().__init__(limit, prefix, visible)
        self._waiting: deque[Future[Keyed]] = deque()
        self._newest: Keyed = []

    def add(self, records: list[bytes]) -> bool:
        """Stat a chunk of listed paths (in the stat threads) and fold the finished chunks in."""
        paths = self._shown(records)
        if paths:
            self.total += len(paths)
            self._waiting.append(_STATTERS.submit(_newest, paths, self._limit))
        while self._waiting and (self._waiting[0].done() or len(self._waiting) > _MAX_WAITING):
            self._fold(self._waiting.popleft().result())
        return True

    def _fold(self, keyed: Keyed) -> None:
        merged = self._newest + keyed
        merged.sort()  # two sorted runs: merged in one pass
        self._newest = merged[: self._limit]

    def finish(self) -> list[bytes]:
        """The newest paths, newest first, once every chunk is stat'ed."""
        while self._waiting:
            self._fold(self._waiting.popleft().result())
        return [path for _, path in self._newest]
