"""The model client against the fake model's broken streams: each becomes a retryable StreamFault."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import anthropic
import pytest

from handrail.agent.model_client import ModelClient, ModelSettings, StreamFault, is_retryable
from handrail.fake_model import FakeModel, Hold, Malformed, Reply, Text

HELLO = [{"role": "user", "content": "hi"}]


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with FakeModel() as model:
        yield model


async def _stream(fake: FakeModel, idle: float = 90.0) -> list[str]:
    settings = ModelSettings(model="claude-test", api_key="test", base_url=fake.base_url, sdk_max_retries=0,
                             stream_idle_timeout=idle)
    client = ModelClient(settings)
    texts: list[str] = []
    try:
        await client.stream_once(system="", messages=HELLO, tools=[], on_text=texts.append, on_tool_use=lambda _: None)
    finally:
        await client.close()
    return texts


async def test_malformed_events_are_a_stream_fault(fake: FakeModel) -> None:
    fake.add(Malformed(after_blocks=1, reply=Reply.of(Text("first"), Text("second"))))
    with pytest.raises(StreamFault, match="malformed") as caught:
        await _stream(fake)
    assert is_retryable(caught.value)


async def test_an_event_of_the_wrong_shape_is_a_stream_fault(fake: FakeModel) -> None:
    wrong = b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":"text"}\n\n'
    fake.add(Malformed(after_blocks=1, reply=Reply.of(Text("first"), Text("second")), data=wrong))
    with pytest.raises(StreamFault, match="delta is not of type dict"):
        await _stream(fake)


async def test_an_event_nested_absurdly_deep_is_a_stream_fault(fake: FakeModel) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    data = f'event: content_block_delta\ndata: {{"type":"content_block_delta","index":0,"x":{deep}}}\n\n'.encode()
    fake.add(Malformed(after_blocks=1, reply=Reply.of(Text("first"), Text("second")), data=data))
    with pytest.raises(StreamFault, match="malformed"):
        await _stream(fake)


async def test_a_silent_stream_is_a_stream_fault(fake: FakeModel) -> None:
    hold = Hold(Reply.of(Text("never finished")), partial_block=True)
    fake.add(hold)
    with pytest.raises(StreamFault, match="no data"):
        await _stream(fake, idle=0.5)
    assert await asyncio.to_thread(hold.abandoned.wait, 60)  # the connection was closed, not left hanging


async def test_a_slow_but_steady_stream_is_not_cut(fake: FakeModel) -> None:
    fake.add(Reply.of(Text("a complete answer")))
    assert "".join(await _stream(fake, idle=30)) == "a complete answer"


async def test_a_malformed_non_streaming_body_fails_in_the_sdk(fake: FakeModel) -> None:
    fake.add(Malformed(data=b"{not json"))
    async with anthropic.AsyncAnthropic(api_key="test", base_url=fake.base_url, max_retries=0) as sdk:
        with pytest.raises(ValueError):  # the SDK lets the JSON error through
            await sdk.messages.create(model="m", max_tokens=5, messages=HELLO)  # type: ignore[arg-type]
