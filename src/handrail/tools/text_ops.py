"""Pure string operations shared by the file tools: line endings, edits, diffs, numbered snippets.

Everything here works on text only; nothing touches files or the editor.
Line numbers are 1-based and count `\\n`-separated lines of LF-normalised text.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from handrail.errors import HandrailError

LineEnding = Literal["\n", "\r\n"]

MAX_LINE_CHARS = 2000
"""Lines longer than this are cut when shown to the model."""


class EditError(HandrailError, ValueError):
    """An edit that cannot be applied; the message is written for the model."""


class StringNotFoundError(EditError):
    """`old_string` does not occur in the text."""


class AmbiguousEditError(EditError):
    """`old_string` occurs more than once and `replace_all` was not asked for."""

    def __init__(self, message: str, lines: tuple[int, ...]) -> None:
        super().__init__(message)
        self.lines = lines


# ---------------------------------------------------------------- line endings


def detect_line_ending(text: str) -> LineEnding:
    """The line ending most lines of `text` use (LF when there are no line breaks)."""
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    return "\r\n" if crlf > lf else "\n"


def to_lf(text: str) -> str:
    """`text` with every CRLF turned into LF."""
    return text.replace("\r\n", "\n")


def with_line_ending(text: str, ending: LineEnding) -> str:
    """`text` with its line breaks written as `ending`."""
    lf = to_lf(text)
    return lf if ending == "\n" else lf.replace("\n", "\r\n")


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their line breaks; a final line break does not start a new line."""
    if not text:
        return []
    lines = to_lf(text).split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


_CHUNK = 1 << 15


def line_window(text: str, start: int, count: int) -> tuple[list[str], int]:
    """Lines `start..start+count-1` (1-based) of `text` without their line breaks, and how many lines it has.

    One pass counts line breaks chunk by chunk (at C speed); the chunk counts then lead
    straight to the window, so the cost does not depend on where in the text the window is.
    """
    counts = [text.count("\n", pos, pos + _CHUNK) for pos in range(0, len(text), _CHUNK)]
    total = sum(counts) + (1 if text and not text.endswith("\n") else 0)
    first = max(start, 1) - 1
    end = min(first + count, total)
    if first >= end:
        return [], total
    window = text[_line_offset(text, counts, first) : _line_offset(text, counts, end)]
    lines = window.split("\n")
    if window.endswith("\n"):
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines], total


def _line_offset(text: str, counts: list[int], index: int) -> int:
    """Where 0-based line `index` starts in `text` (its length when there is no such line)."""
    remaining = index
    for chunk, found in enumerate(counts):
        if remaining <= found:
            position = chunk * _CHUNK
            for _ in range(remaining):
                position = text.find("\n", position) + 1
            return position
        remaining -= found
    return len(text)


def line_at(text: str, offset: int) -> int:
    """The 1-based line number of character `offset` in LF text."""
    return text.count("\n", 0, offset) + 1


# ---------------------------------------------------------------- edits

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def straighten_quotes(text: str) -> str:
    """`text` with curly quotes replaced by straight ones (same length, so offsets carry over)."""
    return text.translate(_QUOTES)


def curl_quotes_like(model: str, text: str) -> str:
    """`text` with straight quotes made curly, for the kinds of quote `model` writes curly."""
    double = "\u201c" in model or "\u201d" in model
    single = "\u2018" in model or "\u2019" in model
    out: list[str] = []
    for index, char in enumerate(text):
        before = text[index - 1] if index else ""
        opening = before == "" or before.isspace() or before in "([{-—"
        if char == '"' and double:
            out.append("\u201c" if opening else "\u201d")
        elif char == "'" and single:
            out.append("\u2018" if opening else "\u2019")
        else:
            out.append(char)
    return "".join(out)


