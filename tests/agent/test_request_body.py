"""Where the request body puts its prompt-cache breakpoints, and the thinking and effort each model gets."""

from __future__ import annotations

import json
import typing
from typing import Any

import anthropic
import pytest

from handrail.agent.model_catalog import MODELS, model_info
from handrail.agent.model_client import EFFORT_OFF, thinking_fields
from handrail.agent.request_body import RequestBody, with_breakpoints

MARK = {"type": "ephemeral"}


def _body(**request: Any) -> dict[str, Any]:
    defaults: dict[str, Any] = {"model": "m", "max_tokens": 5, "system": "sys", "tools": []}
    result: dict[str, Any] = json.loads(RequestBody().encode(**{**defaults, **request}))
    return result


def _marks(body: dict[str, Any]) -> int:
    return json.dumps(body).count('"cache_control"')


def test_the_system_prompt_and_the_newest_message_are_marked() -> None:
    body = _body(messages=[{"role": "user", "content": "hi"}])
    assert body["system"] == [{"type": "text", "text": "sys", "cache_control": MARK}]
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": MARK}]}]


def test_the_message_newest_a_request_ago_is_marked_too_and_the_history_is_left_alone() -> None:
    history: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "read it"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"},
                                     {"type": "text", "text": "a reminder"}]},
    ]
    before = json.dumps(history)
    body = _body(messages=history)
    assert body["messages"][0]["content"][0]["cache_control"] == MARK
    assert "cache_control" not in json.dumps(body["messages"][1])
    assert body["messages"][2]["content"][1]["cache_control"] == MARK
    assert "cache_control" not in json.dumps(body["messages"][2]["content"][0])
    assert json.dumps(history) == before


def test_blocks_that_cannot_carry_a_breakpoint_are_passed_over() -> None:
    thinking = {"type": "thinking", "thinking": "hm", "signature": "s"}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "text", "text": "a"}, thinking]},
    ]
    marked = with_breakpoints(messages, 2)
    assert marked[1]["content"] == [{"type": "text", "text": "a", "cache_control": MARK}, thinking]
    only_thinking = [{"role": "assistant", "content": [thinking]}, {"role": "user", "content": [{"type": "text",
                                                                                              "text": ""}]}]
    assert with_breakpoints(only_thinking, 2) == only_thinking


def test_never_more_than_four_breakpoints() -> None:
    tools = [{"name": "A", "input_schema": {}}, {"name": "B", "input_schema": {}, "cache_control": MARK}]
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(7)]
    assert _marks(_body(messages=messages, tools=tools)) == 4
    two_marked_tools = [{**tool, "cache_control": MARK} for tool in tools]
    body = _body(messages=messages, tools=two_marked_tools)
    assert _marks(body) == 4 and body["messages"][-1]["content"][0]["cache_control"] == MARK
    assert "cache_control" not in json.dumps(body["messages"][:-1])


def test_a_one_off_request_marks_nothing() -> None:
    body = _body(messages=[{"role": "user", "content": "hi"}], cache=False)
    assert body["system"] == "sys" and _marks(body) == 0


def test_every_model_the_sdk_names_is_known() -> None:
    (names,) = [arg for arg in typing.get_args(anthropic.types.Model) if typing.get_origin(arg) is typing.Literal]
    # dated snapshots resolve to their model; a model with no published price is left to the `prices` setting
    unpriced = {"claude-mythos-preview"}
    assert set(typing.get_args(names)) <= {*MODELS, *unpriced, "claude-haiku-4-5-20251001", "claude-opus-4-5-20251101"}
    assert model_info("claude-opus-4-5-20251101") is MODELS["claude-opus-4-5"]
    assert model_info("claude-sonnet-5-5[1m]") is MODELS["claude-sonnet-5-5"]
    assert model_info("gpt-nothing") is None


ADAPTIVE = {"type": "adaptive", "display": "summarized"}


@pytest.mark.parametrize(
    ("model", "effort", "expected"),
    [
        ("claude-sonnet-5-5", None, (ADAPTIVE, None)),
        ("claude-sonnet-5-5", "medium", (ADAPTIVE, {"effort": "medium"})),
        ("claude-sonnet-5-5", EFFORT_OFF, ({"type": "between_tools"}, None)),
        ("claude-sonnet-4-6", EFFORT_OFF, ({"type": "disabled"}, None)),
        ("claude-opus-5-5", EFFORT_OFF, (ADAPTIVE, {"effort": "low"})),  # it always thinks: as little as it can
        ("claude-opus-4-5", "high", (None, {"effort": "high"})),  # no adaptive thinking, but effort
        ("claude-haiku-4-5", "high", (None, None)),
        ("claude-haiku-4-5", EFFORT_OFF, (None, None)),
        ("my-gateway-model", "high", (None, None)),  # unknown: the API's defaults
    ],
)
def test_thinking_and_effort_by_model(model: str, effort: str | None, expected: tuple[Any, Any]) -> None:
    assert thinking_fields(model, effort) == expected
