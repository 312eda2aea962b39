"""Background shells: commands started with `run_in_background`, read with BashOutput, stopped with KillShell.

Each runs in its own process group with stdout and stderr merged. Unread output is kept
up to a cap (the oldest text goes first, and the reader is told how much was dropped).
When the shell exits, whatever it left running in its group is killed, as for foreground
commands; `close()` kills every shell still running, and an exit hook kills any group a
crashed event loop left behind, so no process outlives the server.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import re
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from handrail.tools.shell_process import KILL_GRACE_SECONDS, ShellProtocol, consume, kill_group, pump, spawn, terminate

MAX_UNREAD_CHARS = 200_000
ShellStatus = Literal["running", "completed", "failed", "killed"]

_LIVE_GROUPS: set[int] = set()


@atexit.register
def _kill_leftovers() -> None:
    for pgid in tuple(_LIVE_GROUPS):
        kill_group(pgid, signal.SIGKILL)


@dataclass(frozen=True)
class ShellOutput:
    """What a read of a background shell returns: its state and the output not read before."""

    shell_id: str
    command: str
    status: ShellStatus
    exit_code: int | None
    text: str
    dropped_chars: int = 0
    filtered_lines: int = 0


class BackgroundShell:
    """One command running (or finished) in the background."""

    def __init__(self, shell_id: str, command: str, transport: asyncio.SubprocessTransport, protocol: ShellProtocol):
        self.id = shell_id
        self.command = command
        self.pid = transport.get_pid()
        self.status: ShellStatus = "running"
        self.exit_code: int | None = None
        self._transport = transport
        self._protocol = protocol
        self._unread: list[str] = []
        self._unread_size = 0
        self._dropped = 0
        self._partial = ""  # a line still being written: a filter waits for its end
        self._changed = asyncio.Event()
        _LIVE_GROUPS.add(self.pid)
        assert protocol.stdout is not None
        self._pumping = asyncio.ensure_future(pump(protocol.stdout, self._add, lambda _: None))
        self._pumping.add_done_callback(consume)
        self.finished = asyncio.ensure_future(self._watch())

    def _add(self, text: str) -> None:
        if not text:
            return
        self._notify()
        self._unread.append(text)
        self._unread_size += len(text)
        while self._unread_size > MAX_UNREAD_CHARS and self._unread:
            excess = self._unread_size - MAX_UNREAD_CHARS
            first = self._unread[0]
            if len(first) <= excess:
                self._unread.pop(0)
                cut = len(first)
            else:
                self._unread[0] = first[excess:]
                cut = excess
            self._unread_size -= cut
            self._dropped += cut

    async def _watch(self) -> None:
        try:
            await self._protocol.exited.wait()
            # The command is over: whatever it left running in its group goes too.
            kill_group(self.pid, signal.SIGKILL)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._pumping), KILL_GRACE_SECONDS)
        finally:
            # also when cancelled (the event loop is closing): the shell's group goes with its owner
            kill_group(self.pid, signal.SIGKILL)
            _LIVE_GROUPS.discard(self.pid)
            self._pumping.cancel()
            code = self._transport.get_returncode()
            self._transport.close()
            if self.status == "running":
                self.exit_code = code
                self.status = "completed" if code == 0 else "failed"
            self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def changed(self) -> None:
        """Return when new output arrives or the shell ends."""
        await self._changed.wait()

    def read(self, pattern: re.Pattern[str] | None = None) -> ShellOutput:
        """The output since the last read (only the lines matching `pattern`; the others are discarded)."""
        text = self._partial + "".join(self._unread)
        self._unread, self._unread_size, self._partial = [], 0, ""
        dropped, self._dropped = self._dropped, 0
        filtered = 0
        if pattern is not None:
            lines = text.split("\n")
            if self.status == "running" and not text.endswith("\n"):
                self._partial = lines.pop()  # judged once it is complete
            kept = [line for line in lines if line and pattern.search(line)]
            filtered = sum(1 for line in lines if line) - len(kept)
            text = "\n".join(kept)
        return ShellOutput(self.id, self.command, self.status, self.exit_code, text, dropped, filtered)

    async def kill(self) -> None:
        """Stop the command and every process in its group."""
        if self.status == "running":
            self.status = "killed"
            await terminate(self.pid, self._protocol.exited)
        await asyncio.shield(self.finished)


class BackgroundShells:
    """A session's background shells by id."""

    def __init__(self) -> None:
        self._shells: dict[str, BackgroundShell] = {}
        self._count = 0
        self.listeners: list[Callable[[], None]] = []  # told when a shell starts or ends

    async def start(self, command: str, cwd: Path) -> BackgroundShell:
        """Start `command` in `cwd`; raises OSError when bash cannot start."""
        transport, protocol = await spawn(command, cwd, merge_stderr=True)
        self._count += 1
        shell = BackgroundShell(f"shell_{self._count}", command, transport, protocol)
        self._shells[shell.id] = shell
        self._changed()
        shell.finished.add_done_callback(lambda _: self._changed())
        return shell

    def _changed(self) -> None:
        for listener in tuple(self.listeners):
            listener()

    def get(self, shell_id: str) -> BackgroundShell | None:
        """The shell with this id, if this session started it."""
        return self._shells.get(shell_id)

    def all(self) -> tuple[BackgroundShell, ...]:
        """Every shell, oldest first."""
        return tuple(self._shells.values())

    def ids(self) -> tuple[str, ...]:
        """Every shell's id, oldest first."""
        return tuple(self._shells)

    async def close(self) -> None:
        """Kill every shell still running (the session is ending)."""
        await asyncio.gather(*(shell.kill() for shell in self._shells.values()), return_exceptions=True)