def find_all(text: str, needle: str) -> list[int]:
    """Offsets of the non-overlapping occurrences of `needle`, as `str.replace` would see them."""
    found: list[int] = []
    start = text.find(needle)
    while start != -1 and needle:
        found.append(start)
        start = text.find(needle, start + len(needle))
    return found


@dataclass(frozen=True)
class AppliedEdit:
    """The result of `apply_edit`: the new text and where the change landed in it."""

    text: str
    count: int
    first_line: int
    last_line: int
    matched: str
    """The text that was replaced (differs from `old_string` when the quote fallback was used)."""
    offsets: tuple[int, ...]
    """Offsets of the replaced occurrences in the original text."""
    quotes_fallback: bool = False
    """Whether `old` only matched once curly quotes were treated as straight ones."""
    inserted: str = ""
    """The text put in place of each occurrence (differs from `new_string` when quotes were curled)."""


def locate(text: str, old: str) -> tuple[str, list[int]]:
    """Find `old` in `text`: exactly, else with curly quotes treated as straight ones.

    Returns the string as it occurs in `text` and the offsets of its occurrences.
    """
    offsets = find_all(text, old)
    if offsets:
        return old, offsets
    straight_text = straighten_quotes(text)
    straight_old = straighten_quotes(old)
    fallback = find_all(straight_text, straight_old)
    if not fallback:
        return old, []
    # Each curly quote maps to one straight quote, so offsets in both texts agree; use the
    # first occurrence's real spelling and require every occurrence to be spelt the same.
    actual = text[fallback[0] : fallback[0] + len(old)]
    return actual, find_all(text, actual)


def apply_edit(text: str, old: str, new: str, *, replace_all: bool = False) -> AppliedEdit:
    """Replace `old` by `new` in LF `text` (all occurrences when `replace_all`).

    `old` must occur, and exactly once unless `replace_all`; `old == ""` is only
    allowed for text that is empty or blank, and then makes the text `new`.
    Raises `EditError` (with a message for the model) otherwise.
    """
    if old == new:
        raise EditError("No changes to make: old_string and new_string are exactly the same.")
    if old == "":
        if text.strip():
            raise EditError("Cannot use an empty old_string on a file that has content: it would overwrite it.")
        return AppliedEdit(new, 1, 1, max(1, len(split_lines(new))), text, (0,), inserted=new)
    matched, offsets = locate(text, old)
    if not offsets:
        raise StringNotFoundError(f"String to replace not found in file.\nString: {old}")
    if len(offsets) > 1 and not replace_all:
        lines = tuple(line_at(text, o) for o in offsets)
        raise AmbiguousEditError(
            f"Found {len(offsets)} matches of the string to replace, but replace_all is false "
            f"(at lines {', '.join(map(str, lines))}). To replace all occurrences, set replace_all to true. "
            "To replace only one occurrence, please provide more context to uniquely identify the instance.\n"
            f"Matches (the line where each starts):\n{candidate_lines(text, lines)}\n"
            f"String: {old}",
            lines,
        )
    if matched != old:
        new = curl_quotes_like(matched, new)
    new_text = text.replace(matched, new)
    # Where the replacements sit in the new text: each earlier replacement shifted later ones.
    shift = len(new) - len(matched)
    first_offset = offsets[0]
    last_offset = offsets[-1] + shift * (len(offsets) - 1)
    first_line = line_at(new_text, first_offset)
    last_line = line_at(new_text, last_offset + max(len(new) - 1, 0))
    return AppliedEdit(
        new_text, len(offsets), first_line, last_line, matched, tuple(offsets), matched != old, inserted=new
    )


def touched_lines(text: str, offsets: tuple[int, ...], length: int) -> list[tuple[int, int]]:
    """For each occurrence at `offsets` (ascending) of a string of `length` chars, its first and last 0-based line.

    One pass over the text, however many occurrences there are.
    """
    spans: list[tuple[int, int]] = []
    line = 0
    position = 0
    for offset in offsets:
        line += text.count("\n", position, offset)
        last = line + text.count("\n", offset, offset + max(length - 1, 0))
        spans.append((line, last))
        position = offset
    return spans


