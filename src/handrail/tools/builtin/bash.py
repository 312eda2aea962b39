"""Bash: run a shell command in the workspace, with a timeout, killing its whole process group."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

from handrail.permissions.decision import PermissionCheck
from handrail.tools.builtin._common import ToolInput, validator
from handrail.tools.builtin.bash_permissions import check_for, verdict_for
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import ToolResult, build_tool

MAX_OUTPUT_CHARS = 30_000
PROGRESS_EVERY_LINES = 10
KILL_GRACE_SECONDS = 2.0
READ_CHUNK = 65_536


class BashInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    command: str = Field(description="The command to execute")
    timeout: int | None = Field(
        default=None,
        ge=1,
        description="Optional timeout in milliseconds (max 600000). Defaults to 120000 (2 minutes).",
    )
    description: str | None = Field(
        default=None,
        description="Clear, concise description of what this command does in 5-10 words, in active voice. "
        'Examples: "Lists files in current directory", "Installs package dependencies", '
        '"Shows working tree status".',
    )
    run_in_background: bool | None = Field(
        default=None,
        description="Set to true to run this command in the background. Not available yet: leave it unset.",
    )


PROMPT = f"""Executes a given bash command with an optional timeout, in the workspace's working directory.

Usage notes:
- The command argument is required. It runs with `bash -c`; stdin is empty, so interactive commands will not work.
- You can specify an optional timeout in milliseconds (up to 600000ms / 10 minutes). If not specified, commands will time out after 120000ms (2 minutes). When a command times out, it and every process it started are killed.
- Write a clear, concise description of what the command does in 5-10 words.
- If the output exceeds {MAX_OUTPUT_CHARS} characters, its middle is cut out and you see the beginning and the end.
- The result shows stdout, then stderr, then the exit code when it is not 0.
- Each call asks the user for permission, so prefer the dedicated tools: Glob to find files (not find or ls), Grep to search contents (not grep or rg), Read to read files (not cat, head or tail), Edit and Write to change files (not sed, awk or echo >).
- When issuing multiple commands, use ';' or '&&' to separate them. DO NOT use newlines (newlines are ok in quoted strings).
- Each command runs in a fresh shell: use absolute paths rather than cd where you can.
- Running commands in the background (run_in_background) is not available yet: processes a command leaves running are killed when it ends."""  # noqa: E501


class _HeadTail:
    """A stream's text kept within bounded memory: its first `head` and last `tail` characters."""

    def __init__(self, head: int, tail: int) -> None:
        self._head_limit = head
        self._tail_limit = tail
        self._head: list[str] = []
        self._head_size = 0
        self._tail = ""
        self.total = 0

    def add(self, text: str) -> None:
        self.total += len(text)
        if self._head_size < self._head_limit:
            part = text[: self._head_limit - self._head_size]
            self._head.append(part)
            self._head_size += len(part)
        self._tail = (self._tail + text)[-self._tail_limit :]

    def prefix(self, n: int) -> str:
        """The first `n` characters; `n` must not exceed the head limit."""
        return "".join(self._head)[:n]

    def suffix(self, n: int) -> str:
        """The last `n` characters; `n` must not exceed the tail limit."""
        return self._tail[-n:] if n > 0 else ""

    def full(self) -> str:
        """The whole text; only valid when it fits in head plus tail."""
        head = "".join(self._head)
        return head + self.suffix(self.total - len(head))


def _combine(out: _HeadTail, err: _HeadTail, limit: int) -> str:
    """stdout, then stderr on its own line, cut in the middle to `limit` characters.

    Works on the virtual text stdout + line break + stderr, of which each stream kept
    enough of its head and tail to give the first and last `limit // 2` characters.
    """
    sep = "\n" if out.total and err.total and out.suffix(1) != "\n" else ""
    total = out.total + len(sep) + err.total
    if total <= limit:
        return out.full() + sep + err.full()
    half = limit // 2

    head = out.prefix(min(half, out.total))
    head += sep[: half - len(head)]
    head += err.prefix(max(half - len(head), 0))

    tail = err.suffix(min(half, err.total))
    if len(tail) < half:
        tail = sep[: half - len(tail)] + tail
    tail = out.suffix(max(half - len(tail), 0)) + tail
    return f"{head}\n\n... [{total - 2 * half} characters omitted] ...\n\n{tail}"


class _ShellProtocol(asyncio.subprocess.SubprocessStreamProtocol):
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


def _kill_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _terminate(pgid: int, exited: asyncio.Event) -> None:
    """SIGTERM the process group, then SIGKILL what is left of it after a grace period."""
    _kill_group(pgid, signal.SIGTERM)
    try:
        await asyncio.wait_for(exited.wait(), KILL_GRACE_SECONDS)
    except TimeoutError:
        pass
    finally:
        # Runs on cancellation too: children that outlived the shell or ignored SIGTERM are still in the group.
        _kill_group(pgid, signal.SIGKILL)


