"""Bash."""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from pathlib import Path

import pytest

from handrail.tools.builtin import BASH
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError

from .support import recorder, run


async def gone(pid: int) -> bool:
    """Wait until process `pid` has ended (signals land asynchronously), without polling.

    A pidfd becomes readable when its process terminates, zombie or reaped.
    """
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def on_readable() -> None:
        if not ended.done():
            ended.set_result(None)

    loop.add_reader(fd, on_readable)
    try:
        async with asyncio.timeout(5):
            await ended
    finally:
        loop.remove_reader(fd)
        os.close(fd)
    return True


async def test_runs_in_cwd_and_returns_output(ctx: ToolUseContext, tmp_path: Path) -> None:
    assert await run(BASH, ctx, command="pwd") == str(tmp_path)
    assert await run(BASH, ctx, command="true") == "(no output)"


async def test_stdout_then_stderr_then_exit_code(ctx: ToolUseContext) -> None:
    text = await run(BASH, ctx, command="echo err >&2; echo out; exit 3")
    assert text == "out\nerr\nExit code 3"


async def test_progress_lines_are_reported(ctx: ToolUseContext) -> None:
    await run(BASH, ctx, command="for i in $(seq 1 25); do echo step $i; done")
    assert recorder(ctx).messages == ["step 1", "step 11", "step 21"]


async def test_long_output_keeps_head_and_tail(ctx: ToolUseContext) -> None:
    text = await run(BASH, ctx, command="seq 1 20000")
    assert len(text) < 30_200
    assert text.startswith("1\n2\n3\n")
    assert text.endswith("19999\n20000")
    assert "characters omitted" in text


async def test_timeout_kills_the_process_group(ctx: ToolUseContext, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    with pytest.raises(ToolError) as info:
        await run(BASH, ctx, command=f"sleep 30 & echo $! > {pid_file}; echo started; wait", timeout=300)
    assert "started" in str(info.value)
    assert "killed after 300 ms" in str(info.value)
    assert await gone(int(pid_file.read_text()))


async def test_timeout_is_capped_by_the_maximum(ctx: ToolUseContext, tmp_path: Path) -> None:
    capped = replace(ctx, options=replace(ctx.options, bash_max_timeout_ms=200))
    with pytest.raises(ToolError, match="killed after 200 ms"):
        await run(BASH, capped, command="sleep 30", timeout=600_000)


async def test_cancellation_kills_the_process(ctx: ToolUseContext, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    task = asyncio.create_task(run(BASH, ctx, command=f"sleep 30 & echo $! > {pid_file}; echo started; wait"))
    await recorder(ctx).wait_for("started")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await gone(int(pid_file.read_text()))


async def test_abort_kills_the_process(ctx: ToolUseContext, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    task = asyncio.create_task(run(BASH, ctx, command=f"sleep 30 & echo $! > {pid_file}; echo started; wait"))
    await recorder(ctx).wait_for("started")
    ctx.abort.set()
    with pytest.raises(ToolError, match="interrupted"):
        await task
    assert await gone(int(pid_file.read_text()))


async def test_leftover_background_processes_do_not_hold_the_call(ctx: ToolUseContext, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    # The background sleep keeps the output pipe open; the call must still end when the shell does.
    text = await run(BASH, ctx, command=f"sleep 30 & echo $! > {pid_file}; echo done", timeout=20_000)
    assert text == "done"
    assert await gone(int(pid_file.read_text()))


async def test_background_without_a_session_is_refused_before_running(ctx: ToolUseContext) -> None:
    check = await BASH.validate_input(BASH.input_model(command="sleep 1", run_in_background=True), ctx)
    assert not check.ok
    assert "need a session" in check.message
