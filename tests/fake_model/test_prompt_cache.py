"""The fake model bills prompt caching and checks thinking blocks as the Messages API does, through the real SDK."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from handrail.fake_model import (
    FakeModel,
    PromptCache,
    Reply,
    Text,
    Thinking,
    ToolUse,
    billed_input,
    counted,
    ideal_usage,
    request_tokens,
    thinking_signature,
)

MODEL = "claude-test"
MARK = {"type": "ephemeral"}
LONG = "All work and no play makes a dull prompt. " * 200  # about 2,100 tokens: above the minimum


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with FakeModel(count_usage=True) as model:
        yield model


def client(fake: FakeModel) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(api_key="test", base_url=fake.base_url, max_retries=0)


def system(marked: bool = True) -> list[dict[str, Any]]:
    block: dict[str, Any] = {"type": "text", "text": LONG}
    return [{**block, "cache_control": MARK}] if marked else [block]


def user(text: str, marked: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text}
    return {"role": "user", "content": [{**block, "cache_control": MARK} if marked else block]}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


async def send(fake: FakeModel, **request: Any) -> anthropic.types.Usage:
    fake.add(Reply.of(Text("ok")))
    async with client(fake) as c:
        message = await c.messages.create(model=MODEL, max_tokens=100, **request)
    return message.usage


async def test_a_prefix_written_at_a_breakpoint_is_read_by_the_next_request(fake: FakeModel) -> None:
    first = await send(fake, system=system(), messages=[user("hi")])
    assert first.cache_read_input_tokens == 0
    assert first.cache_creation_input_tokens == request_tokens({"system": system()}) > 1024
    assert first.input_tokens == request_tokens(fake.requests[0]) - first.cache_creation_input_tokens > 0
    second = await send(fake, system=system(), messages=[user("hi"), assistant("hello"), user("more")])
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens == 0
    assert second.input_tokens + second.cache_read_input_tokens == request_tokens(fake.requests[1])


async def test_a_moving_breakpoint_reads_the_last_request_and_writes_only_what_is_new(fake: FakeModel) -> None:
    history = [user("question " + LONG, marked=True)]
    first = await send(fake, messages=history)
    assert first.cache_creation_input_tokens == request_tokens(fake.requests[0])
    history = [user("question " + LONG), assistant("an answer"), user("and then?", marked=True)]
    second = await send(fake, messages=history)
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens == request_tokens(fake.requests[1]) - first.cache_creation_input_tokens
    assert second.input_tokens == 0
    assert [billed_input(u) for u in ideal_usage(fake.requests)] == [
        billed_input(u.model_dump()) for u in (first, second)
    ]


async def test_a_change_before_the_breakpoint_misses_the_cache(fake: FakeModel) -> None:
    await send(fake, system=system(), messages=[user("hi")])
    changed = [{"type": "text", "text": LONG + " (today is another day)", "cache_control": MARK}]
    usage = await send(fake, system=changed, messages=[user("hi")])
    assert usage.cache_read_input_tokens == 0 and usage.cache_creation_input_tokens > 1024
    # moving the marker does not change the prompt: the first system prefix is found by looking back from it
    moved = await send(fake, system=system(marked=False), messages=[user("hi", marked=True)])
    assert moved.cache_read_input_tokens == request_tokens({"system": system()})
    assert moved.cache_creation_input_tokens == request_tokens(fake.requests[-1]) - moved.cache_read_input_tokens


async def test_the_look_back_reaches_twenty_blocks_only(fake: FakeModel) -> None:
    base = [user(LONG, marked=True)]
    await send(fake, messages=base)
    turns: list[dict[str, Any]] = [user(LONG)]
    for i in range(12):  # 24 blocks after the cached one: beyond the look-back
        turns += [assistant(f"answer {i}"), user(f"question {i}")]
    turns[-1] = user("question 11", marked=True)
    far = await send(fake, messages=turns)
    assert far.cache_read_input_tokens == 0
    turns[0] = user(LONG, marked=True)  # a second breakpoint where the earlier request had its last one
    near = await send(fake, messages=turns)
    assert near.cache_read_input_tokens > 0


async def test_a_prefix_below_the_minimum_is_not_cached(fake: FakeModel) -> None:
    first = await send(fake, messages=[user("short", marked=True)])
    second = await send(fake, messages=[user("short", marked=True)])
    assert first.cache_creation_input_tokens == second.cache_read_input_tokens == 0
    assert PromptCache(min_tokens=1).account(fake.requests[0]).cache_creation_input_tokens > 0


async def test_another_model_has_its_own_cache(fake: FakeModel) -> None:
    await send(fake, system=system(), messages=[user("hi")])
    fake.add(Reply.of(Text("ok")))
    async with client(fake) as c:
        other = await c.messages.create(model="claude-other", max_tokens=10, system=system(), messages=[user("hi")])
    assert other.usage.cache_read_input_tokens == 0


async def test_more_than_four_breakpoints_is_a_400(fake: FakeModel) -> None:
    messages = [user("a", marked=True), assistant("b"), user("c", marked=True), assistant("d"),
                user("e", marked=True), assistant("f"), user("g", marked=True)]
    with pytest.raises(anthropic.BadRequestError, match="A maximum of 4 blocks with cache_control"):
        await send(fake, system=system(), messages=messages)
    assert fake.remaining == 1  # a rejected request consumes no step


async def test_a_scripted_usage_is_reported_as_scripted_unless_counted() -> None:
    with FakeModel() as fake:
        fake.add(Reply.of(Text("ok"), usage_in=7), counted(Reply.of(Text("ok"))))
        async with client(fake) as c:
            scripted = await c.messages.create(model=MODEL, max_tokens=10, system=system(), messages=[user("hi")])
            measured = await c.messages.create(model=MODEL, max_tokens=10, system=system(), messages=[user("hi")])
    assert scripted.usage.input_tokens == 7 and scripted.usage.cache_read_input_tokens == 0
    assert measured.usage.cache_read_input_tokens > 1024  # the cache was written by the scripted one all the same


# -- thinking ------------------------------------------------------------------------------


async def test_thinking_streams_with_its_signature(fake: FakeModel) -> None:
    fake.add(Reply.of(Thinking("Let me look at the file first."), ToolUse("Read", {"file_path": "/a"}, id="toolu_1")))
    async with client(fake) as c, c.messages.stream(model=MODEL, max_tokens=100, messages=[user("hi")]) as stream:
        message = await stream.get_final_message()
    thinking, use = message.content
    assert thinking.type == "thinking" and thinking.thinking == "Let me look at the file first."
    assert thinking.signature == thinking_signature(thinking.thinking)
    assert use.type == "tool_use"


def _after_tool(thinking: list[dict[str, Any]]) -> list[dict[str, Any]]:
    use = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "text"}
    return [user("hi"), {"role": "assistant", "content": [*thinking, use]}, {"role": "user", "content": [result]}]


@pytest.mark.parametrize(
    ("sent_back", "complaint"),
    [
        ([{"type": "thinking", "thinking": "Let me look.", "signature": thinking_signature("Let me look.")}], None),
        ([{"type": "thinking", "thinking": "Let me look!", "signature": thinking_signature("Let me look.")}],
         "Invalid `signature` in `thinking` block"),
        ([], "Expected `thinking` or `redacted_thinking`, but found `tool_use`"),
    ],
)
async def test_thinking_must_come_back_intact_with_its_tool_use(
    fake: FakeModel, sent_back: list[dict[str, Any]], complaint: str | None
) -> None:
    fake.add(Reply.of(Thinking("Let me look."), ToolUse("Read", {"file_path": "/a"}, id="toolu_1")))
    async with client(fake) as c:
        await c.messages.create(model=MODEL, max_tokens=100, messages=[user("hi")])
    if complaint is None:
        assert (await send(fake, messages=_after_tool(sent_back))).output_tokens
        return
    with pytest.raises(anthropic.BadRequestError, match=complaint.replace("`", ".")):
        await send(fake, messages=_after_tool(sent_back))


async def test_cache_control_on_a_thinking_block_is_a_400(fake: FakeModel) -> None:
    thinking = {"type": "thinking", "thinking": "x", "signature": thinking_signature("x"), "cache_control": MARK}
    messages = [user("hi"), {"role": "assistant", "content": [thinking, {"type": "text", "text": "y"}]}, user("z")]
    with pytest.raises(anthropic.BadRequestError, match="Thinking blocks cannot be cached"):
        await send(fake, messages=messages)
