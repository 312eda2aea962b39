"""The editor's diagnostics as the client forwards them (`handrail/diagnostics`), and the tools' view of them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path

from handrail.lsp.document_watch import DocumentWatch
from handrail.lsp.editor_fs import EditorFileSystem, path_to_uri
from handrail.lsp.lsp_values import field_of
from handrail.tools.editor_diagnostics import DiagnosticInfo

WAIT_AFTER_WRITE_SECONDS = 1.5
# Once a full wait for a kind of file (notes.md when only Python has a language server) saw no
# diagnostics, and none ever came for that kind, nothing likely checks it: waiting the full time
# would slow every edit of such files.
WAIT_FOR_QUIET_KIND_SECONDS = 0.25


@dataclass(frozen=True)
class _Entry:
    version: int | None
    serial: int  # the order notifications arrived in
    diagnostics: tuple[DiagnosticInfo, ...]


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


# (uri, line, character in the negotiated encoding) → the index into the line, when the document is known
ColumnOf = Callable[[str, int, int], int | None]


def diagnostic_from_lsp(value: Any, column: Callable[[int, int], int | None] | None = None) -> DiagnosticInfo | None:
    """An LSP Diagnostic (as a dict) as tools see it; None when it is malformed.

    `column(line, character)` turns the client's character count into an index into the line.
    """
    message = field_of(value, "message")
    start = field_of(field_of(value, "range"), "start")
    end = field_of(field_of(value, "range"), "end")
    if not isinstance(message, str) or start is None:
        return None
    code = field_of(value, "code")
    source = field_of(value, "source")
    line = _int(field_of(start, "line"))
    character = _int(field_of(start, "character"))
    found = None if column is None else column(line, character)
    return DiagnosticInfo(
        line=line,
        character=character if found is None else found,
        end_line=max(line, _int(field_of(end, "line"), line)),
        severity=_int(field_of(value, "severity"), 1),
        message=message,
        source=source if isinstance(source, str) else None,
        code=str(code) if isinstance(code, int | str) and not isinstance(code, bool) else None,
    )


def document_kind(uri: str) -> str:
    """What kind of file a document is, as far as checkers go: its suffix (or its name when it has none)."""
    name = uri.rpartition("/")[2]
    return name.rpartition(".")[2] if "." in name else name


class DiagnosticsStore:
    """The latest diagnostics per document URI, with the document version they are for."""

    def __init__(self, column_of: ColumnOf | None = None) -> None:
        self._column_of = column_of
        self._entries: dict[str, _Entry] = {}
        self._kinds: set[str] = set()  # the suffixes of the documents diagnostics came for
        self._waited_in_vain: set[str] = set()  # kinds a full wait after a write got nothing for
        self._serial = 0
        self.watch = DocumentWatch()

    def update(self, params: Any) -> None:
        """Take one `handrail/diagnostics` notification (malformed ones are ignored)."""
        uri = field_of(params, "uri")
        items = field_of(params, "diagnostics")
        if not isinstance(uri, str) or not isinstance(items, list):
            return
        version = field_of(params, "version")
        self._serial += 1
        column = None if self._column_of is None else partial(self._column_of, uri)
        parsed = tuple(d for d in (diagnostic_from_lsp(item, column) for item in items) if d is not None)
        self._entries[uri] = _Entry(version if isinstance(version, int) else None, self._serial, parsed)
        self._kinds.add(document_kind(uri))
        self.watch.changed()

    @property
    def serial(self) -> int:
        """How many notifications arrived so far."""
        return self._serial

    def quiet_kind(self, kind: str) -> bool:
        """Whether nothing seems to check documents of this kind (`document_kind`): a full wait for their
        diagnostics got nothing, and none ever came for any of them."""
        return kind in self._waited_in_vain and kind not in self._kinds

    def waited_in_vain(self, kind: str) -> None:
        """A full wait for the diagnostics of a document of this kind got nothing."""
        self._waited_in_vain.add(kind)

    def entry(self, uri: str) -> _Entry | None:
        """The latest entry for `uri`."""
        return self._entries.get(uri)

    def by_path(self) -> dict[Path, tuple[DiagnosticInfo, ...]]:
        """Every file's diagnostics."""
        found: dict[Path, tuple[DiagnosticInfo, ...]] = {}
        for uri, entry in self._entries.items():
            path = to_fs_path(uri)
            if path is not None:
                found[Path(path)] = entry.diagnostics
        return found


class EditorDiagnosticsView:
    """Implements the tool EditorDiagnostics port over the store and the editor's open documents."""

    def __init__(
        self,
        store: DiagnosticsStore,
        fs: EditorFileSystem,
        enabled: Callable[[], bool],
        wait_seconds: float = WAIT_AFTER_WRITE_SECONDS,
        quiet_wait_seconds: float = WAIT_FOR_QUIET_KIND_SECONDS,
    ) -> None:
        self._store = store
        self._fs = fs
        self._enabled = enabled
        self._wait = wait_seconds
        self._quiet_wait = quiet_wait_seconds

    @property
    def available(self) -> bool:
        """Whether the client declared that it forwards diagnostics."""
        return self._enabled()

    def current(self, path: Path | None = None) -> Mapping[Path, tuple[DiagnosticInfo, ...]]:
        """The latest diagnostics of `path` (or of every file)."""
        everything = self._store.by_path()
        if path is None:
            return everything
        found = {p: items for p, items in everything.items() if p == path}
        if not found:
            entry = self._store.entry(path_to_uri(path))
            if entry is not None:
                found[path] = entry.diagnostics
        return found

    async def after_write(self, path: Path) -> tuple[DiagnosticInfo, ...] | None:
        """Wait (briefly) for the diagnostics of the document version just written; None when none came."""
        document = self._fs.open_document(path) if self.available else None
        if document is None:
            return None
        uri, version, serial = document.uri, document.version, self._store.serial

        def arrived() -> bool:
            entry = self._store.entry(uri)
            if entry is None:
                return False
            if entry.version is None or version is None:
                return entry.serial > serial  # unversioned: anything sent after the write
            return entry.version >= version

        kind = document_kind(uri)
        quiet = self._store.quiet_kind(kind)  # kept by the store: views are made per turn, what we learn is not
        if not await self._store.watch.wait_until(arrived, self._quiet_wait if quiet else self._wait):
            if not quiet:
                self._store.waited_in_vain(kind)
            return None
        entry = self._store.entry(uri)
        return entry.diagnostics if entry is not None else None