# ---------------------------------------------------------------- changes between two texts


@dataclass(frozen=True)
class LineChange:
    """One changed region between two texts, as 0-based half-open line ranges."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int

    def describe(self) -> str:
        """Words for the region, in 1-based line numbers of the new text."""
        if self.new_start == self.new_end:
            return f"lines removed after line {self.new_start}" if self.new_start else "lines removed at the start"
        if self.new_end - self.new_start == 1:
            return f"line {self.new_start + 1}"
        return f"lines {self.new_start + 1}-{self.new_end}"


def line_changes(old: str, new: str) -> list[LineChange]:
    """The regions where `new` differs from `old`, line by line."""
    matcher = difflib.SequenceMatcher(None, split_lines(old), split_lines(new), autojunk=False)
    return [LineChange(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def overlaps(change: LineChange, first: int, last: int) -> bool:
    """Whether a change touches the 0-based inclusive line span `first..last` of the new text."""
    if change.new_start == change.new_end:
        # Pure deletion: the lines vanished between new_start-1 and new_start.
        return first < change.new_start <= last
    return change.new_start <= last and first <= change.new_end - 1


# ---------------------------------------------------------------- several edits in a row


@dataclass(frozen=True)
class EditSpec:
    """One requested replacement: `old` by `new`, every occurrence when `replace_all`."""

    old: str
    new: str
    replace_all: bool = False


class EditStepError(EditError):
    """Edit number `index` (0-based) of a sequence could not be applied; `cause` says why."""

    def __init__(self, index: int, cause: EditError) -> None:
        super().__init__(str(cause))
        self.index = index
        self.cause = cause


class EditOverlapError(EditError):
    """The lines an edit would change were changed by someone else since the model read them."""


@dataclass(frozen=True)
class AppliedEdits:
    """The result of `apply_edits`: the final text, each step, and where each step's change is in the final text."""

    text: str
    steps: tuple[AppliedEdit, ...]
    spans: tuple[tuple[int, int], ...]
    """For each step, the first and last 1-based line of the final text its change covers."""


def apply_edits(text: str, edits: Sequence[EditSpec], *, changed: Sequence[LineChange] = ()) -> AppliedEdits:
    """Apply `edits` in order, each to the result of the previous one; all of them or none.

    `changed` are the regions of `text` that changed since the model read it (as `line_changes`
    gives them, `new_*` in lines of `text`): an edit touching one of them raises `EditOverlapError`.
    A step whose `old` occurs inside the `new` of an earlier replacing step is refused, since it
    would edit text the model just wrote rather than the file it read. Raises `EditStepError` naming the step.
    """
    steps: list[AppliedEdit] = []
    spans: list[tuple[int, int]] = []
    regions = list(changed)
    for index, edit in enumerate(edits):
        try:
            # (The content of a file created by an empty `old` is of course there to be edited.)
            if edit.old and any(earlier.old and edit.old in earlier.new for earlier in edits[:index]):
                raise EditError(
                    "old_string is a substring of the new_string of an earlier edit in this call; make it "
                    "specific to the text as it was read."
                )
            applied = apply_edit(text, edit.old, edit.new, replace_all=edit.replace_all)
            touched = touched_lines(text, applied.offsets, len(applied.matched)) if edit.old else []
            if regions and touched:
                if any(overlaps(region, first, last) for region in regions for first, last in touched):
                    raise EditOverlapError("The lines you are editing were changed since your read.")
                regions = _shift_regions(regions, touched, applied)
        except EditError as exc:
            raise EditStepError(index, exc) from exc
        delta = applied.inserted.count("\n") - applied.matched.count("\n")
        if delta and touched:
            # Earlier steps' changes below this step's occurrences move by `delta` lines per occurrence.
            spans = [
                (first + shift, last + shift)
                for first, last in spans
                for shift in [delta * sum(1 for _, end in touched if end < first - 1)]
            ]
        spans.append((applied.first_line, applied.last_line))
        steps.append(applied)
        text = applied.text
    return AppliedEdits(text, tuple(steps), tuple(spans))


