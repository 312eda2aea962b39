"""Bash."""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from pathlib import Path

import pytest

import handrail.tools.results as results_module
from handrail.tools.builtin import BASH
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from tests.tools.support import recorder, run


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


async def test_long_output_is_saved_whole_and_the_model_gets_its_ends_and_path(
    ctx: ToolUseContext, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    ctx = replace(ctx, options=replace(ctx.options, results_dir=results), tool_use_id="toolu_big")
    text = await run(BASH, ctx, command="seq 1 20000; echo failed at the end >&2; exit 1")
    saved = results / "toolu_big.txt"
    whole = "".join(f"{i}\n" for i in range(1, 20001)) + "failed at the end\n"
    assert saved.read_text() == whole  # nothing cut out of the middle
    assert sorted(p.name for p in results.iterdir()) == ["toolu_big.txt"]  # the streams' parts are gone
    assert len(text) < 3_000
    assert text.startswith("1\n2\n3\n")
    assert "19999\n20000\nfailed at the end" in text and str(saved) in text and text.endswith("Exit code 1")


async def test_long_output_without_a_results_folder_is_cut_with_a_note(ctx: ToolUseContext) -> None:
    text = await run(BASH, ctx, command="seq 1 20000")
    assert len(text) < 30_200 and text.startswith("1\n2\n3\n")
    assert "characters left out" in text


async def test_a_runaway_output_is_stored_up_to_a_cap(
    ctx: ToolUseContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(results_module, "MAX_STORED_CHARS", 100_000)
    ctx = replace(ctx, options=replace(ctx.options, results_dir=tmp_path / "results"), tool_use_id="toolu_runaway")
    text = await run(BASH, ctx, command="yes | head -c 300000")
    assert (tmp_path / "results" / "toolu_runaway.txt").stat().st_size == 100_000
    assert "(300000 characters)" in text and "only its first 100000 characters" in text


async def test_output_just_within_the_limit_comes_back_whole(ctx: ToolUseContext, tmp_path: Path) -> None:
    ctx = replace(ctx, options=replace(ctx.options, results_dir=tmp_path / "results"), tool_use_id="toolu_small")
    text = await run(BASH, ctx, command="printf 'x%.0s' $(seq 1 29000); echo; echo err >&2")
    assert text == "x" * 29000 + "\nerr"
    assert not (tmp_path / "results").exists()


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
