"""Turn a scripted Reply into the Messages API's JSON and SSE events.

Pure functions: no I/O. Events are the dicts the real API sends as `data:`;
`encode_event` frames one as `event: <type>\\ndata: <json>\\n\\n`.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator, Mapping, Sequence
from itertools import cycle
from typing import Any

from handrail.fake_model.script import Block, Reply, ServerToolUse, Text, Thinking, ToolUse, WebSearchResult

Event = dict[str, Any]

# Deterministic, uneven chunk sizes, so consumers see pieces like the real
# API's without any randomness in tests.
_TEXT_CHUNKS = (3, 5, 8, 4, 7, 6)
_JSON_CHUNKS = (5, 8, 10, 6, 9, 7)


def new_message_id() -> str:
    """Return a fresh `msg_...` id."""
    return "msg_" + secrets.token_hex(12)


def new_request_id() -> str:
    """Return a fresh `req_...` id for the request-id header."""
    return "req_" + secrets.token_hex(12)


def split_chunks(text: str, sizes: Sequence[int]) -> list[str]:
    """Cut `text` into consecutive pieces whose lengths cycle through `sizes`."""
    pieces: list[str] = []
    pos = 0
    for size in cycle(sizes):
        if pos >= len(text):
            break
        pieces.append(text[pos : pos + size])
        pos += size
    return pieces


def tool_input_json(block: ToolUse) -> str:
    """The JSON text streamed for a tool_use block's input ("" for an empty dict)."""
    if isinstance(block.input, str):
        return block.input
    # The real API streams nothing but one empty partial_json for `{}`.
    return json.dumps(block.input) if block.input else ""


def _tool_input_value(block: ToolUse) -> object:
    if not isinstance(block.input, str):
        return block.input
    try:
        return json.loads(block.input)
    except ValueError:
        # Malformed raw JSON has no faithful non-streaming form; pass it through
        # so a test sees exactly what it scripted.
        return block.input


def _usage(reply: Reply, output_tokens: int, input_usage: Mapping[str, Any] | None) -> dict[str, Any]:
    """The usage object: `input_usage` as the server billed the request, else the reply's scripted count."""
    if input_usage is None:
        input_usage = {"input_tokens": reply.usage_in or 0, "cache_creation_input_tokens": 0,
                       "cache_read_input_tokens": 0}
    return {**input_usage, "output_tokens": output_tokens}


def message_json(
    reply: Reply, model: str, message_id: str | None = None, input_usage: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The complete Message object a non-streaming request returns."""
    content: list[dict[str, Any]] = []
    for block in reply.blocks:
        if isinstance(block, Thinking):
            content.append(block.content_block())
        elif isinstance(block, Text):
            content.append({"type": "text", "text": block.text})
        elif isinstance(block, ServerToolUse):
            content.append({"type": "server_tool_use", "id": block.id, "name": block.name, "input": block.input})
        elif isinstance(block, WebSearchResult):
            content.append(block.content_block())
        else:
            content.append({"type": "tool_use", "id": block.id, "name": block.name, "input": _tool_input_value(block)})
    return {
        "id": message_id or new_message_id(),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": reply.resolved_stop_reason,
        "stop_sequence": None,
        "usage": _usage(reply, reply.usage_out, input_usage),
    }


def _block_events(index: int, block: Block) -> Iterator[Event]:
    if isinstance(block, WebSearchResult):  # the API sends a server tool's result whole, without deltas
        yield {"type": "content_block_start", "index": index, "content_block": block.content_block()}
    elif isinstance(block, ServerToolUse):
        yield {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "server_tool_use", "id": block.id, "name": block.name, "input": {}},
        }
        yield {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": json.dumps(block.input) if block.input else ""},
        }
    elif isinstance(block, Thinking):
        start = {"type": "thinking", "thinking": "", "signature": ""}
        yield {"type": "content_block_start", "index": index, "content_block": start}
        for piece in split_chunks(block.thinking, _TEXT_CHUNKS):
            delta = {"type": "thinking_delta", "thinking": piece}
            yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_delta", "index": index,
               "delta": {"type": "signature_delta", "signature": block.signature}}
    elif isinstance(block, Text):
        yield {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
        for piece in split_chunks(block.text, _TEXT_CHUNKS):
            yield {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}
    else:
        yield {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "tool_use", "id": block.id, "name": block.name, "input": {}},
        }
        # An empty input still gets exactly one delta, with partial_json "".
        for piece in split_chunks(tool_input_json(block), _JSON_CHUNKS) or [""]:
            yield {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
    yield {"type": "content_block_stop", "index": index}


def reply_events(
    reply: Reply, model: str, message_id: str | None = None, input_usage: Mapping[str, Any] | None = None
) -> list[Event]:
    """Every SSE event, in order, that the real API streams for `reply`."""
    start = message_json(Reply((), usage_in=reply.usage_in), model, message_id)
    start["stop_reason"] = None
    start["usage"] = _usage(reply, 1, input_usage)
    events: list[Event] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(reply.blocks):
        events.extend(_block_events(index, block))
    # The real API sends its first ping right after the first content_block_start.
    events.insert(2 if reply.blocks else 1, {"type": "ping"})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": reply.resolved_stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": reply.usage_out},
        }
    )
    events.append({"type": "message_stop"})
    return events


def cut_index(events: Sequence[Event], after_blocks: int, partial_block: bool = False) -> int:
    """How many of `events` to send so that exactly `after_blocks` blocks are complete.

    With `partial_block`, also include the next block's start and about half of
    its deltas (at least one if it has any). Raises ValueError if the reply has
    fewer than `after_blocks` blocks.
    """
    # Whole blocks: everything up to the after_blocks-th content_block_stop (or,
    # for 0, up to the first content_block_start / message_delta).
    stops = 0
    index = 1  # message_start is always sent
    while stops < after_blocks:
        if index >= len(events):
            raise ValueError(f"reply has fewer than {after_blocks} content blocks")
        if events[index]["type"] == "content_block_stop":
            stops += 1
        index += 1
    while index < len(events) and events[index]["type"] == "ping":
        index += 1
    if not partial_block or index >= len(events) or events[index]["type"] != "content_block_start":
        return index
    end = index + 1
    while end < len(events) and events[end]["type"] == "ping":
        end += 1
    deltas = 0
    while events[end + deltas]["type"] == "content_block_delta":
        deltas += 1
    return end + (max(1, deltas // 2) if deltas else 0)


def error_body(error_type: str, message: str) -> dict[str, Any]:
    """The real API's error payload, used both as a JSON body and as an SSE event."""
    return {"type": "error", "error": {"type": error_type, "message": message}}


def encode_event(event: Event) -> bytes:
    """Frame one event the way the real API does."""
    data = json.dumps(event, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n".encode()
