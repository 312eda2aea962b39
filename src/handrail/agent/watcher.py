"""Watches the workspace on disk so the agent learns of files changed behind its back."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from handrail.tools.filesystem import read_disk

log = logging.getLogger(__name__)

_IGNORED_PARTS = {".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache"}


class WorkspaceWatcher:
    """Calls `on_change(path, content_hash_or_None)` on the event loop for each changed file."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_change: Callable[[Path, str | None], None]) -> None:
        self._loop = loop
        self._on_change = on_change
        self._observer: Any = None

    def start(self, roots: Sequence[Path]) -> None:
        """Start watching `roots` recursively (in watchdog's thread)."""
        from watchdog.events import FileSystemEvent, FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.is_directory or event.event_type in {"opened", "closed_no_write"}:
                    return
                for raw in (event.src_path, getattr(event, "dest_path", "")):
                    if raw:
                        watcher._changed(Path(str(raw)))

        observer = Observer()
        for root in roots:
            if root.is_dir():
                observer.schedule(Handler(), str(root), recursive=True)
        observer.daemon = True
        observer.start()
        self._observer = observer

    def _changed(self, path: Path) -> None:
        if _IGNORED_PARTS.intersection(path.parts) or path.name.endswith(".handrail-tmp"):
            return
        try:
            content_hash: str | None = read_disk(path).content_hash
        except Exception:  # gone, unreadable or binary: it no longer holds what was read
            content_hash = None
        with contextlib.suppress(RuntimeError):  # the loop closed while we were shutting down
            self._loop.call_soon_threadsafe(self._on_change, path, content_hash)

    def stop(self) -> None:
        """Stop watching."""
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None
