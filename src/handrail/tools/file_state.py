"""FileStateCache: what the model has read, so edits can be checked against it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from handrail.permissions.paths import resolve
from handrail.tools.filesystem import FileSnapshot


@dataclass(frozen=True)
class ReadRecord:
    """One read: the text the model saw and how to recognise that text later.

    `partial` is true when the model saw only a range (offset/limit) of the file.
    """

    path: Path
    text: str
    version: int | None
    mtime_ns: int | None
    offset: int | None = None
    limit: int | None = None
    changed_externally: bool = False

    @property
    def partial(self) -> bool:
        """Whether the model saw only part of the file."""
        return self.offset is not None or self.limit is not None


class FileStateCache:
    """Per-session memory of files the model read or wrote, keyed by resolved path."""

    def __init__(self, max_entries: int = 500) -> None:
        self._records: dict[Path, ReadRecord] = {}
        self._max_entries = max_entries

    def record(self, snapshot: FileSnapshot, *, offset: int | None = None, limit: int | None = None) -> None:
        """Remember that the model saw `snapshot` (whole, or the given range)."""
        key = resolve(snapshot.path)
        self._records.pop(key, None)
        self._records[key] = ReadRecord(
            path=key,
            text=snapshot.text,
            version=snapshot.version,
            mtime_ns=snapshot.mtime_ns,
            offset=offset,
            limit=limit,
        )
        while len(self._records) > self._max_entries:
            self._records.pop(next(iter(self._records)))

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
        self._records.pop(resolve(path), None)

    def paths(self) -> tuple[Path, ...]:
        """Every path with a record, oldest first."""
        return tuple(self._records)

    @staticmethod
    def matches(record: ReadRecord, snapshot: FileSnapshot) -> bool:
        """Whether `snapshot` still holds the content the model read.

        The texts are compared, not hashes of them: comparing is a memcmp, where hashing a
        large file on every Read cost milliseconds.
        """
        return record.text == snapshot.text
