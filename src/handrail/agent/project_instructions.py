"""Project instructions: AGENTS.md, CLAUDE.md and .handrail/instructions.md, at the root and in subfolders.

The root's files go into the system prompt. A subfolder's files join the
conversation once, as a system reminder after the tool results of the first
calls that reach into that folder (Read, Edit, Glob, Grep... of a path there).
Every file is capped, and the cut is said where it happens.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from handrail.tools.execution import ToolUse, parse_input
from handrail.tools.protocol import Tool
from handrail.tools.registry import find_tool

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md", ".handrail/instructions.md")
MAX_FILE_CHARS = 20_000
MAX_TOTAL_CHARS = 40_000


def _capped(text: str, limit: int, path: Path) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[… cut: {limit} of {len(text)} characters shown; Read {path} for the rest]"


def instruction_files(folder: Path) -> list[Path]:
    """The instruction files present in `folder`, in the fixed order."""
    return [folder / name for name in INSTRUCTION_FILES if (folder / name).is_file()]


def read_instructions(files: Sequence[Path], budget: int = MAX_TOTAL_CHARS) -> list[tuple[Path, str]]:
    """Each file's text, capped per file and in total (blocking I/O; unreadable files are skipped)."""
    texts: list[tuple[Path, str]] = []
    for path in files:
        if budget <= 0:
            texts.append((path, f"[not shown: the instructions are over {MAX_TOTAL_CHARS} characters; Read {path}]"))
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        if text:
            shown = _capped(text, min(MAX_FILE_CHARS, budget), path)
            budget -= len(shown)
            texts.append((path, shown))
    return texts


def root_instructions(roots: Sequence[Path]) -> str:
    """The system-prompt section holding every workspace root's instructions ("" when there are none)."""
    files = [path for root in roots for path in instruction_files(root)]
    texts = read_instructions(files)
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

    def __init__(self, roots: Sequence[Path], cwd: Path, tools: Sequence[Tool[Any]], shown: set[Path]) -> None:
        self._roots = tuple(roots)
        self._cwd = cwd
        self._tools = tools
        self._shown = shown

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

    def _look_up(self, uses: Sequence[ToolUse], shown: frozenset[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
        """(the files found, their texts): blocking I/O, and no change to what was shown."""
        files = self._new_files(uses, shown)
        return files, read_instructions(files)

    async def reminders(self, uses: Sequence[ToolUse]) -> list[dict[str, Any]]:
        """Reminder blocks for instruction files the calls reached and the conversation has not seen.

        The files are marked shown here, on the loop, once the lookup is done: a lookup that is
        cancelled (the agent loop may start one while the calls still run) marks nothing.
        """
        files, texts = await asyncio.to_thread(self._look_up, uses, frozenset(self._shown))
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
