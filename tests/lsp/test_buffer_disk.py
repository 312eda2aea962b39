"""BufferDiskCache: a buffer's dirtiness is re-read from disk exactly when the buffer or the file changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from handrail.lsp import buffer_disk
from handrail.lsp.buffer_disk import BufferDiskCache
from handrail.tools.filesystem import read_disk

OLD = 1_600_000_000_000_000_000  # a settled mtime (2020)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    seen: list[Path] = []

    def counting(path: Path) -> object:
        seen.append(path)
        return read_disk(path)

    monkeypatch.setattr(buffer_disk, "read_disk", counting)
    return seen


def _write(path: Path, text: str, mtime_ns: int = OLD) -> None:
    path.write_text(text)
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_unchanged_buffer_and_file_are_read_once(tmp_path: Path, reads: list[Path]) -> None:
    path = tmp_path / "a.txt"
    _write(path, "same\n")
    cache, text = BufferDiskCache(), "same\n"
    assert not cache.view("u", path, text).dirty
    assert not cache.view("u", path, text).dirty
    assert len(reads) == 1


def test_a_changed_buffer_or_file_is_read_again(tmp_path: Path, reads: list[Path]) -> None:
    path = tmp_path / "a.txt"
    _write(path, "one\n")
    cache = BufferDiskCache()
    assert not cache.view("u", path, "one\n").dirty
    assert cache.view("u", path, "".join(["tw", "o\n"])).dirty  # a new buffer text
    _write(path, "two\n", OLD + 1)
    assert not cache.view("u", path, "two\n").dirty  # the file changed too
    path.unlink()
    assert cache.view("u", path, "two\n").dirty
    assert len(reads) == 3


def test_a_file_written_just_now_is_not_remembered(tmp_path: Path, reads: list[Path]) -> None:
    path = tmp_path / "a.txt"
    path.write_text("fresh\n")
    cache, text = BufferDiskCache(), "fresh\n"
    cache.view("u", path, text)
    cache.view("u", path, text)
    assert len(reads) == 2
