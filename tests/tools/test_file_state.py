"""FileStateCache: what the model read."""

from __future__ import annotations

from pathlib import Path

from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import FileSnapshot


def _snap(path: Path, text: str) -> FileSnapshot:
    return FileSnapshot(path=path, text=text, source="disk", mtime_ns=1)


def test_record_and_match(tmp_path: Path) -> None:
    cache = FileStateCache()
    path = tmp_path / "a.txt"
    cache.record(_snap(path, "one"), offset=3, limit=10)
    record = cache.get(path)
    assert record is not None and record.partial
    assert cache.matches(record, _snap(path, "one"))
    assert not cache.matches(record, _snap(path, "two"))


def test_paths_are_resolved(tmp_path: Path) -> None:
    cache = FileStateCache()
    cache.record(_snap(tmp_path / "a.txt", "x"))
    assert cache.get(tmp_path / "sub" / ".." / "a.txt") is not None


def test_mark_changed_and_forget(tmp_path: Path) -> None:
    cache = FileStateCache()
    path = tmp_path / "a.txt"
    cache.record(_snap(path, "x"))
    cache.mark_changed(path)
    record = cache.get(path)
    assert record is not None and record.changed_externally
    cache.forget(path)
    assert cache.get(path) is None


def test_oldest_entries_are_evicted(tmp_path: Path) -> None:
    cache = FileStateCache(max_entries=2)
    for name in ("a", "b", "c"):
        cache.record(_snap(tmp_path / name, name))
    assert [p.name for p in cache.paths()] == ["b", "c"]
