"""What a Grep call keeps of ripgrep's output: the part it can show, and counts of the rest.

ripgrep's output goes through these readers as it comes (`tools.ripgrep.stream_rg`), so memory
holds what can be shown and nothing else, however much matches. Files a deny rule covers are
dropped here, before anything of them is kept or counted.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

MAX_OUTPUT_CHARS = 50_000  # Grep's result limit: longer results would reach the model only as a preview
LINES_BUDGET = MAX_OUTPUT_CHARS - 1_000  # for the lines; the rest is room for the count and the notes
SEPARATOR = "--"  # ripgrep's line between groups of context lines

Visible = Callable[[str], bool] | None
"""Whether a listed file may be shown (see `ReadScope.listing_filter`); None: every file may."""


@dataclass
class LineWindow:
    """The lines that can be shown: from `offset` on, at most `limit` lines and `budget` characters.

    With `stops`, the window says it is full (`add` returns False) and the search can end; without,
    it goes on counting the lines it does not keep. `seen` counts the lines so far, `more` tells
    that some were left out at the end.
    """

    offset: int = 0
    limit: int | None = None
    budget: int = LINES_BUDGET
    stops: bool = True
    lines: list[str] = field(default_factory=list)
    seen: int = 0
    more: bool = False
    _chars: int = 0
    _separate: bool = False

    def separate(self) -> None:
        """Put a group separator before the next line, if any line came before it."""
        self._separate = True

    def add(self, line: str) -> bool:
        """Take the next line; False when the window is full and nothing more is needed."""
        if self._separate:
            self._separate = False
            if self.seen and not self._take(SEPARATOR):
                return False
        return self._take(line)

    def _take(self, line: str) -> bool:
        if self.seen >= self.offset and self._full(line):
            self.more = True
            if self.stops:
                return False
            self.seen += 1
            return True
        self.seen += 1
        if self.seen > self.offset:
            self.lines.append(line)
            self._chars += len(line) + 1
        return True

    def _full(self, line: str) -> bool:
        if self.limit is not None and len(self.lines) >= self.limit:
            return True
        return bool(self.lines) and self._chars + len(line) > self.budget


def _strip(record: bytes, prefix: bytes) -> bytes:
    return record[len(prefix) :] if prefix and record.startswith(prefix) else record


class _VisiblePaths:
    """`visible` asked once per file: ripgrep prints a file's lines together."""

    def __init__(self, visible: Visible) -> None:
        self._visible = visible
        self._last: bytes | None = None
        self._answer = True

    def __call__(self, path: bytes) -> bool:
        if self._visible is None:
            return True
        if path != self._last:
            self._last, self._answer = path, self._visible(os.fsdecode(path))
        return self._answer


class ContentReader:
    """Reads content-mode output into a window.

    ripgrep runs with `\\0` before its field separators (`content_fields`), so the path ends at the
    first NUL whatever characters it holds. `fields` is how many such separators a line has (the
    path's when ripgrep prints paths, the line number's); `strip` is taken off the front of paths.
    """

    def __init__(self, window: LineWindow, *, fields: int, paths: bool, visible: Visible, strip: bytes = b"") -> None:
        self._window = window
        self._fields = fields
        self._paths = paths
        self._visible = _VisiblePaths(visible)
        self._strip = strip

    def __call__(self, records: list[bytes]) -> bool:
        window = self._window
        for record in records:
            if record == b"--":
                window.separate()
                continue
            line = _strip(record, self._strip) if self._paths else record
            if self._paths:
                end = line.find(b"\0")
                if end >= 0 and not self._visible(line[:end]):
                    continue
            if not window.add(line.replace(b"\0", b"", self._fields).decode("utf-8", "replace")):
                return False
        return True


@dataclass
class MatchCounts:
    """Count mode: per-file counts in a window (never stopping early) and the totals of all files."""

    window: LineWindow
    matches: int = 0


class CountReader:
    """Reads count-mode output (`path\\0count` records) into `MatchCounts`."""

    def __init__(self, counts: MatchCounts, *, visible: Visible, strip: bytes = b"") -> None:
        self._counts = counts
        self._visible = _VisiblePaths(visible)
        self._strip = strip

    def __call__(self, records: list[bytes]) -> bool:
        counts = self._counts
        for record in records:
            path, _, number = _strip(record, self._strip).rpartition(b"\0")
            if not path or not number.isdigit() or not self._visible(path):
                continue
            counts.matches += int(number)
            counts.window.add(f"{path.decode('utf-8', 'replace')}:{int(number)}")
        return True


class PathReader:
    """Collects the paths of a small listing (`path\\0` records), `strip` taken off their front."""

    def __init__(self, strip: bytes = b"") -> None:
        self.paths: list[str] = []
        self._strip = strip

    def below(self, prefix: bytes) -> PathReader:
        """This reader, taking `prefix` off the paths it collects."""
        self._strip = prefix
        return self

    def __call__(self, records: list[bytes]) -> bool:
        self.paths += [_strip(record, self._strip).decode("utf-8", "replace") for record in records if record]
        return True


@dataclass(frozen=True)
class Shown:
    """What a Grep call shows: the lines, from which entry on, and how many there are (None: more, not counted)."""

    mode: str
    lines: list[str]
    start: int
    total: int | None
    matches: int = 0
    cut_by_limit: bool = False


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def fitting(lines: list[str], budget: int = LINES_BUDGET) -> list[str]:
    """The leading lines whose text, one per line, fits in `budget` characters (at least one)."""
    used = 0
    for index, line in enumerate(lines):
        used += len(line) + 1
        if used > budget and index:
            return lines[:index]
    return lines


def format_shown(shown: Shown) -> str:
    """The tool result text: the lines, with what tells the model how to see the rest."""
    lines, start = shown.lines, shown.start
    if shown.mode == "files_with_matches":
        assert shown.total is not None
        text = f"Found {_plural(shown.total, 'file')}\n" + "\n".join(lines)
        unit = "files"
    elif shown.mode == "count":
        assert shown.total is not None
        text = "\n".join(lines) + (
            f"\n\nFound {_plural(shown.matches, 'matching line')} across {_plural(shown.total, 'file')}."
        )
        unit = "entries"
    else:
        text = "\n".join(lines)
        unit = "lines"
    end = start + len(lines)
    if not lines:
        text = f"No results at offset {start}: there are {shown.total} {unit}."
    elif shown.total is None and shown.cut_by_limit:
        text += f"\n(Showing {unit} {start + 1}-{end}; more matched. To see more, call Grep again with offset={end}.)"
    elif shown.total is None:
        text += (
            f"\n(Output truncated: {unit} {start + 1}-{end} shown; more matched. "
            f"Narrow the search with path, glob, type or head_limit, or see more with offset={end}.)"
        )
    elif len(lines) < shown.total:
        text += f"\n(Showing {unit} {start + 1}-{end} of {shown.total}."
        text += f" To see more, call Grep again with offset={end}.)" if end < shown.total else ")"
    if len(text) > LINES_BUDGET + 500:  # one over-long line: the windows keep the rest within the budget
        text = text[:LINES_BUDGET] + (
            "\n(Output truncated: it was too long. Narrow the search with path, glob, type or head_limit.)"
        )
    return text
