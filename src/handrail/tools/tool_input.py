"""The bounds of a tool call's input: what the model may send before the call is a tool error.

An input nested thousands of levels deep, larger than any real call, holding numbers JSON has no
place for (NaN, Infinity) or text that is not valid Unicode would break whatever touches it next:
recursive validators, the JSON encoders of the next request and of the transcript, hooks. It is
turned away at the door, as an error for that one call; the turn goes on.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_INPUT_DEPTH = 64
"""Objects and arrays nested deeper than this (real tools' inputs nest a few levels)."""
MAX_INPUT_CHARS = 8 * 1024 * 1024
"""The longest input JSON text taken (a Write of a whole generated file is far below it)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def decode_tool_input(raw: str) -> tuple[dict[str, Any], str | None]:
    """The input a tool_use block's streamed JSON text holds: (value, None), or ({}, why it cannot be used)."""
    if len(raw) > MAX_INPUT_CHARS:
        return {}, too_long(len(raw))
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except RecursionError:
        return {}, f"the input is nested more than {MAX_INPUT_DEPTH} levels deep"
    except json.JSONDecodeError as exc:
        return {}, f"the input is not valid JSON ({exc})"
    except ValueError as exc:  # e.g. an integer longer than Python converts
        return {}, f"the input could not be read ({exc})"
    if not isinstance(value, dict):
        return {}, "the input is not a JSON object"
    problem = input_problem(value)
    return ({}, problem) if problem is not None else (value, None)


def too_long(size: int) -> str:
    """Why an input of `size` characters is refused."""
    return f"the input is {size} characters long, more than the {MAX_INPUT_CHARS} a tool call may take"


def input_problem(value: Any) -> str | None:
    """What makes an input unusable, or None: too deep, a non-finite number, text that is not valid Unicode,
    a value JSON has no type for. Walks the value without recursion."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_INPUT_DEPTH:
                return f"the input is nested more than {MAX_INPUT_DEPTH} levels deep"
            if isinstance(item, dict):
                for key, member in item.items():
                    if not isinstance(key, str):
                        return f"the input has a key of type {type(key).__name__}; JSON keys are strings"
                    if _SURROGATE.search(key):
                        return "the input has a key that is not valid Unicode (an unpaired surrogate)"
                    stack.append((member, depth + 1))
            else:
                stack.extend((member, depth + 1) for member in item)
        elif isinstance(item, str):
            if _SURROGATE.search(item):
                return "the input has text that is not valid Unicode (an unpaired surrogate)"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return "the input has a number JSON cannot carry (NaN or Infinity)"
        elif item is not None and not isinstance(item, bool | int):
            return f"the input has a value of type {type(item).__name__}, which JSON does not have"
    return None
