"""Bash within a session: the working directory carries over, files the model knows, read-only verdicts."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from handrail.permissions.context import PermissionContext
from handrail.tools.builtin import BASH
from handrail.tools.builtin.bash import _wait_for_exit
from handrail.tools.context import ToolUseContext
from handrail.tools.filesystem import read_disk
from handrail.tools.permission_flow import decide_call
from handrail.tools.shell_session import ShellSession

from .support import BufferFileSystem, make_context, run


@pytest.fixture
def sctx(ctx: ToolUseContext) -> ToolUseContext:
    """A tool context with a shell session."""
    return replace(ctx, shell=ShellSession())


async def test_cd_carries_over_to_the_next_call(sctx: ToolUseContext, tmp_path: Path) -> None:
    await run(BASH, sctx, command="mkdir -p sub/deeper && cd sub")
    assert await run(BASH, sctx, command="pwd") == str(tmp_path / "sub")
    await run(BASH, sctx, command="cd deeper")
    assert await run(BASH, sctx, command="pwd") == str(tmp_path / "sub" / "deeper")
    assert sctx.shell is not None and sctx.shell.cwd == tmp_path / "sub" / "deeper"


async def test_a_workspace_opened_through_a_link_keeps_its_spelling(ctx: ToolUseContext, tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(real)
    sctx = replace(ctx, options=replace(ctx.options, cwd=link, workspace_roots=(link,)), shell=ShellSession())
    assert await run(BASH, sctx, command="cd sub && echo ok") == "ok"
    assert sctx.shell is not None and sctx.shell.cwd == link / "sub"
    await run(BASH, sctx, command="cd ..")
    assert sctx.shell.cwd is None


async def test_exit_code_is_kept_and_cd_still_recorded(sctx: ToolUseContext, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    assert await run(BASH, sctx, command="cd sub; exit 4") == "Exit code 4"
    assert await run(BASH, sctx, command="pwd") == str(tmp_path / "sub")


async def test_leaving_the_working_directories_resets_to_the_root(sctx: ToolUseContext, tmp_path: Path) -> None:
    text = await run(BASH, sctx, command="cd / && echo moved")
    assert text.startswith("moved")
    assert f"Shell cwd was reset to {tmp_path}" in text
    assert await run(BASH, sctx, command="pwd") == str(tmp_path)


async def test_a_removed_directory_resets_to_the_root(sctx: ToolUseContext, tmp_path: Path) -> None:
    await run(BASH, sctx, command="mkdir gone && cd gone")
    (tmp_path / "gone").rmdir()
    text = await run(BASH, sctx, command="pwd")
    assert text.startswith(str(tmp_path) + "\n")
    assert "reset to" in text


async def test_without_a_session_each_call_starts_at_the_root(ctx: ToolUseContext, tmp_path: Path) -> None:
    await run(BASH, ctx, command="mkdir sub && cd sub")
    assert await run(BASH, ctx, command="pwd") == str(tmp_path)


async def test_the_permission_check_judges_paths_from_the_session_directory(
    sctx: ToolUseContext, tmp_path: Path
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("x")
    value = BASH.input_model(command="cat a.txt")
    sctx = replace(sctx, permission_context=PermissionContext(workspace_roots=(tmp_path,), cwd=tmp_path))
    await run(BASH, sctx, command="cd sub")
    assert (await decide_call(BASH, value, sctx)).behavior == "allow"
    assert sctx.shell is not None
    sctx.shell.cwd = None
    assert (await decide_call(BASH, BASH.input_model(command="cat ../../etc/passwd"), sctx)).behavior == "ask"


def test_read_only_and_concurrency_come_from_the_analyser() -> None:
    def value(command: str) -> object:
        return BASH.input_model(command=command)

    assert BASH.is_read_only(value("ls -la | head"))
    assert BASH.is_concurrency_safe(value("git status"))
    assert not BASH.is_read_only(value("touch x"))
    assert not BASH.is_concurrency_safe(value("ls; rm -rf x"))
    assert not BASH.is_concurrency_safe(value("cd src && ls"))  # moves the session's shell


async def test_unsaved_buffers_are_named(tmp_path: Path) -> None:
    editor = BufferFileSystem()
    (tmp_path / "a.py").write_text("disk\n")
    editor.open(tmp_path / "a.py", "typed but not saved\n")
    ctx = replace(make_context(tmp_path, editor), shell=ShellSession())
    text = await run(BASH, ctx, command="cat a.py")
    assert text.startswith("disk\n\nNote: unsaved changes in the editor for a.py.")


async def test_files_the_command_changed_are_marked_stale(sctx: ToolUseContext, tmp_path: Path) -> None:
    changed, untouched = tmp_path / "changed.txt", tmp_path / "same.txt"
    changed.write_text("old\n")
    untouched.write_text("same\n")
    for path in (changed, untouched):
        sctx.file_state.record(read_disk(path))
    text = await run(BASH, sctx, command="echo brand new content > changed.txt")
    assert "changed on disk during this command: changed.txt. Read them again." in text
    changed_record, same_record = sctx.file_state.get(changed), sctx.file_state.get(untouched)
    assert changed_record is not None and changed_record.changed_externally
    assert same_record is not None and not same_record.changed_externally


async def test_a_command_that_must_not_be_cut_finishes_despite_a_cancel() -> None:
    exited, abort = asyncio.Event(), asyncio.Event()
    waiting = asyncio.create_task(_wait_for_exit(exited, abort, 30, protect=True))
    await asyncio.sleep(0)
    abort.set()
    waiting.cancel()
    await asyncio.sleep(0)
    assert not waiting.done()
    exited.set()
    assert await waiting == "done"


async def test_an_ordinary_command_stops_on_cancel() -> None:
    waiting = asyncio.create_task(_wait_for_exit(asyncio.Event(), asyncio.Event(), 30, protect=False))
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
