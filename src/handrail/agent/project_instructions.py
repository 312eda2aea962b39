"""Project instructions: AGENTS.md, CLAUDE.md and .handrail/instructions.md, at the root and in subfolders.

The root's files go into the system prompt. A subfolder's files join the
conversation once, as a system reminder after the tool results of the first
calls that reach into that folder (Read, Edit, Glob, Grep... of a path there).
Every file is capped, and the cut is said where it happens.

Nobody asked to read these files, so each is read only when the permission rules would let
Read have it without asking: its real path (of what was opened, so a link swapped meanwhile
changes nothing) lies inside the working directories and no deny rule covers it. A repository
cannot put `CLAUDE.md -> ~/.ssh/id_rsa` or `sub/AGENTS.md -> /proc/self/environ` into the prompt.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from handrail.permissions.context import PermissionContext
from handrail.permissions.paths import absolute_text
from handrail.permissions.read_scope import ReadScope
from handrail.tools.execution import ToolUse, parse_input
from handrail.tools.protocol import Tool
from handrail.tools.registry import find_tool

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md", ".handrail/instructions.md")
MAX_FILE_CHARS = 20_000
MAX_TOTAL_CHARS = 40_000
MAX_READ_BYTES = 1 << 20  # no instruction file needs more; a bigger one is read this far


def _capped(text: str, limit: int, path: Path, whole: bool) -> str:
    if len(text) <= limit:
        return text
    total = f"{len(text)}" if whole else f"more than {len(text)}"
    return text[:limit] + f"\n[… cut: {limit} of {total} characters shown; Read {path} for the rest]"


def _opened_path(fd: int) -> str | None:
    """The real path of what `fd` is open on (None when the system cannot say)."""
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return target if target.startswith("/") and not target.endswith(" (deleted)") else None


def read_permitted(path: Path, scope: ReadScope) -> tuple[str, bool] | None:
    """The start of `path`'s text and whether that is all of it; None when the file may not be read
    without asking (see the module's docstring), is not a regular file, or cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO must not block the lookup
        with open(fd, "rb", closefd=True) as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            real = _opened_path(fd) or os.path.realpath(path)
            written = absolute_text(str(path))
            if not scope.allows((written,) if written == real else (written, real)):
                return None
            data = file.read(MAX_READ_BYTES + 1)
    except OSError:
        return None
    return data[:MAX_READ_BYTES].decode("utf-8", "replace"), len(data) <= MAX_READ_BYTES


def instruction_files(folder: Path) -> list[Path]:
    """The instruction files present in `folder`, in the fixed order."""
    return [folder / name for name in INSTRUCTION_FILES if (folder / name).is_file()]


def read_instructions(files: Sequence[Path], scope: ReadScope, budget: int = MAX_TOTAL_CHARS) -> list[tuple[Path, str]]:
    """Each file's text, capped per file and in total (blocking I/O; files `scope` does not allow,
    and unreadable ones, are skipped)."""
    texts: list[tuple[Path, str]] = []
    for path in files:
        read = read_permitted(path, scope)
        if read is None:
            continue
        if budget <= 0:
            texts.append((path, f"[not shown: the instructions are over {MAX_TOTAL_CHARS} characters; Read {path}]"))
            continue
        text, whole = read
        text = text.strip()
        if text:
            shown = _capped(text, min(MAX_FILE_CHARS, budget), path, whole)
            budget -= len(shown)
            texts.append((path, shown))
    return texts


def root_instructions(roots: Sequence[Path], context: PermissionContext) -> str:
    """The system-prompt section holding every workspace root's instructions ("" when there are none).

    Only what `context`'s rules let Read have without asking is read (blocking I/O).
    """
    files = [path for root in roots for path in instruction_files(root)]
    texts = read_instructions(files, ReadScope.of(context))
    if not texts:
        return ""
    parts = [f"Contents of {path} (project instructions; follow them):\n\n{text}" for path, text in texts]
    return "\n# Project instructions\n\n" + "\n\n".join(parts) + "\n"


def _folder_of(path: Path) -> Path:
    return path if path.is_dir() else path.parent


def _subfolders_between(root: Path, folder: Path) -> list[Path]:
    """The folders from just below `root` down to `folder` (empty when `folder` is not below `root`)."""
    try:
        relative = folder.relative_to(root)
    except ValueError:
        return []
    chain: list[Path] = []
    current = root
    for part in relative.parts:
        current = current / part
        chain.append(current)
    return chain


class NestedInstructions:
    """Finds the subfolder instructions a message's tool calls reached, each file once per conversation."""

    def __init__(
        self,
        roots: Sequence[Path],
        cwd: Path,
        tools: Sequence[Tool[Any]],
        shown: set[Path],
        context: Callable[[], PermissionContext],
    ) -> None:
        """`context` gives the permission context in force when a lookup starts."""
        self._roots = tuple(roots)
        self._cwd = cwd
        self._tools = tools
        self._shown = shown
        self._context = context

    def _touched(self, uses: Sequence[ToolUse]) -> list[Path]:
        paths: list[Path] = []
        for use in uses:
            tool = find_tool(self._tools, use.name)
            if tool is None or use.input_error is not None:
                continue
            try:
                paths.extend(tool.paths(parse_input(tool, use.input)))
            except (ValidationError, ValueError, TypeError):
                continue
        return [p if p.is_absolute() else self._cwd / p for p in paths]

    def _new_files(self, uses: Sequence[ToolUse], shown: frozenset[Path]) -> list[Path]:
        found: list[Path] = []
        for path in self._touched(uses):
            folder = _folder_of(path)
            for root in self._roots:
                for sub in _subfolders_between(root, folder):
                    found += [f for f in instruction_files(sub) if f not in shown and f not in found]
        return found

    def _look_up(
        self, uses: Sequence[ToolUse], shown: frozenset[Path], scope: ReadScope
    ) -> tuple[list[Path], list[tuple[Path, str]]]:
        """(the files found, their texts): blocking I/O, and no change to what was shown."""
        files = self._new_files(uses, shown)
        return files, read_instructions(files, scope)

    async def reminders(self, uses: Sequence[ToolUse]) -> list[dict[str, Any]]:
        """Reminder blocks for instruction files the calls reached and the conversation has not seen.

        The files are marked shown here, on the loop, once the lookup is done: a lookup that is
        cancelled (the agent loop may start one while the calls still run) marks nothing.
        """
        scope = ReadScope.of(self._context())
        files, texts = await asyncio.to_thread(self._look_up, uses, frozenset(self._shown), scope)
        fresh = {path for path in files if path not in self._shown}
        self._shown.update(fresh)
        return [
            {
                "type": "text",
                "text": f"<system-reminder>\nContents of {path} (instructions for work in {path.parent}; follow "
                f"them there):\n\n{text}\n</system-reminder>",
            }
            for path, text in texts
            if path in fresh
        ]
