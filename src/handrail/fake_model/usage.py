"""Input token counts the way the real API reports them, estimated from each request's size.

A scripted Reply says its own `usage_in` (10 by default), so a conversation never seems to grow and
the agent's compaction, which goes by the reported usage, never starts. `counted` makes a step report
what the request really sent, as the real API does: the system prompt, tool definitions and history,
split into uncached input, cache writes and cache reads (`prompt_cache`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from handrail.fake_model.prompt_cache import CHARS_PER_TOKEN, request_tokens
from handrail.fake_model.script import Reply

__all__ = ["CHARS_PER_TOKEN", "counted", "request_tokens"]


def counted(reply: Reply) -> Callable[[dict[str, Any]], Reply]:
    """A step answering with `reply`, its input usage being the request's size as the API would bill it."""
    return lambda body: replace(reply, usage_in=None)
