"""FileStateCache: what the model has read, so edits can be checked against it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from handrail.permissions.paths import resolve
from handrail.tools.filesystem import FileSnapshot, text_hash

MAX_RECORD_CHARS = 256 * 1024
"""A read of a longer text is remembered by its hash only (an edit after a change cannot be re-anchored)."""
MAX_CACHED_CHARS = 16 * 1024 * 1024
"""Text kept across all records; beyond it the oldest records keep only their hash."""


@dataclass(frozen=True)
class ReadRecord:
    """One read: the text the model saw and how to recognise that text later.

    `partial` is true when the model saw only a range (offset/limit) of the file. `text` is None for a
    text too large to keep: `digest` is its hash then, and a window read from a file too large to load
    has neither (the file's modification time identifies what was read).
    """

    path: Path
    text: str | None
    version: int | None
    mtime_ns: int | None
    offset: int | None = None
    limit: int | None = None
    changed_externally: bool = False
    digest: str | None = None

    @cached_property
    def content_hash(self) -> str:
        """The hash of `text`, computed when first asked (an edit checks the file against it); empty
        when unknown."""
        return text_hash(self.text) if self.text is not None else self.digest or ""

    @property
    def partial(self) -> bool:
        """Whether the model saw only part of the file."""
        return self.offset is not None or self.limit is not None


class FileStateCache:
    """Per-session memory of files the model read or wrote, keyed by resolved path."""

    def __init__(self, max_entries: int = 500, max_chars: int = MAX_CACHED_CHARS) -> None:
        self._records: dict[Path, ReadRecord] = {}
        self._max_entries = max_entries
        self._max_chars = max_chars
        self._chars = 0  # text kept in all records

    def record(self, snapshot: FileSnapshot, *, offset: int | None = None, limit: int | None = None) -> None:
        """Remember that the model saw `snapshot` (whole, or the given range); a long text by its hash only."""
        large = len(snapshot.text) > MAX_RECORD_CHARS
        self._put(
            ReadRecord(
                path=resolve(snapshot.path),
                text=None if large else snapshot.text,
                version=snapshot.version,
                mtime_ns=snapshot.mtime_ns,
                offset=offset,
                limit=limit,
                digest=snapshot.content_hash if large else None,
            )
        )

    def record_window(self, path: Path, mtime_ns: int, *, offset: int, limit: int) -> None:
        """Remember that the model saw lines of a file too large to load, as it was at `mtime_ns`."""
        self._put(ReadRecord(path=resolve(path), text=None, version=None, mtime_ns=mtime_ns, offset=offset,
                             limit=limit))

    def _put(self, record: ReadRecord) -> None:
        self._drop(record.path)
        self._records[record.path] = record
        self._chars += len(record.text or "")
        while len(self._records) > self._max_entries:
            self._drop(next(iter(self._records)))
        for key, old in list(self._records.items()):
            if self._chars <= self._max_chars:
                break
            if old.text is not None and old is not record:  # the oldest keep only their hash
                self._records[key] = replace(old, text=None, digest=old.content_hash)
                self._chars -= len(old.text)

    def _drop(self, key: Path) -> None:
        old = self._records.pop(key, None)
        if old is not None:
            self._chars -= len(old.text or "")

    def get(self, path: Path) -> ReadRecord | None:
        """The last read of `path`, if any."""
        return self._records.get(resolve(path))

    def mark_changed(self, path: Path) -> None:
        """Note that something outside the agent changed `path` (a shell command the model ran)."""
        key = resolve(path)
        record = self._records.get(key)
        if record is not None and not record.changed_externally:
            self._records[key] = replace(record, changed_externally=True)

    def forget(self, path: Path) -> None:
        """Drop what is known of `path`."""
        self._drop(resolve(path))

    def paths(self) -> tuple[Path, ...]:
        """Every path with a record, oldest first."""
        return tuple(self._records)

    @staticmethod
    def matches(record: ReadRecord, snapshot: FileSnapshot) -> bool:
        """Whether `snapshot` still holds the content the model read.

        The texts are compared, not hashes of them: comparing is a memcmp, where hashing a
        large file on every Read cost milliseconds. A text too large to keep is compared by
        hash, a window of a file too large to load by the file's modification time.
        """
        if record.text is not None:
            return record.text == snapshot.text
        if record.digest is not None:
            return record.digest == snapshot.content_hash
        return record.mtime_ns is not None and record.mtime_ns == snapshot.mtime_ns and not snapshot.dirty
