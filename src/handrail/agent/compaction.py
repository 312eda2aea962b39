"""Fitting a long conversation into the model's context window.

Two steps, cheapest first: replace old tool results with a short placeholder
(keeping the most recent ones whole), then, when that is not enough (it saved
nothing, or left the request above half the window: what is left after clearing
grows with every turn, so clearing alone would come round ever more often),
summarize the older turns with a model call and start the history from that summary. Both keep the history valid:
every tool_use keeps its one tool_result, and the summary replaces whole turns
only (it cuts before a user prompt, never between a call and its result).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from handrail.agent.model_client import ModelClient
from handrail.agent.session import content_blocks
from handrail.agent.usage import input_count, output_count

log = logging.getLogger(__name__)

KEEP_TOOL_RESULTS = 3  # the most recent results are what the model is working with
KEEP_TURNS = 1  # user prompts kept verbatim when older turns are summarized
COMPACT_AT = 0.85  # share of the context window the last request may fill before we compact
# Clearing that leaves the history above this share of the window buys only a few turns before the next
# compaction (and each one rewrites the history the API had cached): summarize instead.
CLEARED_ENOUGH = 0.5
CLEARED = "[Old tool result cleared to save context; run the tool again if you need it.]"
SUMMARY_PREFIX = "Summary of the earlier conversation (older turns were summarized to fit the context window):\n\n"
DROPPED = "(The earlier part of this conversation was removed to fit the context window; it could not be summarized.)"
SUMMARY_REQUEST = (
    "The conversation above is getting too long. Write a concise summary of it for yourself to continue from: "
    "the user's goals and requests, decisions made, files read or changed (with paths), commands run and their "
    "outcomes, and what remains to be done. Reply with the summary only; do not call tools."
)


def is_prompt_too_long(exc: BaseException) -> bool:
    """Whether the API refused the request because the prompt does not fit the context window."""
    import anthropic

    if not isinstance(exc, anthropic.APIStatusError):
        return False
    if exc.status_code == 413:
        return True
    return exc.status_code == 400 and "prompt is too long" in str(exc).lower()


def estimate_tokens(messages: Sequence[dict[str, Any]]) -> int:
    """A rough token count of a history (about four characters a token)."""
    return len(json.dumps(list(messages), default=str)) // 4


def context_size(usage: Mapping[str, int]) -> int:
    """Tokens a response's request and answer took, cached input included (it all counts against the window)."""
    return input_count(usage) + output_count(usage)


def needs_compaction(context_tokens: int, window: int) -> bool:
    """Whether the last request's size says the next one may not fit."""
    return window > 0 and context_tokens >= window * COMPACT_AT


def cleared_enough(context_tokens: int, saved_tokens: int, window: int) -> bool:
    """Whether clearing `saved_tokens` of old tool results from a conversation whose last request took
    `context_tokens` (system prompt and tools included: they take their share of the window too) leaves
    room for a good many turns before the next compaction."""
    return window <= 0 or context_tokens - saved_tokens < window * CLEARED_ENOUGH


def clear_old_tool_results(messages: Sequence[dict[str, Any]], keep: int = KEEP_TOOL_RESULTS) -> list[dict[str, Any]]:
    """The history with all but the last `keep` tool results replaced by a placeholder (new dicts where changed)."""
    positions = [
        (i, j)
        for i, message in enumerate(messages)
        if message["role"] == "user" and isinstance(message.get("content"), list)
        for j, block in enumerate(message["content"])
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    older = positions[: max(0, len(positions) - keep)]
    to_clear = [(i, j) for i, j in older if _worth_clearing(messages[i]["content"][j])]
    result = list(messages)
    for i, j in to_clear:
        content = list(result[i]["content"])
        block = content[j]
        content[j] = {**{k: v for k, v in block.items() if k != "content"}, "content": CLEARED}
        result[i] = {**result[i], "content": content}
    return result


def _worth_clearing(block: dict[str, Any]) -> bool:
    """Whether replacing this result saves anything (short ones, errors included, cost less than a placeholder)."""
    return len(json.dumps(block.get("content"), default=str)) > 2 * len(CLEARED)


def _turn_starts(messages: Sequence[dict[str, Any]]) -> list[int]:
    """Indices of user messages that carry no tool result: cutting there never separates a call from its result."""
    return [
        i
        for i, message in enumerate(messages)
        if message["role"] == "user"
        and not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content_blocks(message))
    ]


async def summarize_older_turns(
    model: ModelClient,
    system: str,
    tools: Sequence[dict[str, Any]],
    messages: Sequence[dict[str, Any]],
    *,
    keep_turns: int = KEEP_TURNS,
    on_usage: Callable[[Mapping[str, int]], None] | None = None,
) -> list[dict[str, Any]] | None:
    """The history with every turn but the last `keep_turns` replaced by a model-written summary.

    None when there is no older turn to summarize. When the summary call itself
    fails, the older turns are dropped with a note saying so: the user's current
    request can still go on.
    """
    starts = [i for i in _turn_starts(messages) if i > 0]
    if len(starts) < keep_turns:
        return None
    cut = starts[-keep_turns] if keep_turns else len(messages)
    older = [dict(m) for m in messages[:cut]]
    if older[-1]["role"] == "user":
        older[-1] = {**older[-1], "content": [*content_blocks(older[-1]), {"type": "text", "text": SUMMARY_REQUEST}]}
    else:
        older.append({"role": "user", "content": [{"type": "text", "text": SUMMARY_REQUEST}]})
    try:
        response = await model.stream_once(system=system, messages=older, tools=tools)
        if on_usage is not None:
            on_usage(response.usage)
        summary = response.text.strip()
    except Exception as exc:
        log.warning("summarizing the conversation failed: %s", exc)
        summary = ""
    head = SUMMARY_PREFIX + summary if summary else DROPPED
    rest = list(messages[cut:])
    if not rest:
        return [{"role": "user", "content": [{"type": "text", "text": head}]}]
    first = {"role": "user", "content": [{"type": "text", "text": head}, *content_blocks(rest[0])]}
    return [first, *rest[1:]]
