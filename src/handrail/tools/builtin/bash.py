"""Bash: run a shell command in the workspace, with a timeout, killing its whole process group."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path

from pydantic import Field

from handrail.permissions.decision import PermissionCheck
from handrail.tools.builtin._common import ToolInput, validator, with_notes
from handrail.tools.builtin.bash_files import (
    known_stamps,
    mark_changed_files,
    tell_of_changed_buffers,
    unsaved_buffers,
    unsaved_note,
)
from handrail.tools.builtin.bash_permissions import command_check, plain_verdict
from handrail.tools.builtin.bash_workdir import (
    capturing_script,
    cwd_capture,
    landed_dir,
    settle_cwd,
    starting_dir,
)
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.results import OutputSpool, combined_output, result_path
from handrail.tools.shell_process import KILL_GRACE_SECONDS, consume, kill_group, pump, spawn, terminate

MAX_OUTPUT_CHARS = 30_000
# A line of output goes to the client as progress when this long has passed since the last one: a slow
# command shows each line as it comes, a fast one a few lines a second.
PROGRESS_INTERVAL_S = 0.2


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
        description="Set to true to run this command in the background. Use BashOutput to read the output later.",
    )


PROMPT = f"""Executes a given bash command with an optional timeout, in the workspace's working directory.

Usage notes:
- The command argument is required. It runs with `bash -c`; stdin is empty, so interactive commands will not work.
- You can specify an optional timeout in milliseconds (up to 600000ms / 10 minutes). If not specified, commands will time out after 120000ms (2 minutes). When a command times out, it and every process it started are killed.
- Write a clear, concise description of what the command does in 5-10 words.
- If the output exceeds {MAX_OUTPUT_CHARS} characters, it is saved whole to a file: you see its beginning and end and the file's path (Read or Grep it for the rest).
- The result shows stdout, then stderr, then the exit code when it is not 0.
- Each call asks the user for permission, so prefer the dedicated tools: Glob to find files (not find or ls), Grep to search contents (not grep or rg), Read to read files (not cat, head or tail), Edit and Write to change files (not sed, awk or echo >).
- When issuing multiple commands, use ';' or '&&' to separate them. DO NOT use newlines (newlines are ok in quoted strings).
- The working directory persists between commands: after `cd src`, the next command starts in src. It stays inside the workspace's working directories; a command that ends outside them is followed by a reset to the workspace root. Environment variables and shell state do not persist.
- Before the command runs, you are told which files have unsaved changes in the editor: the command sees the disk version of those files, not what Read shows. Files you read that the command changes must be read again before editing.
- Set run_in_background to true for long-running processes (servers, watchers). You get a shell ID at once; read new output with BashOutput and stop it with KillShell. Background shells are killed when the session ends. Processes a foreground command leaves running are killed when it ends."""  # noqa: E501


def _spool(ctx: ToolUseContext, stream: str) -> OutputSpool:
    """A stream's keeper: output over the limit goes whole to the session's results folder."""
    directory = ctx.options.results_dir
    path = result_path(directory, ctx.tool_use_id or "bash", f".{stream}.txt") if directory is not None else None
    return OutputSpool(MAX_OUTPUT_CHARS, path)


def _clamp_timeout(value: BashInput, ctx: ToolUseContext) -> int:
    timeout = value.timeout if value.timeout is not None else ctx.options.bash_timeout_ms
    return min(timeout, ctx.options.bash_max_timeout_ms)


async def _check(value: BashInput, ctx: ToolUseContext) -> None:
    if not value.command.strip():
        raise ToolError("command must not be empty.")
    if value.run_in_background and ctx.shell is None:
        raise ToolError(
            "Background commands need a session to belong to, and this context has none. Run the command in the "
            "foreground (with a timeout if it may take long)."
        )


async def _call(value: BashInput, ctx: ToolUseContext) -> ToolResult:
    await _check(value, ctx)
    cwd, reset_note = await asyncio.to_thread(starting_dir, ctx)
    buffers = await unsaved_buffers(ctx)
    unsaved = unsaved_note(buffers, cwd)
    if value.run_in_background:
        return ToolResult(with_notes(await _start_background(value, ctx, cwd), reset_note, unsaved))
    before = await known_stamps(ctx)
    with cwd_capture() as capture:
        script = capturing_script(value.command, capture) if ctx.shell is not None else value.command
        try:
            text = await _run(value, ctx, cwd, script)
        finally:
            landed = await asyncio.to_thread(landed_dir, capture)
            moved_note = settle_cwd(ctx, cwd, landed)
            changed_note = await mark_changed_files(ctx, before, cwd)
            buffers_note = await tell_of_changed_buffers(ctx, buffers, value.command, cwd)
    return ToolResult(with_notes(text, reset_note, moved_note, unsaved, changed_note, buffers_note))


async def _start_background(value: BashInput, ctx: ToolUseContext, cwd: Path) -> str:
    assert ctx.shell is not None
    try:
        shell = await ctx.shell.background.start(value.command, cwd)
    except OSError as exc:
        raise ToolError(f"Could not start bash in {cwd}: {exc}") from exc
    return (
        f"Command running in the background with ID: {shell.id}. Read its output with BashOutput "
        f'(bash_id "{shell.id}"); stop it with KillShell (shell_id "{shell.id}").'
    )


async def _wait_for_exit(exited: asyncio.Event, abort: asyncio.Event, timeout_s: float, protect: bool) -> str:
    """How the wait ended: "done", "timeout" or "aborted".

    A command that must not be cut in half (`protect`) ignores the abort event and a
    first cancellation: it finishes within its timeout (a second cancellation still stops it).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    exit_waiter = asyncio.ensure_future(exited.wait())
    abort_waiter = asyncio.ensure_future(abort.wait())
    waiters = {exit_waiter} if protect else {exit_waiter, abort_waiter}
    try:
        try:
            done, _ = await asyncio.wait(waiters, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not protect or task is None:
                raise
            task.uncancel()
            done, _ = await asyncio.wait({exit_waiter}, timeout=max(deadline - loop.time(), 0))
        if exit_waiter in done:
            return "done"
        return "aborted" if abort_waiter in done else "timeout"
    finally:
        exit_waiter.cancel()
        abort_waiter.cancel()


async def _run(value: BashInput, ctx: ToolUseContext, cwd: Path, script: str) -> str:
    """Run `script` in the foreground in `cwd`; the text the model gets (ToolError on timeout or interrupt)."""
    timeout_ms = _clamp_timeout(value, ctx)
    protect = plain_verdict(value.command).must_not_interrupt
    try:
        transport, protocol = await spawn(script, cwd)
    except OSError as exc:
        raise ToolError(f"Could not start bash in {cwd}: {exc}") from exc
    pgid = transport.get_pid()
    out, err = _spool(ctx, "stdout"), _spool(ctx, "stderr")
    loop = asyncio.get_running_loop()
    last_report = -PROGRESS_INTERVAL_S
    latest: str | None = None  # the newest line not reported yet
    flush_later: asyncio.TimerHandle | None = None

    def flush() -> None:
        nonlocal latest, last_report, flush_later
        flush_later = None
        if latest is not None:
            last_report = loop.time()
            ctx.report(latest)
            latest = None

    def on_line(line: str) -> None:
        nonlocal latest, flush_later
        if not line.strip():
            return
        latest = line[:200]
        wait = last_report + PROGRESS_INTERVAL_S - loop.time()
        if wait <= 0:
            flush()
        elif flush_later is None:
            flush_later = loop.call_later(wait, flush)

    assert protocol.stdout is not None and protocol.stderr is not None
    pumps = asyncio.gather(pump(protocol.stdout, out.add, on_line), pump(protocol.stderr, err.add, on_line))
    pumps.add_done_callback(consume)
    try:
        outcome = await _wait_for_exit(protocol.exited, ctx.abort, timeout_ms / 1000, protect)
        if outcome != "done":
            await terminate(pgid, protocol.exited)
        else:
            # The command is over: whatever it left running in its group goes too.
            kill_group(pgid, signal.SIGKILL)
        # The pipes close once every process holding them is gone; don't wait on escapees forever.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(pumps), KILL_GRACE_SECONDS)
    finally:
        if flush_later is not None:
            flush_later.cancel()
        if not protocol.exited.is_set():
            await terminate(pgid, protocol.exited)
        pumps.cancel()
        transport.close()
        out.close()
        err.close()

    whole = result_path(ctx.options.results_dir, ctx.tool_use_id or "bash") if ctx.options.results_dir else None
    text = (await asyncio.to_thread(combined_output, out, err, MAX_OUTPUT_CHARS, whole)).rstrip("\n")
    if outcome == "timeout":
        raise ToolError(_with(text, f"Command timed out: killed after {timeout_ms} ms."))
    if outcome == "aborted":
        raise ToolError(_with(text, "Command was interrupted by the user and killed."))
    code = transport.get_returncode()
    if code:
        text = _with(text, f"Exit code {code}")
    return text or "(no output)"


def _with(text: str, line: str) -> str:
    return f"{text}\n{line}" if text else line


async def _check_permissions(value: BashInput, ctx: ToolUseContext) -> PermissionCheck:
    return await asyncio.to_thread(command_check, value.command, ctx.permission_context, ctx.session_cwd())


def _read_only(value: BashInput) -> bool:
    return plain_verdict(value.command).read_only


def _concurrency_safe(value: BashInput) -> bool:
    # A `cd` moves the session's shell: it must not race with other calls.
    verdict = plain_verdict(value.command)
    return verdict.read_only and not verdict.changes_cwd


def _summary(value: BashInput) -> str:
    # what runs, not the model's words for it: the chat and progress show this line
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
    is_read_only=_read_only,
    is_concurrency_safe=_concurrency_safe,
    interrupt_behavior="cancel",  # stopping the turn kills a running command (unless it must not be cut in half)
    rule_content=lambda value: value.command,
    summary=_summary,
)
