"""LSP positions computed from Python string offsets, in the encoding the client negotiated.

Lines split only on `\\n`, `\\r\\n` and `\\r`, as LSP says; `str.splitlines` would also
split on form feeds and U+2028 and put edits in the wrong place.
"""

from __future__ import annotations

import re

from lsprotocol import types

LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""LSP's line breaks (and no others)."""


def _units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(text)
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


def position_at(text: str, offset: int, encoding: str = "utf-16") -> types.Position:
    """The LSP position of code-point `offset` in `text`."""
    line = 0
    line_start = 0
    for match in LINE_BREAK.finditer(text, 0, offset):
        if match.end() > offset:
            break
        line += 1
        line_start = match.end()
    return types.Position(line=line, character=_units(text[line_start:offset], encoding))


def minimal_change(old: str, new: str) -> tuple[int, int, str]:
    """The smallest single replacement turning `old` into `new`: (start, end, replacement).

    One replacement keeps the editor's undo to one step and leaves the user's
    cursor alone outside the changed region. Never splits a `\\r\\n` pair.
    """
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    if start > 0 and old[start - 1] == "\r" and old[start : start + 1] == "\n":
        start -= 1
    if end_old < len(old) and old[end_old - 1 : end_old] == "\r" and old[end_old] == "\n":
        end_old += 1
        end_new += 1
    return start, end_old, new[start:end_new]


def column_in_line(line: str, character: int, encoding: str) -> int:
    """The index in `line` (without its break) of a position counted in the client's units, clamped to the
    line; a position inside a character is before it."""
    if character <= 0:
        return 0
    if line.isascii() or encoding == types.PositionEncodingKind.Utf32:
        return min(character, len(line))
    units = 0
    for index, char in enumerate(line):
        code = ord(char)
        if encoding == types.PositionEncodingKind.Utf8:
            units += 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
        else:
            units += 2 if code >= 0x10000 else 1
        if units > character:
            return index
    return len(line)