def _shift_regions(regions: list[LineChange], spans: list[tuple[int, int]], applied: AppliedEdit) -> list[LineChange]:
    """`regions` (clear of `spans`) in lines of the text after `applied`."""
    # Every occurrence is the same string replaced by the same string, so each shifts later lines equally.
    delta = applied.inserted.count("\n") - applied.matched.count("\n")
    if delta == 0:
        return regions
    shifted: list[LineChange] = []
    for region in regions:
        shift = delta * sum(1 for _, last in spans if last < region.new_start)
        shifted.append(replace(region, new_start=region.new_start + shift, new_end=region.new_end + shift))
    return shifted


def candidate_lines(text: str, lines: Sequence[int], *, limit: int = 10) -> str:
    """The 1-based `lines` of `text`, numbered like Read (at most `limit` of them, then a count)."""
    all_lines = to_lf(text).split("\n")
    shown = [f"{n:>6}\t{cut_line(all_lines[n - 1], 200)}" for n in lines[:limit] if 0 < n <= len(all_lines)]
    if len(lines) > limit:
        shown.append(f"  (and {len(lines) - limit} more)")
    return "\n".join(shown)


# ---------------------------------------------------------------- display


def cut_line(line: str, limit: int = MAX_LINE_CHARS, *, total: int | None = None) -> str:
    """`line`, cut at `limit` characters with a marker saying so; `total` is its whole length when `line`
    holds only its start (a line read in part)."""
    length = len(line) if total is None else total
    if length <= limit:
        return line
    return f"{line[:limit]}… [line truncated: {length} characters in total]"


def numbered(lines: Sequence[str], start: int, *, cut: bool = True) -> str:
    """Lines numbered like `cat -n`: the number right-aligned in 6 columns, a tab, the text (cut to
    MAX_LINE_CHARS unless `cut` is False: lines cut already)."""
    return "\n".join(f"{n:>6}\t{cut_line(line) if cut else line}" for n, line in enumerate(lines, start))


def snippet(text: str, first_line: int, last_line: int, *, context: int = 4, max_lines: int = 40) -> str:
    """Lines `first_line..last_line` of `text` with `context` lines around, numbered like Read."""
    lines = split_lines(text)
    if not lines:
        return ""
    start = max(1, first_line - context)
    end = min(len(lines), last_line + context, start + max_lines - 1)
    return numbered(lines[start - 1 : end], start)


def unified_diff(old: str, new: str, *, old_label: str, new_label: str, context: int = 3) -> str:
    """A unified diff of two texts (compared as LF text), with the given header labels."""
    old_lines = _diff_lines(old)
    new_lines = _diff_lines(new)
    return "".join(difflib.unified_diff(old_lines, new_lines, old_label, new_label, n=context))


def _diff_lines(text: str) -> list[str]:
    # Split only on "\n" (not `splitlines`) so diff lines agree with `split_lines`.
    lines = _split_keep_lf(to_lf(text)) if text else []
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def _split_keep_lf(text: str) -> list[str]:
    parts = text.split("\n")
    out = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def diff_label(path: str, prefix: str) -> str:
    """A diff header for `path`: `a/rel/path` for relative paths, the absolute path as it is otherwise."""
    return path if path.startswith("/") else f"{prefix}/{path}"


def cap_middle(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters, keeping its head and tail around a marker."""
    if len(text) <= limit:
        return text
    half = limit // 2
    omitted = len(text) - 2 * half
    return f"{text[:half]}\n\n... [{omitted} characters omitted] ...\n\n{text[-half:]}"
