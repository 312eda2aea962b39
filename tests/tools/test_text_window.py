"""Windows of lines from files too large to load: what is shown, and that the reading stops at the window."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from handrail.tools.builtin.read import READ
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import BinaryFileError, read_disk
from handrail.tools.text_window import CHUNK_BYTES, read_window

from .support import run


def _big(path: Path, lines: int, width: int = 60) -> Path:
    with path.open("w") as handle:
        for n in range(1, lines + 1):
            handle.write(f"line {n:08} " + "x" * (width - 14) + "\n")
    return path


def test_the_reading_stops_at_the_window(tmp_path: Path) -> None:
    path = _big(tmp_path / "big.log", 400_000)  # 24 MB
    window = read_window(path, 1, 5)
    assert window.lines[0].startswith("line 00000001 ") and len(window.lines) == 5
    assert window.more and window.line_count is None
    assert window.bytes_read <= CHUNK_BYTES  # one chunk of a 24 MB file, not the file

    deep = read_window(path, 200_001, 3)
    assert [line[:13] for line in deep.lines] == ["line 00200001", "line 00200002", "line 00200003"]
    assert deep.bytes_read < path.stat().st_size // 2 + CHUNK_BYTES  # it went no further than the window


def test_the_end_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree")
    end = read_window(path, 2, 10)
    assert end.lines == ("two", "three") and not end.more and end.line_count == 3
    past = read_window(path, 7, 2)
    assert past.lines == () and past.line_count == 3
    path.write_bytes(b"a\nb\n")
    assert read_window(path, 5, 1).line_count == 2


def test_a_line_without_end_is_kept_only_as_far_as_it_is_shown(tmp_path: Path) -> None:
    path = tmp_path / "one-line.json"
    path.write_bytes(b"[" + b"1," * 3_000_000 + b"1]\r\nnext\n")
    window = read_window(path, 1, 2, line_limit=100)
    first, second = window.lines
    assert first.startswith("[1,1,") and first.endswith("[line truncated: 6000003 characters in total]")
    assert len(first) < 200 and second == "next"


def test_encodings_as_whole_reads_decide_them(tmp_path: Path) -> None:
    utf16 = tmp_path / "u16.txt"
    utf16.write_bytes(codecs.BOM_UTF16_LE + "héllo\nwörld\n".encode("utf-16-le"))
    assert read_window(utf16, 2, 1).lines == ("wörld",)
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café\nnaïve\n".encode("latin-1"))
    window = read_window(latin, 1, 2)
    assert window.lines == ("café", "naïve") and window.encoding == read_disk(latin).encoding == "latin-1"
    binary = tmp_path / "x.bin"
    binary.write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(BinaryFileError):
        read_window(binary, 1, 1)


async def test_read_shows_a_window_of_a_huge_file_and_records_it_lightly(
    ctx: ToolUseContext, tmp_path: Path
) -> None:
    path = _big(tmp_path / "huge.log", 200_000)  # 12 MB
    text = await run(READ, ctx, file_path=str(path), offset=3, limit=2)
    assert text.splitlines()[0] == f"     3\tline 00000003 {'x' * 46}"
    assert "Showing lines 3-4 of a 11.6 MB file" in text and "offset=5" in text
    record = ctx.file_state.get(path)
    assert record is not None and record.text is None and (record.offset, record.limit) == (3, 2)
    with pytest.raises(ToolError, match="exceeds the maximum size"):
        await run(READ, ctx, file_path=str(path))


def test_the_file_state_keeps_no_huge_text(tmp_path: Path) -> None:
    from handrail.tools.filesystem import FileSnapshot

    cache = FileStateCache(max_chars=1_000_000)
    huge = FileSnapshot(path=tmp_path / "huge.txt", text="y" * 5_000_000, source="buffer", version=3)
    cache.record(huge, offset=1, limit=10)
    record = cache.get(huge.path)
    assert record is not None and record.text is None and record.content_hash == huge.content_hash
    assert FileStateCache.matches(record, huge)
    assert not FileStateCache.matches(record, FileSnapshot(path=huge.path, text="y" * 4_999_999, source="buffer"))
    for n in range(8):  # 8 x 200 KB kept whole until the budget is spent; the oldest keep only their hash
        cache.record(FileSnapshot(path=tmp_path / f"f{n}.txt", text=str(n) * 200_000, source="disk"))
    kept = [cache.get(tmp_path / f"f{n}.txt") for n in range(8)]
    assert all(r is not None for r in kept)
    assert [r.text is not None for r in kept if r is not None] == [False] * 3 + [True] * 5
