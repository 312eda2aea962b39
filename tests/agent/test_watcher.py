"""The settings watcher: what it watches (in the kernel's own words), what it reports, and what it tells at a limit."""

from __future__ import annotations

import asyncio
import errno
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from handrail.agent.watcher import Coalesced, SettingsWatcher, limit_message, watched_files
from handrail.lsp.settings_watch import CLIENT_GLOBS, client_registration
from tests.inotify import IN_ACCESS, IN_ATTRIB, IN_CLOSE_NOWRITE, IN_MODIFY, IN_OPEN, grow_monorepo, inotify_watches


class Reports:
    """What a watcher reported, and a way to wait for the next report."""

    def __init__(self) -> None:
        self.changes: asyncio.Queue[Path] = asyncio.Queue()
        self.limits: list[str] = []

    async def next(self) -> Path:
        return await asyncio.wait_for(self.changes.get(), 10)


@pytest.fixture
def reports() -> Reports:
    return Reports()


@pytest_asyncio.fixture
async def watcher(reports: Reports) -> AsyncIterator[SettingsWatcher]:
    watching = SettingsWatcher(asyncio.get_running_loop(), reports.changes.put_nowait, reports.limits.append)
    yield watching
    watching.stop()


@pytest.fixture
def monorepo(tmp_path: Path) -> Path:
    return grow_monorepo(tmp_path / "repo")


def _inodes(*folders: Path) -> set[int]:
    return {os.stat(folder).st_ino for folder in folders}


async def test_only_the_root_and_its_settings_folder_are_watched_for_writes(
    watcher: SettingsWatcher, monorepo: Path
) -> None:
    before = inotify_watches()
    await asyncio.to_thread(watcher.watch, [monorepo])
    added = [w for w in inotify_watches() if w not in before]
    assert {w.inode for w in added} == _inodes(monorepo, monorepo / ".handrail")
    assert len(added) == 2 and set(watcher.folders) == {monorepo, monorepo / ".handrail"}
    for watch in added:  # the kernel is never asked for opens, reads, closes after reading, attribute changes
        assert not watch.mask & (IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE | IN_ATTRIB | IN_MODIFY), hex(watch.mask)
    watcher.stop()
    assert [w for w in inotify_watches() if w not in before] == []


async def test_writes_to_watched_files_are_reported_and_reads_are_not(
    watcher: SettingsWatcher, reports: Reports, monorepo: Path
) -> None:
    await asyncio.to_thread(watcher.watch, [monorepo])
    mcp = monorepo / ".mcp.json"
    mcp.write_text('{"mcpServers": {}}\n')  # an existing file: one close-after-write
    assert await reports.next() == mcp
    for _ in range(10):
        mcp.read_text()
        (monorepo / "other.txt").write_text("not watched\n")
    (monorepo / "src" / "pkg1" / "deep" / "m.py").write_text("deep, not watched\n")
    settings = monorepo / ".handrail" / "settings.json"
    settings.write_text("{}\n")
    assert await reports.next() == settings  # created...
    assert await reports.next() == settings  # ...and closed after writing
    mcp.unlink()
    assert await reports.next() == mcp  # nothing came between: the reads and other files reported nothing
    assert reports.changes.empty()


async def test_a_settings_folder_made_later_is_followed(
    watcher: SettingsWatcher, reports: Reports, tmp_path: Path
) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    await asyncio.to_thread(watcher.watch, [root])
    assert watcher.folders == (root,)
    (root / ".handrail").mkdir()
    reported = {await reports.next(), await reports.next()}
    assert reported == {root / ".handrail" / "settings.json", root / ".handrail" / "settings.local.json"}
    assert set(watcher.folders) == {root, root / ".handrail"}
    local = root / ".handrail" / "settings.local.json"
    local.write_text("{}\n")
    while (path := await reports.next()) != local:
        assert path.parent == root / ".handrail"
    shutil.rmtree(root / ".handrail")
    while root / ".handrail" in watcher.folders or not reports.changes.empty():
        await reports.next()
    assert watcher.folders == (root,)


async def test_folders_of_roots_no_longer_open_are_let_go(watcher: SettingsWatcher, tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    await asyncio.to_thread(watcher.watch, [first])
    await asyncio.to_thread(watcher.watch, [second])
    assert watcher.folders == (second,)


class _FullObserver:
    """An observer whose every watch hits a system limit."""

    def __init__(self, code: int) -> None:
        self.code = code
        self.tried: list[str] = []

    def schedule(self, handler: Any, path: str, **_: Any) -> None:
        self.tried.append(path)
        raise OSError(self.code, os.strerror(self.code))

    def stop(self) -> None:
        pass

    def join(self, timeout: float) -> None:
        pass


async def test_a_system_limit_is_told_once_with_what_to_do(
    reports: Reports, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = [tmp_path / "a", tmp_path / "b"]
    for root in roots:
        (root / ".handrail").mkdir(parents=True)
    full = _FullObserver(errno.ENOSPC)
    monkeypatch.setattr(SettingsWatcher, "_start_observer", lambda self: full)
    told: asyncio.Queue[str] = asyncio.Queue()
    watcher = SettingsWatcher(asyncio.get_running_loop(), reports.changes.put_nowait, told.put_nowait)
    await asyncio.to_thread(watcher.watch, roots)
    await asyncio.to_thread(watcher.watch, roots)
    message = await asyncio.wait_for(told.get(), 10)
    assert len(full.tried) == 8 and told.empty()  # four folders, twice; told once
    assert "fs.inotify.max_user_watches" in message and "sudo sysctl" in message
    assert "apply when the next request starts" in message
    watcher.stop()


def test_limit_messages_say_what_to_do() -> None:
    instances = limit_message(OSError(errno.EMFILE, "too many"))
    assert instances is not None and "fs.inotify.max_user_instances" in instances and "ulimit -n" in instances
    assert limit_message(OSError(errno.EACCES, "no")) is None


def test_the_client_is_asked_for_exactly_the_watched_files(tmp_path: Path) -> None:
    (registration,) = client_registration().registrations
    assert registration.method == "workspace/didChangeWatchedFiles"
    globs = [w.glob_pattern for w in registration.register_options.watchers]  # type: ignore[union-attr]
    assert globs == list(CLIENT_GLOBS) == ["**/.handrail/settings.json", "**/.handrail/settings.local.json",
                                           "**/.mcp.json"]
    assert watched_files([tmp_path]) == {
        tmp_path / ".handrail" / "settings.json",
        tmp_path / ".handrail" / "settings.local.json",
        tmp_path / ".mcp.json",
    }


async def test_a_burst_of_changes_runs_the_action_once_more_at_most() -> None:
    runs: list[int] = []
    release = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []

    async def action() -> None:
        runs.append(len(runs))
        await release.wait()

    coalesced = Coalesced(action, lambda work: tasks.append(asyncio.ensure_future(work)))
    for _ in range(10):  # before the action starts: one run sees them all
        coalesced.poke()
    await asyncio.sleep(0)
    assert runs == [0]
    for _ in range(100):  # while it runs: one more run
        coalesced.poke()
    release.set()
    await asyncio.gather(*tasks)
    assert runs == [0, 1] and len(tasks) == 1
    coalesced.poke()
    await asyncio.gather(*tasks)
    assert runs == [0, 1, 2] and len(tasks) == 2
