"""The workspace watcher reports disk changes on the event loop."""

from __future__ import annotations

import asyncio
from pathlib import Path

from handrail.agent.watcher import WorkspaceWatcher
from handrail.tools.filesystem import text_hash


async def test_disk_change_is_reported_with_its_content_hash(tmp_path: Path) -> None:
    seen: asyncio.Queue[tuple[Path, str | None]] = asyncio.Queue()
    watcher = WorkspaceWatcher(asyncio.get_running_loop(), lambda path, digest: seen.put_nowait((path, digest)))
    watcher.start([tmp_path])
    try:
        target = tmp_path / "a.txt"
        target.write_text("new content\n")
        while True:
            path, digest = await asyncio.wait_for(seen.get(), 10)
            if path == target and digest == text_hash("new content\n"):
                break
        (tmp_path / ".git").mkdir()
        (tmp_path / ".git" / "index").write_text("x")
        target.unlink()
        while True:
            path, digest = await asyncio.wait_for(seen.get(), 10)
            assert ".git" not in path.parts
            if path == target and digest is None:
                break
    finally:
        watcher.stop()
