"""The model client encodes its requests and builds each message from the raw event stream itself:
the same request `messages.create` sends, the same message the SDK's own helper builds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import anthropic
import pytest
from anthropic.types import ToolParam

from handrail.agent.message_builder import as_param
from handrail.agent.model_client import ModelClient, ModelResponse, ModelSettings
from handrail.agent.request_body import RequestBody
from handrail.fake_model import FakeModel, Reply, ServerToolUse, Text, ToolUse, WebSearchResult
from handrail.tools.execution import ToolUse as Call

HELLO = [{"role": "user", "content": "hi"}]


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with FakeModel() as model:
        yield model


async def _stream(
    fake: FakeModel, tools: list[dict[str, Any]] | None = None
) -> tuple[ModelResponse, list[str], list[Call]]:
    client = ModelClient(ModelSettings(model="claude-test", api_key="test", base_url=fake.base_url, sdk_max_retries=0))
    texts: list[str] = []
    calls: list[Call] = []
    try:
        response = await client.stream_once(system="be brief", messages=HELLO, tools=tools or [], on_text=texts.append,
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


@pytest.mark.parametrize(("model", "effort"), [("claude-test", None), ("claude-sonnet-5-5", "high")])
async def test_the_request_is_the_one_messages_create_sends(fake: FakeModel, model: str, effort: str | None) -> None:
    """Cache breakpoints on the system prompt and the newest message, thinking and effort for a model that
    thinks: as the SDK itself would send them."""
    tools: list[dict[str, Any]] = [{"name": "Read", "description": "reads é", "input_schema": {"type": "object"}}]
    fake.add(Reply.of(Text("a")), Reply.of(Text("b")))
    settings = ModelSettings(model=model, api_key="test", base_url=fake.base_url, sdk_max_retries=0, effort=effort)
    client = ModelClient(settings)
    try:
        await client.stream_once(system="be brief", messages=HELLO, tools=tools)
    finally:
        await client.close()
    mark = {"type": "ephemeral"}
    extra: dict[str, Any] = {}
    if effort is not None:
        extra = {"thinking": {"type": "adaptive", "display": "summarized"}, "output_config": {"effort": effort}}
    async with anthropic.AsyncAnthropic(api_key="test", base_url=fake.base_url, max_retries=0) as sdk:
        stream = await sdk.messages.create(
            model=model, max_tokens=ModelSettings().max_tokens,
            system=[{"type": "text", "text": "be brief", "cache_control": mark}],
            messages=[{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": mark}]}],
            tools=cast("list[ToolParam]", tools), stream=True, **extra,
        )
        async for _ in stream:
            pass
    ours, sdks = fake.requests
    assert ours == sdks


def test_tool_definitions_changed_in_place_are_encoded_anew() -> None:
    body = RequestBody()
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    tools = [{"name": "Read", "description": "reads", "input_schema": schema}]
    first = body.encode(model="m", max_tokens=5, system="", messages=HELLO, tools=tools)
    assert body.encode(model="m", max_tokens=5, system="", messages=HELLO, tools=tools) == first
    schema["properties"]["path"] = {"type": "string"}
    assert b'"path"' in body.encode(model="m", max_tokens=5, system="", messages=HELLO, tools=tools)
