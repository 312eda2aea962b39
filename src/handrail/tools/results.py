"""Result-size handling: a result over a tool's limit is stored in a file and the model gets a preview."""

from __future__ import annotations

import asyncio
import math
import re
from pathlib import Path
from typing import Any

PREVIEW_CHARS = 2_000
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")


def result_text_length(block: dict[str, Any]) -> int:
    """How many characters of text a tool_result block carries."""
    content = block.get("content")
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(len(str(part.get("text", ""))) for part in content if isinstance(part, dict))
    return 0


def _text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(str(part.get("text", "")) for part in content or [] if isinstance(part, dict))


def _store(directory: Path, tool_use_id: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{_SAFE_NAME.sub('_', tool_use_id)}.txt"
    path.write_text(text, encoding="utf-8")
    return path


async def limit_result(block: dict[str, Any], limit: float, results_dir: Path | None) -> dict[str, Any]:
    """`block` itself when within `limit`; else a preview pointing at the stored full result.

    Image blocks are never stored; only text counts against the limit. Without a
    results directory the text is cut instead, saying how much was left out.
    """
    size = result_text_length(block)
    if math.isinf(limit) or size <= limit:
        return block
    text = _text(block)
    preview = text[: min(PREVIEW_CHARS, int(limit))]
    if results_dir is None:
        note = f"\n\n[Output truncated: {size - len(preview)} of {size} characters left out.]"
        return {**block, "content": preview + note}
    path = await asyncio.to_thread(_store, results_dir, str(block.get("tool_use_id", "result")), text)
    note = (
        f"\n\n[The full output ({size} characters) was too large to return and is saved at {path}. "
        "Read that file with offset/limit, or search it with Grep, to see the rest.]"
    )
    return {**block, "content": preview + note}
