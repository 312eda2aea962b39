"""One assistant message built from the Messages API's raw stream events, as API dicts.

The model client reads the SDK's raw event stream (`messages.create(stream=True)`)
rather than its `messages.stream()` helper: the helper re-parses a tool input's
whole JSON text on every delta and rebuilds a snapshot model per event, which cost
about 1 ms per response, while the loop needs only the finished blocks and each
tool call's input, parsed once, strictly, when its block completes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from handrail.tools.execution import ToolUse

# blocks whose input arrives as input_json_delta pieces
_INPUT_BLOCKS = ("tool_use", "server_tool_use")
_USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def strict_tool_use(block_id: str, name: str, raw: str) -> ToolUse:
    """A tool_use whose input is parsed strictly from the streamed JSON text."""
    try:
        value = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        return ToolUse(block_id, name, {}, input_error=str(exc))
    if not isinstance(value, dict):
        return ToolUse(block_id, name, {}, input_error="the input is not a JSON object")
    return ToolUse(block_id, name, value)


def as_param(block: dict[str, Any]) -> dict[str, Any]:
    """A response block in the shape the API accepts back in the history."""
    if block.get("type") == "text":
        return {"type": "text", "text": block.get("text", "")}
    if block.get("type") == "tool_use":
        return {"type": "tool_use", "id": block["id"], "name": block["name"], "input": block.get("input", {})}
    return block


def _dump(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json", exclude_none=True)
    return dumped


class MessageBuilder:
    """Feeds on raw stream events; tells text deltas and completed tool calls as they come."""

    def __init__(self, on_text: Callable[[str], None], on_tool_use: Callable[[ToolUse], None]) -> None:
        self._on_text = on_text
        self._on_tool_use = on_tool_use
        self.started = False
        self._blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, list[str]] = {}
        self.stop_reason: str | None = None
        self.usage = dict.fromkeys(_USAGE_FIELDS, 0)

    def feed(self, event: Any) -> None:
        """Take one raw event (an SDK `RawMessageStreamEvent`); unknown kinds are ignored, as the API asks."""
        kind = event.type
        if kind == "content_block_delta":
            self._delta(event.index, event.delta)
        elif kind == "content_block_start":
            self._blocks[event.index] = _dump(event.content_block)
        elif kind == "content_block_stop":
            self._stop(event.index)
        elif kind == "message_start":
            self.started = True
            self._take_usage(event.message.usage)
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason
            self._take_usage(event.usage)

    def _delta(self, index: int, delta: Any) -> None:
        block = self._blocks.get(index)
        if block is None:
            raise ValueError(f"a delta for content block {index}, which never started")
        kind = delta.type
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta.text
            self._on_text(delta.text)
        elif kind == "input_json_delta":
            self._json.setdefault(index, []).append(delta.partial_json)
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(_dump(delta.citation))
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta.thinking
        elif kind == "signature_delta":
            block["signature"] = delta.signature

    def _stop(self, index: int) -> None:
        block = self._blocks.get(index)
        if block is None or block.get("type") not in _INPUT_BLOCKS:
            return
        use = strict_tool_use(block["id"], block["name"], "".join(self._json.pop(index, [])))
        block["input"] = use.input  # {} when it did not parse (a response cut at max_tokens)
        if block["type"] == "tool_use":
            self._on_tool_use(use)

    def _take_usage(self, usage: Any) -> None:
        # a message_delta's counts are running totals; the optional ones are absent when they do not apply
        for name in _USAGE_FIELDS:
            value = getattr(usage, name, None)
            if value is not None:
                self.usage[name] = value

    def content(self) -> list[dict[str, Any]]:
        """The message's blocks in order, as the history keeps them."""
        return [as_param(self._blocks[index]) for index in sorted(self._blocks)]
