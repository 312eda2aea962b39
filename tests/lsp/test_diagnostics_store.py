"""The editor's diagnostics: how long an edit waits for them, by what the session has seen of the file's kind."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handrail.lsp.diagnostics_store import DiagnosticsStore, EditorDiagnosticsView, document_kind

ERROR = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "message": "bad"}


@dataclass
class Opened:
    uri: str
    version: int | None = None


class Documents:
    """The one port of EditorFileSystem the view uses: every path is open, unversioned."""

    def open_document(self, path: Path) -> Opened:
        return Opened(path.as_uri())


def _publish(store: DiagnosticsStore, path: Path, items: list[dict[str, Any]]) -> None:
    store.update({"uri": path.as_uri(), "version": None, "diagnostics": items})


def test_document_kinds() -> None:
    assert document_kind("file:///w/a.py") == "py"
    assert document_kind("file:///w/Makefile") == "Makefile"
    assert document_kind("file:///w/archive.tar.gz") == "gz"


async def test_a_kind_nothing_checks_stops_slowing_edits(tmp_path: Path) -> None:
    store = DiagnosticsStore()
    view = EditorDiagnosticsView(store, Documents(), lambda: True, wait_seconds=0.5, quiet_wait_seconds=0)  # type: ignore[arg-type]
    notes = tmp_path / "notes.md"
    assert await view.after_write(notes) is None  # the full wait: nothing came for this kind

    asyncio.get_running_loop().call_soon(_publish, store, notes, [ERROR])
    assert await view.after_write(notes) is None  # now quiet: no wait, so what comes later is not waited for

    # the late diagnostics show that something does check .md files: edits wait for them again
    asyncio.get_running_loop().call_soon(_publish, store, notes, [ERROR])
    found = await view.after_write(notes)
    assert found is not None and [d.message for d in found] == ["bad"]


async def test_the_first_edit_of_a_kind_waits_the_full_time(tmp_path: Path) -> None:
    store = DiagnosticsStore()
    view = EditorDiagnosticsView(store, Documents(), lambda: True, wait_seconds=60, quiet_wait_seconds=0)  # type: ignore[arg-type]
    app = tmp_path / "app.py"
    asyncio.get_running_loop().call_soon(_publish, store, app, [ERROR])
    found = await view.after_write(app)
    assert found is not None and len(found) == 1


async def test_what_a_wait_learnt_outlasts_the_turn(tmp_path: Path) -> None:
    store = DiagnosticsStore()
    data = tmp_path / "data.csv"
    first_turn = EditorDiagnosticsView(store, Documents(), lambda: True, wait_seconds=0.5, quiet_wait_seconds=0)  # type: ignore[arg-type]
    assert await first_turn.after_write(data) is None
    next_turn = EditorDiagnosticsView(store, Documents(), lambda: True, wait_seconds=60, quiet_wait_seconds=0)  # type: ignore[arg-type]
    asyncio.get_running_loop().call_soon(_publish, store, data, [ERROR])
    assert await next_turn.after_write(data) is None  # quiet already: what comes after the write is not waited for
