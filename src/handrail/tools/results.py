"""Result-size handling: a result over a tool's limit is stored in a file and the model gets a preview."""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

PREVIEW_CHARS = 2_000
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")


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
    path = directory / f"{_SAFE_NAME.sub('_', tool_use_id)}.txt"
    path.write_text(text, encoding="utf-8")
    return path


async def limit_result(block: dict[str, Any], limit: float, results_dir: Path | None) -> dict[str, Any]:
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
    note = (
        f"\n\n[The full output ({size} characters) was too large to return and is saved at {path}. "
        "Read that file with offset/limit, or search it with Grep, to see the rest.]"
    )
    return {**block, "content": preview + note}
