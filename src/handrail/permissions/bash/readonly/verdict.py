"""The answer of the read-only checks: whether a command only reads, and the files it touches."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from handrail.permissions.bash.model import Direction, Word


@dataclass(frozen=True, slots=True)
class ReadOnly:
    """Whether a command only reads, the files it touches, and (for a recursive reader) whether it follows links."""

    read_only: bool
    paths: tuple[tuple[Word, Direction], ...] = ()
    why_not: str = ""
    follows_links: bool = False


NOT = ReadOnly(False, (), "not a known read-only command")
UNRESOLVED = ReadOnly(False, (), "an argument the analyser cannot resolve")
GLOB_OPTION = ReadOnly(False, (), "a glob could expand into an option")
HERE = Word(".", ".", "q")
"""The folder a recursive reader searches when it names none."""


def reads_files(files: Sequence[Word]) -> ReadOnly:
    """Read-only, reading `files` (`-` is the standard input); an unquoted glob among them could be an option."""
    if any(w.glob for w in files):
        return GLOB_OPTION
    return ReadOnly(True, tuple((w, "read") for w in files if w.text != "-"))
