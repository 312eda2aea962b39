"""Clearing old tool results keeps the history valid and only touches results worth clearing."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2

from handrail.agent.compaction import (
    CLEARED,
    clear_old_tool_results,
    cleared_enough,
    estimate_tokens,
    is_prompt_too_long,
    needs_compaction,
)
from handrail.fake_model import validate_request


def _history(results: list[str]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "go"}]}]
    for i, text in enumerate(results):
        messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "Read",
                                                              "input": {}}]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}",
                                                       "content": text, "is_error": False}]})
    return messages


def test_all_but_the_last_results_are_cleared_and_the_history_stays_valid() -> None:
    messages = _history(["x" * 500, "short", "y" * 500, "z" * 500, "w" * 500])
    cleared = clear_old_tool_results(messages, keep=3)
    contents = [m["content"][0]["content"] for m in cleared[2::2]]
    assert contents == [CLEARED, "short", "y" * 500, "z" * 500, "w" * 500]
    assert cleared[2]["content"][0]["tool_use_id"] == "t0" and cleared[2]["content"][0]["is_error"] is False
    assert validate_request({"messages": cleared}) is None
    assert messages[2]["content"][0]["content"] == "x" * 500  # the original is untouched
    assert cleared[4] is messages[4]  # unchanged messages are shared
    assert estimate_tokens(cleared) < estimate_tokens(messages)
    assert clear_old_tool_results(cleared, keep=3) == cleared


def test_the_window_and_the_errors_that_ask_for_compaction() -> None:
    assert needs_compaction(180_000, 200_000) and not needs_compaction(100_000, 200_000)
    assert not needs_compaction(10, 0)
    # clearing that leaves more than half the window would have to run again within a few turns
    assert cleared_enough(180_000, 120_000, 200_000) and not cleared_enough(180_000, 60_000, 200_000)
    assert cleared_enough(10**9, 0, 0)  # no window known: clearing is all that is asked
    request = httpx2.Request("POST", "http://127.0.0.1/v1/messages")

    def error(status: int, message: str) -> anthropic.APIStatusError:
        response = httpx2.Response(status, request=request)
        return anthropic.APIStatusError(message, response=response, body=None)

    assert is_prompt_too_long(error(400, "prompt is too long: 210000 tokens > 200000 maximum"))
    assert is_prompt_too_long(error(413, "request too large"))
    assert not is_prompt_too_long(error(400, "tools.0: bad schema"))
    assert not is_prompt_too_long(ValueError("prompt is too long"))
