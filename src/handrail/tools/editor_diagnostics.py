"""The editor's diagnostics as tools see them: the port, and the note an edit's result gets about new errors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

SEVERITY_NAMES = {1: "error", 2: "warning", 3: "info", 4: "hint"}
_MOST_IN_NOTE = 10


@dataclass(frozen=True)
class DiagnosticInfo:
    """One diagnostic: 0-based lines, LSP severity (1 error … 4 hint), its message and who reported it."""

    line: int
    character: int
    end_line: int
    severity: int
    message: str
    source: str | None = None
    code: str | None = None

    def describe(self) -> str:
        """`line:col severity: message [source code]`, with 1-based positions."""
        origin = " ".join(part for part in (self.source, self.code) if part)
        suffix = f" [{origin}]" if origin else ""
        kind = SEVERITY_NAMES.get(self.severity, "error")
        return f"{self.line + 1}:{self.character + 1} {kind}: {self.message}{suffix}"

    def same_problem(self, other: DiagnosticInfo) -> bool:
        """Whether both report the same problem (wherever lines moved to)."""
        return (self.message, self.source, self.code, self.severity) == (
            other.message,
            other.source,
            other.code,
            other.severity,
        )


class EditorDiagnostics(Protocol):
    """What the editor's language servers report, forwarded by the client."""

    @property
    def available(self) -> bool:
        """Whether the client forwards its diagnostics at all."""
        ...

    def current(self, path: Path | None = None) -> Mapping[Path, tuple[DiagnosticInfo, ...]]:
        """The latest diagnostics of `path` (or of every file), by file."""
        ...

    async def after_write(self, path: Path) -> tuple[DiagnosticInfo, ...] | None:
        """The diagnostics for the version of `path` just written; None when none came in time."""
        ...


class NoDiagnostics:
    """An EditorDiagnostics for contexts without an editor."""

    @property
    def available(self) -> bool:
        """Never."""
        return False

    def current(self, path: Path | None = None) -> Mapping[Path, tuple[DiagnosticInfo, ...]]:
        """Nothing."""
        return {}

    async def after_write(self, path: Path) -> tuple[DiagnosticInfo, ...] | None:
        """Nothing."""
        return None


def changed_lines(old: str, new: str) -> tuple[tuple[int, int], ...]:
    """The 0-based line ranges [first, last] of `new` that differ from `old` (a deletion marks the line after it)."""
    from handrail.tools.text_ops import line_changes  # loads with the first write, not with the server

    return tuple((change.new_start, max(change.new_start, change.new_end - 1)) for change in line_changes(old, new))


def new_errors(
    before: Sequence[DiagnosticInfo], after: Sequence[DiagnosticInfo], changed: Sequence[tuple[int, int]]
) -> list[DiagnosticInfo]:
    """Errors of `after` that touch a changed line and were not reported before the change."""
    found = []
    for diagnostic in after:
        if diagnostic.severity != 1:
            continue
        touches = any(diagnostic.line <= last and diagnostic.end_line >= first for first, last in changed)
        if touches and not any(diagnostic.same_problem(old) for old in before):
            found.append(diagnostic)
    return found


async def write_diagnostics_note(
    diagnostics: EditorDiagnostics, path: Path, old_text: str, new_text: str, before: Sequence[DiagnosticInfo]
) -> str:
    """A note on the errors the editor reports in the lines just changed (empty when none, or none came)."""
    if not diagnostics.available:
        return ""
    after = await diagnostics.after_write(path)
    if after is None:
        return ""
    errors = new_errors(before, after, changed_lines(old_text, new_text))
    if not errors:
        return ""
    lines = [f"The editor reports {len(errors)} new error(s) in the lines just changed:"]
    lines += [f"  {error.describe()}" for error in errors[:_MOST_IN_NOTE]]
    if len(errors) > _MOST_IN_NOTE:
        lines.append(f"  … and {len(errors) - _MOST_IN_NOTE} more (see the Diagnostics tool)")
    return "\n".join(lines)