async def _pump(stream: asyncio.StreamReader, sink: _HeadTail, on_line: Callable[[str], None]) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    while chunk := await stream.read(READ_CHUNK):
        text = decoder.decode(chunk)
        sink.add(text)
        *lines, pending = (pending + text).split("\n")
        for line in lines:
            on_line(line)
        pending = pending[-1000:]
    rest = decoder.decode(b"", final=True)
    sink.add(rest)
    if (pending + rest).strip():
        on_line(pending + rest)


def _consume(future: asyncio.Future[Any]) -> None:
    """Mark a background future's outcome as seen (it is cancelled when output readers are given up)."""
    if not future.cancelled():
        future.exception()


def _clamp_timeout(value: BashInput, ctx: ToolUseContext) -> int:
    timeout = value.timeout if value.timeout is not None else ctx.options.bash_timeout_ms
    return min(timeout, ctx.options.bash_max_timeout_ms)


async def _check(value: BashInput, _: ToolUseContext) -> None:
    if not value.command.strip():
        raise ToolError("command must not be empty.")
    if value.run_in_background:
        raise ToolError(
            "Running commands in the background is not available yet. Run the command in the foreground "
            "(with a timeout if it may take long)."
        )


async def _call(value: BashInput, ctx: ToolUseContext) -> ToolResult:
    await _check(value, ctx)
    timeout_ms = _clamp_timeout(value, ctx)
    loop = asyncio.get_running_loop()
    try:
        transport, protocol = await loop.subprocess_exec(
            lambda: _ShellProtocol(loop),
            "bash",
            "-c",
            value.command,
            cwd=Path(ctx.options.cwd),
            env={**os.environ, "GIT_EDITOR": "true", "PAGER": "cat", "GIT_PAGER": "cat"},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise ToolError(f"Could not start bash in {ctx.options.cwd}: {exc}") from exc
    pgid = transport.get_pid()
    half = MAX_OUTPUT_CHARS // 2
    out, err = _HeadTail(half, half), _HeadTail(half, half)
    lines_seen = 0

    def on_line(line: str) -> None:
        nonlocal lines_seen
        lines_seen += 1
        if lines_seen % PROGRESS_EVERY_LINES == 1 and line.strip():
            ctx.report(line[:200])

    assert protocol.stdout is not None and protocol.stderr is not None
    pumps = asyncio.gather(_pump(protocol.stdout, out, on_line), _pump(protocol.stderr, err, on_line))
    pumps.add_done_callback(_consume)
    exited = asyncio.ensure_future(protocol.exited.wait())
    aborted = asyncio.ensure_future(ctx.abort.wait())
    outcome = "done"
    try:
        done, _ = await asyncio.wait({exited, aborted}, timeout=timeout_ms / 1000, return_when=asyncio.FIRST_COMPLETED)
        if exited not in done:
            outcome = "aborted" if aborted in done else "timeout"
            await _terminate(pgid, protocol.exited)
        else:
            # The command is over: whatever it left running in its group goes too.
            _kill_group(pgid, signal.SIGKILL)
        # The pipes close once every process holding them is gone; don't wait on escapees forever.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(pumps), KILL_GRACE_SECONDS)
    finally:
        exited.cancel()
        aborted.cancel()
        if not protocol.exited.is_set():
            await _terminate(pgid, protocol.exited)
        pumps.cancel()
        transport.close()

    text = _combine(out, err, MAX_OUTPUT_CHARS).rstrip("\n")
    if outcome == "timeout":
        raise ToolError(_with(text, f"Command timed out: killed after {timeout_ms} ms."))
    if outcome == "aborted":
        raise ToolError(_with(text, "Command was interrupted by the user and killed."))
    code = transport.get_returncode()
    if code:
        text = _with(text, f"Exit code {code}")
    return ToolResult(text or "(no output)")


def _with(text: str, line: str) -> str:
    return f"{text}\n{line}" if text else line


async def _check_permissions(value: BashInput, ctx: ToolUseContext) -> PermissionCheck:
    return check_for(await asyncio.to_thread(verdict_for, value.command, ctx.permission_context))


def _summary(value: BashInput) -> str:
    if value.description:
        return value.description
    first = value.command.strip().splitlines()[0] if value.command.strip() else ""
    return f"$ {first}"


BASH = build_tool(
    name="Bash",
    input_model=BashInput,
    description="Run a shell command",
    prompt=PROMPT,
    search_hint="run shell command terminal execute",
    call=_call,
    validate_input=validator(_check),
    check_permissions=_check_permissions,
    is_read_only=lambda _: False,
    is_concurrency_safe=lambda _: False,
    interrupt_behavior="cancel",  # stopping the turn kills a running command
    rule_content=lambda value: value.command,
    summary=_summary,
)
