"""The model client builds each message from the raw event stream: the same message the SDK's own helper builds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from handrail.fake_model import FakeModel, Reply, ServerToolUse, Text, ToolUse, WebSearchResult
from handrail.server.message_builder import as_param
from handrail.server.model_client import ModelClient, ModelResponse, ModelSettings
from handrail.tools.execution import ToolUse as Call

HELLO = [{"role": "user", "content": "hi"}]


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with FakeModel() as model:
        yield model


async def _stream(fake: FakeModel) -> tuple[ModelResponse, list[str], list[Call]]:
    client = ModelClient(ModelSettings(model="claude-test", api_key="test", base_url=fake.base_url, sdk_max_retries=0))
    texts: list[str] = []
    calls: list[Call] = []
    try:
        response = await client.stream_once(system="", messages=HELLO, tools=[], on_text=texts.append,
                                            on_tool_use=calls.append)
    finally:
        await client.close()
    return response, texts, calls


async def _helper_message(fake: FakeModel) -> tuple[list[dict[str, Any]], str | None, int]:
    """The message as the SDK's `messages.stream()` helper accumulates it."""
    sdk = anthropic.AsyncAnthropic(api_key="test", base_url=fake.base_url, max_retries=0)
    async with sdk, sdk.messages.stream(model="claude-test", max_tokens=5, messages=HELLO) as stream:  # type: ignore[arg-type]
        final = await stream.get_final_message()
    content = [as_param(block.model_dump(mode="json", exclude_none=True)) for block in final.content]
    return content, final.stop_reason, final.usage.output_tokens


async def test_the_message_is_the_one_the_sdk_helper_builds(fake: FakeModel) -> None:
    search = ServerToolUse("web_search", {"query": "handrail"})
    reply = Reply.of(
        Text("let me look"),
        search,
        WebSearchResult(search.id, [("https://example.com", "Example")]),
        Text("and read"),
        ToolUse("Read", {"file_path": "/tmp/a.py", "limit": 10}),
        usage_out=42,
    )
    fake.add(reply, reply)
    response, texts, calls = await _stream(fake)
    expected, stop_reason, output_tokens = await _helper_message(fake)
    assert response.content == expected
    assert (response.stop_reason, response.usage["output_tokens"]) == (stop_reason, output_tokens) == ("tool_use", 42)
    assert "".join(texts) == "let me lookand read"
    (call,) = calls
    assert (call.name, call.input, call.input_error) == ("Read", {"file_path": "/tmp/a.py", "limit": 10}, None)


async def test_a_tool_input_that_does_not_parse_is_told_and_kept_as_an_empty_input(fake: FakeModel) -> None:
    broken = ToolUse("Write", '{"file_path": "/tmp/x", "content": "cut')
    fake.add(Reply.of(broken, stop_reason="max_tokens"))
    response, _, (call,) = await _stream(fake)
    assert call.id == broken.id and call.input == {} and call.input_error
    assert response.stop_reason == "max_tokens"
    assert response.content == [{"type": "tool_use", "id": broken.id, "name": "Write", "input": {}}]
