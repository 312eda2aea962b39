"""A window of lines from a text file too large to load: read in chunks, kept only where the window is.

Memory stays at one chunk plus the window, whatever the file's size: lines before the window are
only counted, each kept line is cut to what the model is shown, and the reading stops at the first
character after the window (so a file's tail is never read to show its head).
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from handrail.tools.filesystem import bom_encoding, check_latin1_head, check_text_head
from handrail.tools.text_ops import MAX_LINE_CHARS, cut_line

CHUNK_BYTES = 256 * 1024


@dataclass(frozen=True)
class TextWindow:
    """Lines `start..` of a file as shown (long lines cut), and what is known of the rest."""

    lines: tuple[str, ...]
    more: bool  # lines follow the window
    line_count: int | None  # the file's number of lines when the reading reached its end, else None
    encoding: str
    mtime_ns: int
    size: int
    bytes_read: int  # how far into the file the reading went


def read_window(path: Path, start: int, count: int, *, line_limit: int = MAX_LINE_CHARS) -> TextWindow:
    """Lines `start..start+count-1` (1-based) of the text file `path` (blocking; run it in a thread).

    Raises BinaryFileError for what is not text (as `decode_text` decides), OSError for what cannot be read.
    """
    with open(path, "rb") as handle:
        info = os.fstat(handle.fileno())
        head = handle.read(8192)
        handle.seek(0)
        encoding = bom_encoding(head)
        if encoding is not None:
            scan = _scan(handle, encoding, start, count, line_limit)
        else:
            check_text_head(head)
            try:
                scan = _scan(handle, "utf-8", start, count, line_limit)
            except UnicodeDecodeError:
                check_latin1_head(head)
                handle.seek(0)
                scan = _scan(handle, "latin-1", start, count, line_limit)
                encoding = "latin-1"
            else:
                encoding = "utf-8"
    lines, more, line_count, read = scan
    return TextWindow(tuple(lines), more, line_count, encoding, info.st_mtime_ns, info.st_size, read)


class _Line:
    """The line being read: its first characters (enough to show it), and its length."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.parts: list[str] = []
        self.kept = 0
        self.length = 0
        self.last = ""

    def add(self, piece: str) -> None:
        if not piece:
            return
        if self.kept < self.keep:
            part = piece[: self.keep - self.kept]
            self.parts.append(part)
            self.kept += len(part)
        self.length += len(piece)
        self.last = piece[-1]

    def shown(self, limit: int) -> str:
        text = "".join(self.parts)
        length = self.length
        if self.last == "\r":  # a CRLF line ending is not part of the line
            length -= 1
            text = text[:length]
        return cut_line(text, limit, total=length)


_Scan = tuple[list[str], bool, int | None, int]  # lines, more, line count, bytes read


def _scan(handle: BinaryIO, encoding: str, start: int, count: int, limit: int) -> _Scan:
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    first, end = max(start, 1), max(start, 1) + count  # the window is lines first..end-1
    number = 1  # the line being read
    started = False  # whether a line before the window has characters read so far
    lines: list[str] = []
    line = _Line(limit + 1)
    read = 0
    while True:
        chunk = handle.read(CHUNK_BYTES)
        read += len(chunk)
        text = decoder.decode(chunk, final=not chunk)
        pos = 0
        while pos < len(text):
            if number < first:  # before the window: count line breaks only
                breaks = text.count("\n", pos)
                if number + breaks < first:
                    number += breaks
                    started = not text.endswith("\n")
                    break
                while number < first:
                    pos = text.index("\n", pos) + 1
                    number += 1
                started = False
                continue
            if number >= end:
                return lines, True, None, read
            found = text.find("\n", pos)
            line.add(text[pos:] if found == -1 else text[pos:found])
            if found == -1:
                break
            lines.append(line.shown(limit))
            line = _Line(limit + 1)
            number += 1
            pos = found + 1
        if not chunk:
            break
    if line.length and first <= number < end:
        lines.append(line.shown(limit))
    unfinished = line.length > 0 or (number < first and started)  # a last line without a line break
    return lines, False, number if unfinished else number - 1, read
