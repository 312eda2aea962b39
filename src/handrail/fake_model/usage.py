"""Input token counts the way the real API reports them, estimated from each request's size.

A scripted Reply says its own `usage_in` (10 by default), so a conversation never seems to grow and
the agent's compaction, which goes by the reported usage, never starts. `counted` makes a step report
what the request really sent, as the real API does: the system prompt, tool definitions and history.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from handrail.fake_model.script import Reply

CHARS_PER_TOKEN = 4  # about what Claude's tokenizer gives for English text, code and JSON


def request_tokens(body: dict[str, Any]) -> int:
    """An estimate of the input tokens of a Messages API request: everything the model reads."""
    sent = {key: body.get(key) for key in ("system", "tools", "messages")}
    return len(json.dumps(sent, ensure_ascii=False)) // CHARS_PER_TOKEN


def counted(reply: Reply) -> Callable[[dict[str, Any]], Reply]:
    """A step answering with `reply`, its `usage_in` being the request's estimated input tokens."""
    return lambda body: replace(reply, usage_in=request_tokens(body))
