"""The JSON body of a streamed Messages API request, encoded by handrail rather than by the SDK.

`messages.create` deep-copies the whole request (every message and tool schema) to
look for files and SDK models before encoding it: about 1 ms per request for a
20-call conversation, growing with the history. Handrail's requests are plain JSON
values already, so the model client encodes them once and posts the bytes through
the same SDK client (its retries, errors and event stream stay the SDK's).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

# as the SDK encodes bodies: compact, UTF-8, and no NaN (which is not JSON)
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


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

    def encode(self, *, model: str, max_tokens: int, system: str, messages: Sequence[dict[str, Any]],
               tools: Sequence[dict[str, Any]]) -> bytes:
        """The body of a streamed request (tools left out when there are none, as the API allows)."""
        head = _encode({"model": model, "max_tokens": max_tokens, "system": system, "stream": True})
        parts = [head[:-1], ',"messages":', _encode(list(messages))]
        if tools:
            parts += [',"tools":', self._tools_text(tools)]
        parts.append("}")
        return "".join(parts).encode()
