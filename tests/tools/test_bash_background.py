"""Background shells: Bash run_in_background, BashOutput, KillShell, and the session's cleanup."""

from __future__ import annotations

import asyncio
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from handrail.tools import background_shells
from handrail.tools.background_shells import BackgroundShell
from handrail.tools.builtin import BASH, BASH_OUTPUT, KILL_SHELL
from handrail.tools.builtin.send_message import SEND_MESSAGE
from handrail.tools.builtin.task_output import TASK_OUTPUT
from handrail.tools.builtin.task_stop import TASK_STOP
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.shell_session import ShellSession
from tests.tools.builtin.test_bash import gone

from .support import run


@pytest.fixture
async def sctx(ctx: ToolUseContext):  # type: ignore[no-untyped-def]
    """A tool context with a shell session, closed (its shells killed) after the test."""
    shell = ShellSession()
    yield replace(ctx, shell=shell)
    await shell.close()


async def _start(ctx: ToolUseContext, command: str) -> BackgroundShell:
    text = await run(BASH, ctx, command=command, run_in_background=True)
    match = re.search(r"ID: (\S+)\.", text)
    assert match, text
    assert ctx.shell is not None
    shell = ctx.shell.background.get(match.group(1))
    assert shell is not None
    return shell


async def _wait_until(shell: BackgroundShell, done: bool = False, text: str = "") -> None:
    """Wait (on the shell's events) until it ended, or until its unread output holds `text`."""
    while not (shell.status != "running" if done else text in shell._partial + "".join(shell._unread)):
        await shell.changed()


async def test_start_poll_and_finish(sctx: ToolUseContext, tmp_path: Path) -> None:
    shell = await _start(sctx, "echo one; echo two >&2; echo three")
    await _wait_until(shell, done=True)
    text = await run(BASH_OUTPUT, sctx, bash_id=shell.id)
    assert text == "<status>completed</status>\n<exit_code>0</exit_code>\n<output>one\ntwo\nthree</output>"
    again = await run(BASH_OUTPUT, sctx, bash_id=shell.id)
    assert again.endswith("<output>(no new output)</output>")


async def test_only_new_output_and_a_filter(sctx: ToolUseContext, tmp_path: Path) -> None:
    go = tmp_path / "go"
    shell = await _start(sctx, f"echo first; echo noise; while [ ! -e {go} ]; do sleep 0.05; done; echo second; exit 3")
    await _wait_until(shell, text="noise\n")
    text = await run(BASH_OUTPUT, sctx, bash_id=shell.id, filter="^f")
    filtered = "<filtered>1 lines did not match the filter</filtered>"
    assert text == f"<status>running</status>\n{filtered}\n<output>first</output>"
    go.touch()
    await _wait_until(shell, done=True)
    text = await run(BASH_OUTPUT, sctx, bash_id=shell.id)
    assert text == "<status>failed</status>\n<exit_code>3</exit_code>\n<output>second</output>"


async def test_kill_shell_stops_the_whole_group(sctx: ToolUseContext) -> None:
    shell = await _start(sctx, "sleep 30 & echo child $!; wait")
    await _wait_until(shell, text="\n")
    child = int((await run(BASH_OUTPUT, sctx, bash_id=shell.id)).split("child ")[1].split("<")[0])
    killed = await run(KILL_SHELL, sctx, shell_id=shell.id)
    assert killed == f"Killed shell {shell.id} (sleep 30 & echo child $!; wait)."
    assert await gone(child)
    assert await gone(shell.pid)
    assert "<status>killed</status>" in await run(BASH_OUTPUT, sctx, bash_id=shell.id)
    assert "was killed" in await run(KILL_SHELL, sctx, shell_id=shell.id)
    assert shell.pid not in background_shells._LIVE_GROUPS


async def test_closing_the_session_kills_every_shell(ctx: ToolUseContext) -> None:
    session = ShellSession()
    sctx = replace(ctx, shell=session)
    shells = [await _start(sctx, "sleep 30 & echo $!; wait") for _ in range(2)]
    for shell in shells:
        await _wait_until(shell, text="\n")
    children = [int(shell.read().text) for shell in shells]
    await session.close()
    for pid in [*children, *(shell.pid for shell in shells)]:
        assert await gone(pid)
    assert all(shell.status == "killed" for shell in shells)


async def test_background_starts_in_the_session_directory(sctx: ToolUseContext, tmp_path: Path) -> None:
    await run(BASH, sctx, command="mkdir sub && cd sub")
    shell = await _start(sctx, "pwd")
    await _wait_until(shell, done=True)
    assert shell.read().text == f"{tmp_path / 'sub'}\n"


async def test_unread_output_is_capped(sctx: ToolUseContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(background_shells, "MAX_UNREAD_CHARS", 1000)
    shell = await _start(sctx, "seq 1 2000")
    await _wait_until(shell, done=True)
    output = shell.read()
    assert len(output.text) == 1000
    assert output.text.endswith("1999\n2000\n")
    assert output.dropped_chars == len("".join(f"{i}\n" for i in range(1, 2001))) - 1000


async def test_unknown_ids_and_bad_filters_are_refused(sctx: ToolUseContext) -> None:
    with pytest.raises(ToolError, match="No background shell with ID 'nope'"):
        await run(BASH_OUTPUT, sctx, bash_id="nope")
    with pytest.raises(ToolError, match="No background shell"):
        await run(KILL_SHELL, sctx, shell_id="nope")
    shell = await _start(sctx, "true")
    with pytest.raises(ToolError, match="not a valid regular expression"):
        await run(BASH_OUTPUT, sctx, bash_id=shell.id, filter="(")


LEFT_OPEN = """
import asyncio
from pathlib import Path
from handrail.tools.background_shells import BackgroundShells

async def main() -> None:
    shell = await BackgroundShells().start("sleep 60 & echo $!; wait", Path("."))
    while not shell._unread:
        await shell.changed()
    print(shell.read().text.strip(), flush=True)  # returns with the shell still running, never closed

asyncio.run(main())
"""


async def test_a_closing_event_loop_takes_its_shells_along(tmp_path: Path) -> None:
    done = await asyncio.create_subprocess_exec(
        sys.executable, "-c", LEFT_OPEN, cwd=tmp_path, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await done.communicate()
    assert done.returncode == 0
    assert await gone(int(out))


async def test_task_output_and_task_stop_take_a_shell_id(sctx: ToolUseContext, tmp_path: Path) -> None:
    shell = await _start(sctx, "echo begun; sleep 60")
    await _wait_until(shell, text="begun\n")
    polled = await run(TASK_OUTPUT, sctx, task_id=shell.id, block=False)
    assert polled == "<status>running</status>\n<output>begun</output>"
    assert await run(TASK_STOP, sctx, task_id=shell.id) == f"Killed shell {shell.id} (echo begun; sleep 60)."
    waited = await run(TASK_OUTPUT, sctx, task_id=shell.id, timeout=600_000)  # ended: returns at once
    assert waited.startswith("<status>killed</status>")
    assert await run(TASK_STOP, sctx, task_id=shell.id) == f"Task {shell.id} is not running: it was killed."
    with pytest.raises(ToolError, match=rf"No background task with ID 'agent_9'\. Known IDs: {shell.id}\."):
        await run(TASK_OUTPUT, sctx, task_id="agent_9")
    with pytest.raises(ToolError, match="not an agent"):
        await run(SEND_MESSAGE, sctx, to=shell.id, message="hello")
