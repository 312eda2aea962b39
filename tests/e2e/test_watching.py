"""What `handrail lsp` watches: the client's watcher when it offers one, else two folders per root; and
that a settings file changed on disk reloads the rules either way."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types

from handrail.fake_model import FakeModel
from handrail.lsp.lsp_values import to_plain
from handrail.lsp.settings_watch import CLIENT_GLOBS
from tests.e2e.editor import Editor, server_env, start_editor
from tests.inotify import IN_CLOSE_NOWRITE, IN_OPEN, Watch, grow_monorepo, inotify_watches

BROKEN = {"permissions": {"deny": ["Read(~someone/secrets)"]}}  # a rule the reload reports as a problem


@pytest_asyncio.fixture
async def watching_editor(workspace: Path, model: FakeModel) -> AsyncIterator[Editor]:
    """An editor that registers file watchers for the server (as VS Code does)."""
    editor = await start_editor(workspace, server_env(model.base_url, workspace.parent / "state"), watchers=True)
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


def _server_pid(editor: Editor) -> int:
    server = editor.client._server  # the `handrail lsp` process pytest-lsp started
    assert server is not None
    return server.pid


async def _settings_reloaded(editor: Editor) -> str:
    """The warning the reload of BROKEN shows (within ten seconds)."""
    async with asyncio.timeout(10):
        while True:
            for message in editor.client.messages:
                if "~someone" in message.message or "'~user'" in message.message:
                    return message.message
            await editor.client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)


async def _permissions(editor: Editor) -> None:
    await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="handrail.permissions", arguments=[{}])
    )


def _write_settings(workspace: Path) -> Path:
    settings = workspace / ".handrail" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps(BROKEN))
    return settings


@pytest.mark.cold_server("reads the server's inotify watches from /proc/<pid>")
async def test_the_clients_watcher_is_used_and_the_server_watches_nothing(
    watching_editor: Editor, workspace: Path
) -> None:
    editor = watching_editor
    await asyncio.wait_for(editor.registered.wait(), 10)
    (registration,) = editor.registrations
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    options = to_plain(registration.register_options)
    assert [w["globPattern"] for w in options["watchers"]] == list(CLIENT_GLOBS)
    await _permissions(editor)
    assert inotify_watches(_server_pid(editor)) == []

    settings = _write_settings(workspace)
    editor.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=(workspace / "src" / "a.py").as_uri(), type=types.FileChangeType.Changed),
                types.FileEvent(uri=settings.as_uri(), type=types.FileChangeType.Created),
            ]
        )
    )
    assert "Read(~someone/secrets)" in await _settings_reloaded(editor)


async def _watches_settled(pid: int, count: int) -> list[Watch]:
    """The process's watches once there are `count` of them (its watcher starts in the background)."""
    async with asyncio.timeout(10):
        # another process's kernel state: nothing to wait on but /proc
        while len(watches := inotify_watches(pid)) < count:  # noqa: ASYNC110
            await asyncio.sleep(0.05)
    return watches


@pytest.fixture
def monorepo(workspace: Path) -> Path:
    """The workspace grown many folders (before the server starts)."""
    return grow_monorepo(workspace)


@pytest.mark.cold_server("reads the server's inotify watches from /proc/<pid>")
async def test_without_a_client_watcher_two_folders_are_watched(monorepo: Path, editor: Editor) -> None:
    pid = _server_pid(editor)
    expected = {os.stat(monorepo).st_ino, os.stat(monorepo / ".handrail").st_ino}
    watches = await _watches_settled(pid, len(expected))
    assert {w.inode for w in watches} == expected and len(watches) == len(expected)
    assert all(not w.mask & (IN_OPEN | IN_CLOSE_NOWRITE) for w in watches)
    assert editor.registrations == []
    await _permissions(editor)

    _write_settings(monorepo)  # no notification: the server's own watch sees it
    assert "Read(~someone/secrets)" in await _settings_reloaded(editor)
    assert {w.inode for w in inotify_watches(pid)} == expected
