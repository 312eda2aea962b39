"""One assistant message built from the Messages API's raw stream events, as API dicts.

The model client reads the SDK's event stream as plain JSON objects rather than
through its `messages.stream()` helper: the helper re-parses a tool input's whole
JSON text on every delta and rebuilds a snapshot model per event (and even typed
events cost a model each), about 1 ms per response, while the loop needs only the
finished blocks as dicts and each tool call's input, parsed once, strictly, when
its block completes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from handrail.tools.execution import ToolUse
from handrail.tools.tool_input import MAX_INPUT_CHARS, decode_tool_input, too_long

# blocks whose input arrives as input_json_delta pieces
_INPUT_BLOCKS = ("tool_use", "server_tool_use")
_USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def strict_tool_use(block_id: str, name: str, raw: str) -> ToolUse:
    """A tool_use whose input is parsed strictly from the streamed JSON text, within `tool_input`'s bounds
    (an input past them comes as `{}` with `input_error` saying why)."""
    value, error = decode_tool_input(raw)
    return ToolUse(block_id, name, value, input_error=error)


def as_param(block: dict[str, Any]) -> dict[str, Any]:
    """A response block in the shape the API accepts back in the history."""
    if block.get("type") == "text":
        return {"type": "text", "text": block.get("text", "")}
    if block.get("type") == "tool_use":
        return {"type": "tool_use", "id": block["id"], "name": block["name"], "input": block.get("input", {})}
    return block


def _without_nulls(value: Any) -> Any:
    """`value` without null members, as the SDK's models dump a block (`exclude_none`)."""
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value


# a malformed event raises ValueError (the model client's sign of a broken stream), never TypeError
def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not a JSON object")
    return value


def _field(values: dict[str, Any], name: str, kind: type[Any]) -> Any:
    value = values.get(name)
    if not isinstance(value, kind):
        raise ValueError(f"the event's {name} is not of type {kind.__name__}: {value!r}")
    return value


def _nothing(_: Any) -> None:
    pass


class MessageBuilder:
    """Feeds on raw stream events; tells text and thinking deltas and completed tool calls as they come.

    Thinking blocks are kept exactly as they streamed, signature included: the API wants them back
    unchanged with the tool calls they led to.
    """

    def __init__(
        self,
        on_text: Callable[[str], None] | None = None,
        on_tool_use: Callable[[ToolUse], None] | None = None,
        on_thinking: Callable[[str], None] | None = None,
    ) -> None:
        self._on_text = on_text or _nothing
        self._on_tool_use = on_tool_use or _nothing
        self._on_thinking = on_thinking or _nothing
        self.started = False
        self._blocks: dict[int, dict[str, Any]] = {}
        self._complete: set[int] = set()
        self._json: dict[int, list[str]] = {}
        self._json_size: dict[int, int] = {}
        self.stop_reason: str | None = None
        self.usage = dict.fromkeys(_USAGE_FIELDS, 0)

    def feed(self, data: object) -> None:
        """Take one event's JSON; kinds this does not know are ignored, as the API asks of clients."""
        event = _object(data, "an event")
        kind = event.get("type")
        if kind == "content_block_delta":
            self._delta(_field(event, "index", int), _field(event, "delta", dict))
        elif kind == "content_block_start":
            try:
                block = _without_nulls(_field(event, "content_block", dict))
            except RecursionError:
                raise ValueError("a content block nested too deeply to read") from None
            self._blocks[_field(event, "index", int)] = block
        elif kind == "content_block_stop":
            self._stop(_field(event, "index", int))
        elif kind == "message_start":
            self.started = True
            self._take_usage(_field(event, "message", dict).get("usage"))
        elif kind == "message_delta":
            self.stop_reason = _field(event, "delta", dict).get("stop_reason")
            self._take_usage(event.get("usage"))

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self._blocks.get(index)
        if block is None:
            raise ValueError(f"a delta for content block {index}, which never started")
        kind = delta.get("type")
        if kind == "text_delta":
            text = _field(delta, "text", str)
            block["text"] = block.get("text", "") + text
            self._on_text(text)
        elif kind == "input_json_delta":
            piece = _field(delta, "partial_json", str)
            size = self._json_size[index] = self._json_size.get(index, 0) + len(piece)
            if size <= MAX_INPUT_CHARS:
                self._json.setdefault(index, []).append(piece)
            else:  # it will be refused: hold none of it
                self._json.pop(index, None)
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(_without_nulls(_field(delta, "citation", dict)))
        elif kind == "thinking_delta":
            thinking = _field(delta, "thinking", str)
            block["thinking"] = block.get("thinking", "") + thinking
            self._on_thinking(thinking)
        elif kind == "signature_delta":
            block["signature"] = _field(delta, "signature", str)

    def _stop(self, index: int) -> None:
        block = self._blocks.get(index)
        if block is not None:
            self._complete.add(index)
        if block is None or block.get("type") not in _INPUT_BLOCKS:
            return
        block_id, name, raw = _field(block, "id", str), _field(block, "name", str), "".join(self._json.pop(index, []))
        size = self._json_size.pop(index, 0)
        use = strict_tool_use(block_id, name, raw) if size <= MAX_INPUT_CHARS else ToolUse(
            block_id, name, {}, input_error=too_long(size)
        )
        block["input"] = use.input  # {} when it did not parse (a response cut at max_tokens)
        if block["type"] == "tool_use":
            self._on_tool_use(use)

    def _take_usage(self, usage: object) -> None:
        # a message_delta's counts are running totals; the optional ones are absent when they do not apply
        if not isinstance(usage, dict):
            return
        for name in _USAGE_FIELDS:
            value = usage.get(name)
            if isinstance(value, int):
                self.usage[name] = value

    def content(self) -> list[dict[str, Any]]:
        """The message's blocks in order, as the history keeps them."""
        return [as_param(self._blocks[index]) for index in sorted(self._blocks)]

    def partial(self) -> list[dict[str, Any]]:
        """The message as far as it streamed, as a valid history message: its complete thinking and tool_use
        blocks, its text so far, and server tool calls that have their results (an unfinished thinking block
        has no signature, and the API refuses a server tool call without its result)."""
        blocks = [
            as_param(self._blocks[index])
            for index in sorted(self._blocks)
            if index in self._complete or self._blocks[index].get("type") == "text"
        ]
        used = {b.get("id") for b in blocks if b.get("type") == "server_tool_use"}
        answered = {b.get("tool_use_id") for b in blocks if str(b.get("type", "")).endswith("_tool_result")}
        return [
            block
            for block in blocks
            if (block.get("type") != "text" or block.get("text"))
            and (block.get("type") != "server_tool_use" or block.get("id") in answered)
            and (not str(block.get("type", "")).endswith("_tool_result") or block.get("tool_use_id") in used)
        ]
