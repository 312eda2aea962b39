"""Which tool calls may run together, and which only read.

A call is safe when its input parses and its tool says that input is concurrency-safe; the streaming
executor runs consecutive safe calls together and every other call alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from handrail.tools.execution import ToolUse, parse_input
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
