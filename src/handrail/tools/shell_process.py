"""Starting `bash -c` in its own process group, reading its output, and killing the whole group."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

KILL_GRACE_SECONDS = 2.0
READ_CHUNK = 65_536
# Commands run unattended: an editor or a pager would wait for a human who is not there.
SHELL_ENV_OVERRIDES = {"GIT_EDITOR": "true", "PAGER": "cat", "GIT_PAGER": "cat"}
# Defence in depth under the permission check (which inspects repositories itself): git never takes a
# folder it stumbles on for a bare repository, and runs no fsmonitor program, whatever a repository says.
GIT_CONFIG_OVERRIDES = (("safe.bareRepository", "explicit"), ("core.fsmonitor", "false"))


def shell_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment commands run with: `base` (the server's), the overrides above, and the git settings
    appended to any `GIT_CONFIG_COUNT` list already there."""
    env = {**(dict(os.environ) if base is None else base), **SHELL_ENV_OVERRIDES}
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        count = 0
    for key, value in GIT_CONFIG_OVERRIDES:
        env[f"GIT_CONFIG_KEY_{count}"] = key
        env[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    env["GIT_CONFIG_COUNT"] = str(count)
    return env


class ShellProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """The standard stream protocol, plus an event set the moment the shell exits.

    `Process.wait()` only returns once the output pipes are closed too, which a
    background child can hold open indefinitely; this event does not wait for them.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=READ_CHUNK, loop=loop)
        self.exited = asyncio.Event()

    def process_exited(self) -> None:
        super().process_exited()
        self.exited.set()


async def spawn(
    script: str, cwd: Path, *, merge_stderr: bool = False
) -> tuple[asyncio.SubprocessTransport, ShellProtocol]:
    """Start `bash -c script` in `cwd` as the leader of a new process group (its pid is the group id)."""
    loop = asyncio.get_running_loop()
    return await loop.subprocess_exec(
        lambda: ShellProtocol(loop),
        "bash",
        "-c",
        script,
        cwd=cwd,
        env=shell_environment(),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT if merge_stderr else asyncio.subprocess.PIPE,
        start_new_session=True,
    )


def kill_group(pgid: int, sig: signal.Signals) -> None:
    """Send `sig` to every process in the group; a group already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def terminate(pgid: int, exited: asyncio.Event) -> None:
    """SIGTERM the process group, then SIGKILL what is left of it after a grace period."""
    kill_group(pgid, signal.SIGTERM)
    try:
        await asyncio.wait_for(exited.wait(), KILL_GRACE_SECONDS)
    except TimeoutError:
        pass
    finally:
        # Runs on cancellation too: children that outlived the shell or ignored SIGTERM are still in the group.
        kill_group(pgid, signal.SIGKILL)


async def pump(stream: asyncio.StreamReader, sink: Callable[[str], None], on_line: Callable[[str], None]) -> None:
    """Decode `stream` as UTF-8 into `sink`, calling `on_line` for each complete (non-blank final) line."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    while chunk := await stream.read(READ_CHUNK):
        text = decoder.decode(chunk)
        sink(text)
        *lines, pending = (pending + text).split("\n")
        for line in lines:
            on_line(line)
        pending = pending[-1000:]
    rest = decoder.decode(b"", final=True)
    sink(rest)
    if (pending + rest).strip():
        on_line(pending + rest)


def consume(future: asyncio.Future[Any]) -> None:
    """Mark a background future's outcome as seen (it is cancelled when output readers are given up)."""
    if not future.cancelled():
        future.exception()
