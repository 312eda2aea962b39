"""Conversations: interleaved requests of several conversations each get their own next step."""

from __future__ import annotations

from collections.abc import Iterator

import anthropic
import pytest

from handrail.fake_model import Conversations, FakeModel, Reply, Text, first_user_text


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with FakeModel() as model:
        yield model


async def ask(sdk: anthropic.AsyncAnthropic, first: str, *more: str) -> str:
    messages: list[anthropic.types.MessageParam] = [{"role": "user", "content": first}]
    for text in more:
        messages += [
            {"role": "assistant", "content": "…"},
            {"role": "user", "content": [{"type": "text", "text": text}]},
        ]
    message = await sdk.messages.create(model="claude-test", max_tokens=10, messages=messages)
    block = message.content[0]
    assert block.type == "text"
    return block.text


async def test_each_conversation_gets_its_own_steps_in_any_order(fake: FakeModel) -> None:
    talk = Conversations()
    talk.script("a", Reply.of(Text("a1")), Reply.of(Text("a2")), Reply.of(Text("a3")))
    talk.script("b", Reply.of(Text("b1")))
    fake.add(*talk.steps())
    assert talk.steps() == []  # each step is handed out once
    async with anthropic.AsyncAnthropic(api_key="t", base_url=fake.base_url, max_retries=0) as sdk:
        assert await ask(sdk, "b") == "b1"
        assert await ask(sdk, "a") == "a1"
        assert await ask(sdk, "a", "again") == "a2"
        with pytest.raises(anthropic.InternalServerError):  # a request no conversation expects fails at once
            await ask(sdk, "c")
    assert fake.remaining == 0
    assert any("no step scripted for the conversation 'c'" in error for error in fake.errors)


def test_first_user_text() -> None:
    assert first_user_text({"messages": [{"role": "user", "content": "hi"}]}) == "hi"
    blocks = [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]
    assert first_user_text({"messages": [{"role": "user", "content": blocks}]}) == "ab"
    assert first_user_text({}) == ""
