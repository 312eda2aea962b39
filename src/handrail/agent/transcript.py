"""A session's transcript on disk: JSON Lines in its storage folder, so a restarted server can resume it.

Records are `{"type": "message", "message": {...}}`, appended as messages are
added, and `{"type": "reset"}` when the history was rewritten (compaction): the
messages after the last reset are the history. A user message can still grow
after it was written (tool results and the next prompt merge into it), so its
new blocks are appended as another user record; loading merges consecutive user
records again. A torn last line (the server died while writing) is skipped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from handrail.agent.session import content_blocks
from handrail.tools.execution import error_block

log = logging.getLogger(__name__)

TRANSCRIPT_NAME = "transcript.jsonl"
INTERRUPTED_NOTE = (
    "The server stopped before this tool call finished (handrail was restarted); "
    "it may or may not have run. Check its effects before relying on them."
)


def _line(record: dict[str, Any]) -> str:
    """One JSON line for `record`, always: text that is not valid Unicode is escaped, and a block that cannot
    be written at all (nested too deeply) is replaced by a note saying so, keeping its tool_use id."""
    for candidate in (record, _writable(record)):
        try:
            text = json.dumps(candidate, ensure_ascii=False, default=str)
        except (RecursionError, ValueError):
            continue
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # an unpaired surrogate: as an escape it is valid JSON and valid UTF-8
            text = json.dumps(candidate, default=str)
        return text + "\n"
    return json.dumps({"type": "note", "note": "a record could not be written"}) + "\n"


_UNSAVED = "(this block could not be saved: it is nested too deeply)"


def _writable_block(block: Any) -> Any:
    try:
        json.dumps(block, default=str)
    except (RecursionError, ValueError):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool_use":  # the ids keep the history's tool_use and tool_result pairs together
            return {"type": "tool_use", "id": str(block.get("id")), "name": str(block.get("name")), "input": {}}
        if kind == "tool_result":
            return {"type": "tool_result", "tool_use_id": str(block.get("tool_use_id")), "content": _UNSAVED,
                    "is_error": True}
        return {"type": "text", "text": _UNSAVED}
    return block


def _writable(record: dict[str, Any]) -> dict[str, Any]:
    """`record` with each message block that cannot be written as JSON replaced by a note."""
    message = record.get("message")
    if not isinstance(message, dict):
        return {"type": "note", "note": "a record could not be written"}
    blocks = [_writable_block(block) for block in content_blocks(message)]
    return {**record, "message": {"role": str(message.get("role")), "content": blocks}}


class Transcript:
    """Works out which records a session's history still needs on disk; the caller writes them (off the loop)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # the message dicts written, in order (held, not their id()s, which could be reused once freed)
        self._written: list[dict[str, Any]] = []
        self._last_blocks = 0  # how many blocks of the last written message are on disk
        self._rewrite = False

    def rewrite_at_next_save(self) -> None:
        """Start the file anew at the next save: what it holds is not the history (a load repaired it)."""
        self._rewrite = True

    def pending(self, messages: Sequence[dict[str, Any]]) -> tuple[bool, list[str]]:
        """(rewrite, lines): the lines that bring the file up to `messages`; rewrite means start the file anew."""
        written = len(self._written)
        rewrite = (
            self._rewrite
            or written > len(messages)
            or any(messages[i] is not self._written[i] for i in range(written))
        )
        lines: list[str] = []
        if rewrite:
            written = 0
            lines.append(_line({"type": "reset"}))
        elif written:
            last = messages[written - 1]
            extra = content_blocks(last)[self._last_blocks :]
            if extra:
                lines.append(_line({"type": "message", "message": {"role": last["role"], "content": extra}}))
        lines += [_line({"type": "message", "message": m}) for m in messages[written:]]
        self._written = list(messages)
        self._last_blocks = len(content_blocks(messages[-1])) if messages else 0
        self._rewrite = False
        return rewrite, lines

    def write(self, rewrite: bool, lines: Sequence[str]) -> None:
        """Append `lines` (or replace the file with them); blocking, so run it in a thread."""
        if not lines:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if rewrite:
                scratch = self.path.with_suffix(".tmp")
                scratch.write_text("".join(lines), encoding="utf-8")
                scratch.replace(self.path)
            else:
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write("".join(lines))
        except OSError as exc:
            log.warning("could not write the transcript %s: %s", self.path, exc)


def load_transcript(path: Path) -> list[dict[str, Any]]:
    """The history stored at `path` (empty if none), repaired so every tool_use is answered."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    messages: list[dict[str, Any]] = []
    for raw in text.splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            continue  # a torn line from a crash
        if not isinstance(record, dict):
            continue
        if record.get("type") == "reset":
            messages = []
            continue
        message = record.get("message")
        if record.get("type") != "message" or not isinstance(message, dict):
            continue
        if message.get("role") not in ("user", "assistant"):
            continue
        blocks = content_blocks(message)
        if messages and messages[-1]["role"] == message["role"] == "user":
            messages[-1]["content"] = [*messages[-1]["content"], *blocks]
        else:
            messages.append({"role": message["role"], "content": blocks})
    return repair_history(messages)


def repair_history(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Make a loaded history one the API accepts: it starts with a user message and every tool_use is answered."""
    while messages and messages[0]["role"] != "user":
        messages.pop(0)
    repaired: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        if repaired and repaired[-1]["role"] == message["role"]:
            if message["role"] == "user":
                repaired[-1]["content"] = [*repaired[-1]["content"], *message["content"]]
                continue
            # two assistant messages in a row: a record was lost; the API needs a user turn between them
            repaired.append({"role": "user", "content": [{"type": "text", "text": "(a message was lost here)"}]})
        repaired.append(message)
        uses = [b.get("id") for b in message["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
        if message["role"] != "assistant" or not uses:
            continue
        following = messages[i + 1] if i + 1 < len(messages) else None
        if following is None or following["role"] != "user":
            following = {"role": "user", "content": []}
            messages.insert(i + 1, following)
        results = [b for b in following["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
        others = [b for b in following["content"] if not (isinstance(b, dict) and b.get("type") == "tool_result")]
        answered = {b.get("tool_use_id") for b in results}
        missing = [error_block(str(u), INTERRUPTED_NOTE) for u in uses if u not in answered]
        following["content"] = [*[b for b in results if b.get("tool_use_id") in uses], *missing, *others]
    return [m for m in repaired if m["content"]]
