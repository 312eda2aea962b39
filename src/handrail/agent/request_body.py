"""The JSON body of a streamed Messages API request, encoded by handrail rather than by the SDK.

`messages.create` deep-copies the whole request (every message and tool schema) to
look for files and SDK models before encoding it: about 1 ms per request for a
20-call conversation, growing with the history. Handrail's requests are plain JSON
values already, so the model client encodes them once and posts the bytes through
the same SDK client (its retries, errors and event stream stay the SDK's).

Prompt-cache breakpoints (at most four) go where a conversation's requests share
their prefix: the tool definitions (marked by the tool pool on its last built-in),
the system prompt, the newest message (a breakpoint that moves on with every
request) and the message that was newest one request ago. The API reads a cache
entry only within 20 blocks before a breakpoint, so after a response with many
tool calls (a tool_use and a tool_result each) the moving breakpoint alone would
find nothing; the one the previous request ended with is found where it was written.
The markers are added to copies while encoding: the history itself never carries them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

# as the SDK encodes bodies: compact, UTF-8, and no NaN (which is not JSON)
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode

CACHE_BREAKPOINT: Mapping[str, str] = {"type": "ephemeral"}
MAX_BREAKPOINTS = 4
# blocks the API refuses a cache_control on
_UNMARKABLE = ("thinking", "redacted_thinking")


def _markable(block: Any) -> bool:
    if not isinstance(block, dict) or block.get("type") in _UNMARKABLE:
        return False
    return block.get("type") != "text" or bool(block.get("text"))


def _marked_message(message: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A copy of `message` with a breakpoint on its last block that can carry one (None if none can)."""
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        return None
    for index in range(len(blocks) - 1, -1, -1):
        if _markable(blocks[index]):
            marked = [*blocks[:index], {**blocks[index], "cache_control": dict(CACHE_BREAKPOINT)}, *blocks[index + 1 :]]
            return {**message, "content": marked}
    return None


def count_breakpoints(tools: Sequence[Mapping[str, Any]]) -> int:
    """Breakpoints the tool definitions already carry."""
    return sum(1 for tool in tools if tool.get("cache_control"))


def with_breakpoints(messages: Sequence[Mapping[str, Any]], budget: int) -> list[Mapping[str, Any]]:
    """`messages` with breakpoints on the newest message and on the one newest a request ago (two messages
    earlier: an assistant answer and the user message that followed it), as far as `budget` allows."""
    marked = list(messages)
    for index in (len(marked) - 1, len(marked) - 3)[: max(0, budget)]:
        if index < 0:
            continue
        copy = _marked_message(marked[index])
        if copy is not None:
            marked[index] = copy
    return marked


class RequestBody:
    """Encodes request bodies; the tool definitions' JSON is kept while they stay equal (they rarely change)."""

    def __init__(self) -> None:
        self._tools: list[dict[str, Any]] = []
        self._tools_json = "[]"

    def _tools_text(self, tools: Sequence[dict[str, Any]]) -> str:
        if tools != self._tools:
            self._tools_json = _encode(list(tools))
            # compared against a deep copy of its own, so a schema changed in place is not missed
            self._tools = json.loads(self._tools_json)
        return self._tools_json

    def encode(
        self,
        *,
        model: str,
        max_tokens: int,
        system: str,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        thinking: Mapping[str, Any] | None = None,
        output_config: Mapping[str, Any] | None = None,
        cache: bool = True,
    ) -> bytes:
        """The body of a streamed request (tools left out when there are none, as the API allows).

        With `cache`, the system prompt and the last messages carry prompt-cache breakpoints (see the module's
        docstring); without, only what the tool definitions carry (a one-off request gains nothing from
        writing a cache entry, which costs a quarter more than plain input).
        """
        head: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
        budget = MAX_BREAKPOINTS - count_breakpoints(tools)
        if cache and system and budget > 0:
            head["system"] = [{"type": "text", "text": system, "cache_control": dict(CACHE_BREAKPOINT)}]
            budget -= 1
        else:
            head["system"] = system
        if thinking is not None:
            head["thinking"] = thinking
        if output_config:
            head["output_config"] = output_config
        head["stream"] = True
        sent = with_breakpoints(messages, budget) if cache else messages
        parts = [_encode(head)[:-1], ',"messages":', _encode(list(sent))]
        if tools:
            parts += [',"tools":', self._tools_text(tools)]
        parts.append("}")
        return "".join(parts).encode()
