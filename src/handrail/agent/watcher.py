"""Following the few files handrail acts on when they change: each root's settings and `.mcp.json`.

A change to `.handrail/settings.json` or `.handrail/settings.local.json` reloads the rules (an
open prompt is decided again, the next tool call uses them); a changed `.mcp.json` restarts or
stops its servers. Nothing else is watched: Edit and Write compare a file's text with what the
model read at the moment they edit, so files the model read need no watcher, and a watch of the
whole tree costs a monorepo thousands of kernel watches and a core of CPU in every checkout.

The client's own watcher is preferred: a client that can register `workspace/didChangeWatchedFiles`
dynamically is asked for these files (lsp/settings_watch.py), and handrail watches nothing itself.
Otherwise `SettingsWatcher` holds two non-recursive watches per root (the root and its
`.handrail` folder), asking the kernel only for writes, creations, deletions and moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from handrail.permissions.sources import local_settings_path, project_settings_path
from handrail.tools.mcp.config import MCP_JSON

log = logging.getLogger(__name__)


def root_files(root: Path) -> tuple[Path, ...]:
    """The files of one root whose changes handrail acts on."""
    return (project_settings_path(root), local_settings_path(root), root / MCP_JSON)


def watched_files(roots: Iterable[Path]) -> frozenset[Path]:
    """The files of all roots whose changes handrail acts on."""
    return frozenset(path for root in roots for path in root_files(root))


_LIMIT_ADVICE = {
    errno.ENOSPC: (
        "the system's limit on inotify watches is used up (fs.inotify.max_user_watches; other programs "
        "watching large trees hold them). Raise it, e.g. `sudo sysctl fs.inotify.max_user_watches=524288` "
        "(add the line to /etc/sysctl.d/ to keep it)"
    ),
    errno.EMFILE: (
        "the limit on inotify instances or open files is reached (fs.inotify.max_user_instances, or "
        "`ulimit -n`). Raise it, e.g. `sudo sysctl fs.inotify.max_user_instances=1024`, or close programs "
        "that watch many folders"
    ),
    errno.ENFILE: "the system's table of open files is full. Close some programs",
    errno.ENOMEM: "the kernel has no memory left for more watches. Close some programs",
}


def limit_message(error: OSError) -> str | None:
    """What to tell the user when a system limit stopped a watch (None for other errors)."""
    advice = _LIMIT_ADVICE.get(error.errno or 0)
    if advice is None:
        return None
    return (
        f"handrail cannot watch .handrail/settings*.json and {MCP_JSON} for changes: {advice}, then restart "
        "the language server. Until then, changes to those files apply when the next request starts."
    )


class SettingsWatcher:
    """Watches the folders of the watched files (each root and its `.handrail`), without recursion.

    `on_change(path)` is called on the event loop for each change to a watched file; `on_limit(text)`
    once, on the loop, when a system limit keeps a watch from being set. `watch` blocks (briefly):
    call it in a thread.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        on_change: Callable[[Path], None],
        on_limit: Callable[[str], None],
    ) -> None:
        self._loop = loop
        self._on_change = on_change
        self._on_limit = on_limit
        self._lock = threading.RLock()
        self._observer: Any = None
        self._watches: dict[Path, Any] = {}  # folder -> watchdog's ObservedWatch
        self._files: frozenset[Path] = frozenset()
        self._subfolders: frozenset[Path] = frozenset()  # folders of watched files below a root: they come and go
        self._limit_told = False
        self._stopped = False

    @property
    def folders(self) -> tuple[Path, ...]:
        """The folders watched now."""
        with self._lock:
            return tuple(self._watches)

    def watch(self, roots: Sequence[Path]) -> None:
        """Watch `roots` (and their `.handrail` folders); stop watching folders of roots no longer given."""
        with self._lock:
            if self._stopped:
                return
            self._files = watched_files(roots)
            folders = {path.parent for path in self._files}
            self._subfolders = frozenset(folders - set(roots))
            if self._observer is None:
                try:
                    self._observer = self._start_observer()
                except OSError as exc:  # no inotify instance to be had
                    self._failed(roots[0] if roots else Path("/"), exc)
                    return
            for folder in set(self._watches) - folders:
                self._unwatch(folder)
            for folder in sorted(folders):  # a root before its subfolders
                self._follow(folder)

    def _start_observer(self) -> Any:
        from watchdog.observers import Observer

        observer = Observer()
        observer.daemon = True
        observer.start()
        return observer

    def _follow(self, folder: Path) -> None:
        """Watch `folder` while it is a folder (settings folders come and go); unwatch it otherwise."""
        if folder in self._watches and not folder.is_dir():
            self._unwatch(folder)
        if folder in self._watches or not folder.is_dir():
            return
        from watchdog.events import (
            DirCreatedEvent,
            DirDeletedEvent,
            DirMovedEvent,
            FileClosedEvent,
            FileCreatedEvent,
            FileDeletedEvent,
            FileMovedEvent,
        )

        try:
            self._watches[folder] = self._observer.schedule(
                _Handler(self),
                str(folder),
                recursive=False,
                # what these files change by; never opens, reads, closes after reading or attribute changes
                event_filter=[
                    FileClosedEvent,
                    FileCreatedEvent,
                    FileDeletedEvent,
                    FileMovedEvent,
                    DirCreatedEvent,
                    DirDeletedEvent,
                    DirMovedEvent,
                ],
            )
        except OSError as exc:
            self._failed(folder, exc)

    def _unwatch(self, folder: Path) -> None:
        watch = self._watches.pop(folder)
        with contextlib.suppress(KeyError, OSError):
            self._observer.unschedule(watch)

    def _failed(self, folder: Path, error: OSError) -> None:
        log.warning("cannot watch %s: %s", folder, error)
        message = limit_message(error)
        if message is not None and not self._limit_told:
            self._limit_told = True
            self._call_soon(self._on_limit, message)

    def _call_soon(self, callback: Callable[..., None], *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed while we were shutting down
            self._loop.call_soon_threadsafe(callback, *args)

    def changed(self, raw: str) -> None:
        """A watch reported `raw`: pass on changes to watched files, follow settings folders.

        Runs in watchdog's thread, which holds watchdog's lock: it takes no lock of ours (`watch`
        takes ours, then watchdog's), and a settings folder is followed from a thread of its own.
        """
        path = Path(raw)
        if self._stopped:
            return
        if path in self._files:
            self._call_soon(self._on_change, path)
        elif path in self._subfolders:
            threading.Thread(target=self._subfolder_changed, args=(path,), name="handrail-watch").start()

    def _subfolder_changed(self, folder: Path) -> None:
        """A settings folder was created, removed or moved: watch it while it is there; its files may be new or gone."""
        with self._lock:
            if self._stopped or self._observer is None:
                return
            self._follow(folder)
            files = [path for path in self._files if path.parent == folder]
        for path in files:
            self._call_soon(self._on_change, path)

    def stop(self) -> None:
        """Stop watching."""
        with self._lock:
            self._stopped = True
            observer, self._observer = self._observer, None
            self._watches.clear()
        if observer is not None:
            observer.stop()
            observer.join(timeout=5)


class _Handler:
    """watchdog's handler for one watched folder: every event's paths go to `SettingsWatcher.changed`."""

    def __init__(self, watcher: SettingsWatcher) -> None:
        self._watcher = watcher

    def dispatch(self, event: Any) -> None:
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if raw:
                self._watcher.changed(os.fsdecode(raw))


class Coalesced:
    """Runs an async action for a burst of changes: at once, and once more if changes came while it ran."""

    def __init__(self, action: Callable[[], Awaitable[None]], spawn: Callable[[Awaitable[None]], None]) -> None:
        self._action = action
        self._spawn = spawn
        self._running = False
        self._again = False

    def poke(self) -> None:
        """Something changed: run the action (again)."""
        if self._running:
            self._again = True
            return
        self._running = True
        self._spawn(self._run())

    async def _run(self) -> None:
        try:
            while True:
                self._again = False
                try:
                    await self._action()
                except Exception:
                    log.exception("reloading after a change failed")
                if not self._again:
                    return
        finally:
            self._running = False
