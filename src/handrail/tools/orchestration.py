"""Which tool calls may run together, and running a whole message's calls.

Consecutive calls whose input parses and whose tool says the input is
concurrency-safe form one concurrent batch; every other call is a batch of one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from handrail.tools.context import ToolUseContext
from handrail.tools.execution import CallOutcome, ToolUse, parse_input
from handrail.tools.protocol import Tool
from handrail.tools.registry import find_tool

DEFAULT_MAX_CONCURRENCY = 10


def max_tool_concurrency(env: Mapping[str, str] | None = None) -> int:
    """`HANDRAIL_MAX_TOOL_CONCURRENCY`, default 10, at least 1."""
    raw = (os.environ if env is None else env).get("HANDRAIL_MAX_TOOL_CONCURRENCY", "")
    try:
        return max(1, int(raw)) if raw.strip() else DEFAULT_MAX_CONCURRENCY
    except ValueError:
        return DEFAULT_MAX_CONCURRENCY


def _tool_says(use: ToolUse, tools: Sequence[Tool[Any]], question: Callable[[Tool[Any], Any], bool]) -> bool:
    """`question(tool, parsed input)` for a call. Unknown tools, bad input or a raising check: no."""
    tool = find_tool(tools, use.name)
    if tool is None:
        return False
    try:
        return bool(question(tool, parse_input(tool, use.input)))
    except Exception:  # a validation error, or a tool's own check that raised
        return False


def is_safe_call(use: ToolUse, tools: Sequence[Tool[Any]]) -> bool:
    """Whether a call may run beside other safe calls. Unknown tools, bad input or a raising check: no."""
    return _tool_says(use, tools, lambda tool, value: tool.is_concurrency_safe(value))


def is_read_only_call(use: ToolUse, tools: Sequence[Tool[Any]]) -> bool:
    """Whether a call only reads. Unknown tools, bad input or a raising check: no."""
    return use.input_error is None and _tool_says(use, tools, lambda tool, value: tool.is_read_only(value))


@dataclass(frozen=True)
class Batch:
    """Calls that run together (`concurrent`) or one call alone."""

    concurrent: bool
    uses: tuple[ToolUse, ...]


def partition_tool_calls(uses: Sequence[ToolUse], tools: Sequence[Tool[Any]]) -> list[Batch]:
    """Split calls into batches: runs of safe calls together, every other call alone."""
    batches: list[Batch] = []
    for use in uses:
        safe = is_safe_call(use, tools)
        if safe and batches and batches[-1].concurrent:
            batches[-1] = Batch(True, (*batches[-1].uses, use))
        else:
            batches.append(Batch(safe, (use,)))
    return batches


async def run_tools(
    uses: Sequence[ToolUse],
    tools: Sequence[Tool[Any]],
    ctx: ToolUseContext,
    *,
    max_concurrency: int | None = None,
) -> list[CallOutcome]:
    """Run a message's calls batch by batch (the same schedule the streaming executor keeps) and return
    one outcome per call, in the model's order."""
    from handrail.tools.streaming_executor import StreamingToolExecutor

    executor = StreamingToolExecutor(tools, ctx, max_concurrency=max_concurrency)
    for use in uses:
        executor.add(use)
    executor.finish()
    return [outcome async for outcome in executor.results()]
