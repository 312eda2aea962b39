"""Result-size handling: a result over a tool's limit is stored in a file and the model gets a preview."""

from __future__ import annotations

import asyncio
import math
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from handrail.tools.messages import ToolResultBlock

PREVIEW_CHARS = 2_000
# a stream's output is stored up to this many characters (a runaway command must not fill the disk)
MAX_STORED_CHARS = 64 * 1024 * 1024
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")


def result_path(directory: Path, tool_use_id: str, suffix: str = ".txt") -> Path:
    """Where the full result of a call is stored."""
    return directory / f"{_SAFE_NAME.sub('_', tool_use_id)}{suffix}"


def stored_note(path: Path, size: int) -> str:
    """What the model is told about a result stored in a file."""
    return (
        f"[The full output ({size} characters) was too large to return and is saved at {path}. "
        "Read that file with offset/limit, or search it with Grep, to see the rest.]"
    )


def result_text(block: Mapping[str, Any]) -> str:
    """The text a tool_result block carries (its text parts joined; images carry none)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return ""


def _store(directory: Path, tool_use_id: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = result_path(directory, tool_use_id)
    path.write_text(text, encoding="utf-8")
    return path


async def limit_result(block: ToolResultBlock, limit: float, results_dir: Path | None) -> ToolResultBlock:
    """`block` itself when within `limit`; else a preview pointing at the stored full result.

    Image blocks are never stored; only text counts against the limit. Without a
    results directory the text is cut instead, saying how much was left out.
    """
    text = result_text(block)
    size = len(text)
    if math.isinf(limit) or size <= limit:
        return block
    preview = text[: min(PREVIEW_CHARS, int(limit))]
    if results_dir is None:
        note = f"\n\n[Output truncated: {size - len(preview)} of {size} characters left out.]"
        return {**block, "content": preview + note}
    path = await asyncio.to_thread(_store, results_dir, str(block.get("tool_use_id", "result")), text)
    return {**block, "content": f"{preview}\n\n{stored_note(path, size)}"}


class OutputSpool:
    """A stream's text kept whole: in memory while it fits `limit`, then in the file `path`.

    Without a path, only the first `limit` characters are kept (and the rest counted). Its file is
    written as output arrives, in chunks of at most the pipe's read size, which the page cache takes
    at once; `MAX_STORED_CHARS` bounds it.
    """

    def __init__(self, limit: int, path: Path | None) -> None:
        self._limit = limit
        self.path = path
        self._memory: list[str] = []
        self._kept = 0
        self._file: IO[str] | None = None
        self.total = 0
        self.last = ""  # the stream's last character

    @property
    def spilled(self) -> bool:
        """Whether the text went to the file."""
        return self._file is not None

    def add(self, text: str) -> None:
        """Take the next piece of the stream."""
        self.total += len(text)
        self.last = text[-1:] or self.last
        if self._file is None and self._kept + len(text) > self._limit and self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("w", encoding="utf-8")
            self._file.write("".join(self._memory))
            self._memory = []
        room = (MAX_STORED_CHARS if self._file is not None else self._limit) - self._kept
        part = text[: max(room, 0)]
        self._kept += len(part)
        if self._file is not None:
            self._file.write(part)
        elif part:
            self._memory.append(part)

    def close(self) -> None:
        """Close the file (if the text went to one)."""
        if self._file is not None:
            self._file.close()

    def text(self) -> str:
        """The text kept in memory (all of it unless it spilled to the file or passed the limit)."""
        return "".join(self._memory)

    def copy_to(self, out: IO[str]) -> None:
        """Write the stream's kept text to `out`."""
        if self._file is None or self.path is None:
            out.write(self.text())
            return
        with self.path.open(encoding="utf-8") as stored:
            shutil.copyfileobj(stored, out)

    @property
    def cut(self) -> int:
        """Characters that were not kept."""
        return self.total - self._kept


def combined_output(out: OutputSpool, err: OutputSpool, limit: int, path: Path | None) -> str:
    """stdout, then stderr on its own line: whole within `limit`; else the whole text is stored at `path` and
    the model gets its beginning and end with the file's path (the first `limit` characters and a note
    without a path). Blocking: run it in a thread."""
    out.close()
    err.close()
    sep = "\n" if out.total and err.total and out.last != "\n" else ""
    total = out.total + len(sep) + err.total
    if total <= limit and not out.spilled and not err.spilled:
        return out.text() + sep + err.text()
    if path is None:
        head = (out.text() + sep + err.text())[:limit]
        return f"{head}\n\n[Output truncated: {total - len(head)} of {total} characters left out.]"
    with path.open("w", encoding="utf-8") as whole:
        out.copy_to(whole)
        whole.write(sep)
        err.copy_to(whole)
    for spool in (out, err):
        if spool.spilled and spool.path is not None and spool.path != path:
            spool.path.unlink(missing_ok=True)
    half = PREVIEW_CHARS // 2
    with path.open(encoding="utf-8") as stored:
        head = stored.read(half)
    with path.open("rb") as stored:
        stored.seek(max(0, path.stat().st_size - 4 * half))  # at most four bytes a character
        tail = stored.read().decode("utf-8", errors="replace")[-half:]
    cut = out.cut + err.cut
    capped = f" (only its first {MAX_STORED_CHARS} characters of each stream were kept)" if cut else ""
    return f"{head}\n\n... [the middle is in the file] ...\n\n{tail}\n\n{stored_note(path, total)}{capped}"
