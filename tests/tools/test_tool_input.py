"""The bounds of a tool call's input, where the model's stream is read, and the transcript that keeps it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from handrail.agent.message_builder import MessageBuilder
from handrail.agent.transcript import Transcript, load_transcript
from handrail.tools.execution import ToolUse
from handrail.tools.tool_input import MAX_INPUT_CHARS, MAX_INPUT_DEPTH, decode_tool_input, input_problem


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested more than"),
        ('{"a": ' + "[" * MAX_INPUT_DEPTH + "]" * MAX_INPUT_DEPTH + "}", "nested more than"),
        ('{"a": NaN}', "NaN or Infinity"),
        ('{"a": -Infinity}', "NaN or Infinity"),
        ('{"a": 1e400}', "NaN or Infinity"),
        ('{"a": 1' + "0" * 5000 + "}", "could not be read"),
        ('{"\\udc80": 1}', "unpaired surrogate"),
        ('{"a": ["ok", "\\ud83d"]}', "unpaired surrogate"),
        ("[1]", "not a JSON object"),
        ("{not json", "not valid JSON"),
        ('{"a": "' + "x" * MAX_INPUT_CHARS + '"}', "characters long"),
    ],
)
def test_absurd_inputs_are_refused_with_a_reason(raw: str, why: str) -> None:
    value, error = decode_tool_input(raw)
    assert value == {} and error is not None and why in error


def test_ordinary_inputs_pass() -> None:
    nested = '{"a": ' + "[" * (MAX_INPUT_DEPTH - 1) + "]" * (MAX_INPUT_DEPTH - 1) + "}"
    assert decode_tool_input(nested)[1] is None
    value, error = decode_tool_input('{"text": "caf\\u00e9 \\ud83d\\ude00", "n": 1.5, "ok": true, "none": null}')
    assert error is None and value["text"] == "café 😀"
    assert decode_tool_input("") == ({}, None)
    assert input_problem({"a": object()}) is not None and input_problem({1: "x"}) is not None


def test_the_stream_holds_no_more_of_an_input_than_it_may_take() -> None:
    uses: list[ToolUse] = []
    builder = MessageBuilder(lambda _: None, uses.append)
    builder.feed({"type": "message_start", "message": {"usage": {}}})
    builder.feed({"type": "content_block_start", "index": 0,
                  "content_block": {"type": "tool_use", "id": "t1", "name": "Write", "input": {}}})
    piece = "x" * (1024 * 1024)
    builder.feed({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta",
                                                                       "partial_json": '{"content": "'}})
    for _ in range(MAX_INPUT_CHARS // len(piece) + 2):
        builder.feed({"type": "content_block_delta", "index": 0,
                      "delta": {"type": "input_json_delta", "partial_json": piece}})
        assert sum(map(len, builder._json.get(0, []))) <= MAX_INPUT_CHARS  # structurally bounded
    builder.feed({"type": "content_block_stop", "index": 0})
    (use,) = uses
    assert use.input == {} and use.input_error is not None and "characters long" in use.input_error
    assert builder.content() == [{"type": "tool_use", "id": "t1", "name": "Write", "input": {}}]


def test_a_deep_content_block_is_a_malformed_stream() -> None:
    builder = MessageBuilder(lambda _: None, lambda _: None)
    deep: Any = {}
    for _ in range(100_000):
        deep = {"x": deep}
    with pytest.raises(ValueError, match="nested too deeply"):
        builder.feed({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "c": deep}})


def test_the_transcript_writes_every_message(tmp_path: Path) -> None:
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "go \ud800 on"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"x": deep}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [deep]}]},
    ]
    transcript = Transcript(tmp_path / "transcript.jsonl")
    transcript.write(*transcript.pending(messages))
    lines = transcript.path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and all(json.loads(line)["type"] == "message" for line in lines)
    loaded = load_transcript(transcript.path)
    assert loaded[0]["content"][0]["text"] == "go \ud800 on"
    assert loaded[1]["content"] == [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]
    assert loaded[2]["content"][0]["tool_use_id"] == "t1" and "could not be saved" in loaded[2]["content"][0]["content"]
