"""The fake Messages API, driven by the real anthropic SDK over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx2
import pytest

from handrail.fake_model import (
    EXHAUSTED_MESSAGE,
    Drop,
    FakeModel,
    Hold,
    HttpError,
    Reply,
    StreamError,
    Text,
    ToolUse,
    counted,
    cut_index,
    encode_event,
    reply_events,
    request_tokens,
    validate_request,
)

MODEL = "claude-test"
HELLO: list[Any] = [{"role": "user", "content": "hi"}]


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with FakeModel() as model:
        yield model


def client(fake: FakeModel, max_retries: int = 0) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(api_key="test", base_url=fake.base_url, max_retries=max_retries)


def tool_history(tool_id: str, result: str) -> list[Any]:
    """A valid conversation in which the model called a tool and got `result`."""
    return [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": tool_id, "name": "read", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": result}]},
    ]


# -- SSE shape ---------------------------------------------------------------------


def test_events_match_the_real_api_order() -> None:
    reply = Reply([Text("Hello, world"), ToolUse("read", {"path": "a.py"}, id="toolu_1")])
    events = reply_events(reply, MODEL, "msg_1")
    types = [e["type"] for e in events]
    assert types[:3] == ["message_start", "content_block_start", "ping"]
    assert types[-2:] == ["message_delta", "message_stop"]
    assert types.count("content_block_stop") == 2
    start = events[0]["message"]
    assert start["id"] == "msg_1"
    assert start["model"] == MODEL
    assert start["content"] == []
    assert start["stop_reason"] is None
    assert start["usage"]["output_tokens"] == 1
    assert events[-2]["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
    assert encode_event({"type": "ping"}) == b'event: ping\ndata: {"type":"ping"}\n\n'


def test_cut_index_counts_whole_and_partial_blocks() -> None:
    events = reply_events(Reply([Text("abcdefghijklmnop"), Text("x")]), MODEL)
    assert [e["type"] for e in events[: cut_index(events, 0)]] == ["message_start"]
    partial = [e["type"] for e in events[: cut_index(events, 0, partial_block=True)]]
    assert partial == ["message_start", "content_block_start", "ping", "content_block_delta"]
    assert events[cut_index(events, 1) - 1]["type"] == "content_block_stop"
    assert events[cut_index(events, 2)]["type"] == "message_delta"
    with pytest.raises(ValueError):
        cut_index(events, 3)


def test_raw_http_is_chunked_sse(fake: FakeModel) -> None:
    fake.add(Reply.of("hi"))
    body = {"model": MODEL, "max_tokens": 5, "messages": HELLO, "stream": True}
    # The query string (the SDK's beta endpoints add ?beta=true) is ignored.
    response = httpx2.post(f"{fake.base_url}/v1/messages?beta=true", json=body)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["transfer-encoding"] == "chunked"
    assert response.headers["request-id"].startswith("req_")
    assert "content-length" not in response.headers
    assert response.text.startswith('event: message_start\ndata: {"type":"message_start"')
    assert response.text.endswith('event: message_stop\ndata: {"type":"message_stop"}\n\n')


def test_unknown_path_is_a_404_json_error(fake: FakeModel) -> None:
    response = httpx2.get(f"{fake.base_url}/v1/models")
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found_error"


# -- replies -------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_text_streams_in_small_pieces(fake: FakeModel) -> None:
    text = "The quick brown fox jumps over the lazy dog."
    fake.add(Reply([Text(text)], usage_in=7, usage_out=12))
    async with client(fake) as c, c.messages.stream(model=MODEL, max_tokens=100, messages=HELLO) as stream:
        pieces = [piece async for piece in stream.text_stream]
        message = await stream.get_final_message()
    assert "".join(pieces) == text
    assert len(pieces) > 3
    assert all(1 <= len(p) <= 8 for p in pieces)
    assert message.model == MODEL
    assert message.id.startswith("msg_")
    assert [b.type for b in message.content] == ["text"]
    assert message.content[0].text == text  # type: ignore[union-attr]
    assert message.stop_reason == "end_turn"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (7, 12)
    assert fake.requests[0]["messages"] == HELLO


@pytest.mark.asyncio
async def test_tool_use_input_arrives_in_json_chunks(fake: FakeModel) -> None:
    args = {"path": "src/handrail/agent.py", "start_line": 10, "end_line": 40}
    fake.add(Reply.of("Let me look.", ToolUse("read_file", args, id="toolu_abc")))
    async with client(fake) as c, c.messages.stream(model=MODEL, max_tokens=100, messages=HELLO) as stream:
        partials = [event.partial_json async for event in stream if event.type == "input_json"]
        message = await stream.get_final_message()
    assert len(partials) > 3
    assert all(len(p) <= 10 for p in partials)
    assert json.loads("".join(partials)) == args
    tool = message.content[1]
    assert tool.type == "tool_use"
    assert (tool.id, tool.name, tool.input) == ("toolu_abc", "read_file", args)
    assert message.stop_reason == "tool_use"


@pytest.mark.asyncio
async def test_empty_tool_input_is_one_empty_delta(fake: FakeModel) -> None:
    fake.add(Reply.of(ToolUse("list_files")))
    async with client(fake) as c:
        stream = await c.messages.create(model=MODEL, max_tokens=100, messages=HELLO, stream=True)
        events = [event async for event in stream]
    deltas = [e.delta for e in events if e.type == "content_block_delta"]
    assert [(d.type, getattr(d, "partial_json", None)) for d in deltas] == [("input_json_delta", "")]
    start = next(e for e in events if e.type == "content_block_start")
    assert start.content_block.type == "tool_use"
    assert start.content_block.id.startswith("toolu_")


@pytest.mark.asyncio
async def test_raw_tool_input_is_streamed_verbatim(fake: FakeModel) -> None:
    raw = '{"path": "a.py", "oops'
    fake.add(Reply.of(ToolUse("read_file", raw)))
    async with client(fake) as c:
        stream = await c.messages.create(model=MODEL, max_tokens=100, messages=HELLO, stream=True)
        partials = [
            e.delta.partial_json  # type: ignore[union-attr]
            async for e in stream
            if e.type == "content_block_delta"
        ]
    assert "".join(partials) == raw


@pytest.mark.asyncio
async def test_max_tokens_stop_reason(fake: FakeModel) -> None:
    fake.add(Reply.of("cut sh", stop_reason="max_tokens"))
    async with client(fake) as c, c.messages.stream(model=MODEL, max_tokens=2, messages=HELLO) as stream:
        message = await stream.get_final_message()
    assert message.stop_reason == "max_tokens"


@pytest.mark.asyncio
async def test_non_streaming_request_gets_a_message(fake: FakeModel) -> None:
    fake.add(Reply.of("Summary.", ToolUse("done", {"ok": True}, id="toolu_x")))
    async with client(fake) as c:
        message = await c.messages.create(model=MODEL, max_tokens=10, messages=HELLO)
    assert message.content[0].type == "text"
    assert message.content[1].type == "tool_use"
    assert message.content[1].input == {"ok": True}
    assert message.stop_reason == "tool_use"


def test_sync_client_streams_too(fake: FakeModel) -> None:
    fake.add(Reply.of("sync works"))
    with (
        anthropic.Anthropic(api_key="test", base_url=fake.base_url, max_retries=0) as c,
        c.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream,
    ):
        assert "".join(stream.text_stream) == "sync works"


# -- HTTP errors and the SDK's retries ---------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [429, 529, 500])
async def test_sdk_retries_recover(fake: FakeModel, status: int) -> None:
    fake.add(HttpError(status), Reply.of("recovered"))
    async with client(fake, max_retries=2) as c, c.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as s:
        assert await s.get_final_text() == "recovered"
    assert len(fake.requests) == 2
    assert fake.errors == []


@pytest.mark.asyncio
async def test_http_error_body_and_headers(fake: FakeModel) -> None:
    fake.add(HttpError(429, message="slow down", retry_after=3))
    async with client(fake) as c:
        with pytest.raises(anthropic.RateLimitError) as caught:
            await c.messages.create(model=MODEL, max_tokens=10, messages=HELLO, stream=True)
    error = caught.value
    assert error.status_code == 429
    assert error.body == {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    assert error.response.headers["retry-after"] == "3"
    assert error.response.headers["retry-after-ms"] == "3000"


@pytest.mark.asyncio
async def test_overloaded_maps_to_overloaded_error(fake: FakeModel) -> None:
    fake.add(HttpError(529))
    async with client(fake) as c:
        with pytest.raises(anthropic.OverloadedError) as caught:
            await c.messages.create(model=MODEL, max_tokens=10, messages=HELLO)
    assert caught.value.body == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded error"}}


# -- faults mid-stream ---------------------------------------------------------------


@pytest.mark.asyncio
async def test_stream_error_event_raises_api_status_error(fake: FakeModel) -> None:
    """An `event: error` in a 200 stream raises exactly `anthropic.APIStatusError`.

    The status is 200, so the SDK cannot pick a subclass such as OverloadedError;
    the error type is only in `.body`. The SDK does not retry it.
    """
    fake.add(StreamError(after_blocks=1, reply=Reply.of("first block", "never sent")))
    seen: list[str] = []
    async with client(fake, max_retries=2) as c:
        with pytest.raises(anthropic.APIStatusError) as caught:
            async with c.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream:
                async for piece in stream.text_stream:
                    seen.append(piece)
    assert type(caught.value) is anthropic.APIStatusError
    assert caught.value.status_code == 200
    assert caught.value.body == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert "".join(seen) == "first block"
    assert len(fake.requests) == 1


@pytest.mark.asyncio
async def test_drop_raises_httpx_remote_protocol_error(fake: FakeModel) -> None:
    """A connection closed mid-stream raises `httpx2.RemoteProtocolError`, unwrapped.

    Errors while iterating a stream escape the SDK as raw httpx2 exceptions
    ("peer closed connection without sending complete message body"), not as
    `anthropic.APIConnectionError`, and are not retried.
    """
    fake.add(Drop(after_blocks=0, partial_block=True, reply=Reply.of("this text is cut short")), Reply.of("next"))
    seen: list[str] = []
    async with client(fake, max_retries=2) as c:
        with pytest.raises(httpx2.RemoteProtocolError) as caught:
            async with c.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream:
                async for piece in stream.text_stream:
                    seen.append(piece)
        assert not isinstance(caught.value, anthropic.APIConnectionError)
        assert seen and "this text is cut short".startswith("".join(seen))
        assert len(fake.requests) == 1
        # The server is unharmed.
        assert (await c.messages.create(model=MODEL, max_tokens=10, messages=HELLO)).content[0].type == "text"


@pytest.mark.asyncio
async def test_hold_then_client_leaves_does_not_break_server(fake: FakeModel) -> None:
    hold = Hold(Reply.of("part one", "part two"), after_blocks=1)
    fake.add(hold, Reply.of("still alive"))
    async with client(fake) as c:
        async with c.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream:
            async for event in stream:
                if event.type == "content_block_stop":
                    break
        assert hold.held.wait(5)
        # Leaving the `async with` closed the connection; the held handler notices.
        assert hold.abandoned.wait(5)
        async with c.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream:
            assert await stream.get_final_text() == "still alive"
    assert fake.errors == []


@pytest.mark.asyncio
async def test_hold_release_sends_the_rest(fake: FakeModel) -> None:
    hold = Hold(Reply.of("part one", " part two"), after_blocks=1)
    fake.add(hold)
    async with client(fake) as c, c.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream:
        async for event in stream:
            if event.type == "content_block_stop" and event.index == 0:
                assert hold.held.is_set()
                hold.release.set()
        message = await stream.get_final_message()
    assert [b.text for b in message.content] == ["part one", " part two"]  # type: ignore[union-attr]
    assert not hold.abandoned.is_set()


def test_stop_abandons_a_held_stream() -> None:
    hold = Hold(Reply.of("forever"))
    fake = FakeModel([hold])
    fake.start()
    with httpx2.stream("POST", f"{fake.base_url}/v1/messages", json={"messages": HELLO, "stream": True}) as response:
        lines = response.iter_lines()
        assert next(lines) == "event: message_start"
        assert hold.held.wait(5)
        fake.stop()
        assert hold.abandoned.wait(5)


# -- validation, callables, exhaustion -----------------------------------------------


@pytest.mark.asyncio
async def test_tool_use_without_tool_result_is_a_400(fake: FakeModel) -> None:
    fake.add(Reply.of("should not be consumed"))
    messages: list[Any] = [
        *tool_history("toolu_1", "ok"),
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "read", "input": {}}]},
        {"role": "user", "content": "forgot the result"},
    ]
    async with client(fake, max_retries=2) as c:
        with pytest.raises(anthropic.BadRequestError) as caught:
            await c.messages.create(model=MODEL, max_tokens=10, messages=messages, stream=True)
    assert "toolu_2" in caught.value.message
    assert len(fake.requests) == 1
    assert fake.errors and fake.errors[0].startswith("400 invalid_request_error: messages.3:")
    assert fake.remaining == 1  # a rejected request consumes no step


@pytest.mark.parametrize(
    ("messages", "complaint"),
    [
        ([], "at least one message"),
        (tool_history("t1", "x")[:2], "without `tool_result`"),
        (
            [
                *tool_history("t1", "x")[:2],
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "hi"}, {"type": "tool_result", "tool_use_id": "t1"}],
                },
            ],
            "without `tool_result`",
        ),
        (
            [
                *tool_history("t1", "x"),
                {"role": "assistant", "content": "ok"},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9"}]},
            ],
            "unexpected `tool_use_id`",
        ),
        (
            [
                *tool_history("t1", "x")[:2],
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}] * 2},
            ],
            "exactly one",
        ),
    ],
)
def test_validate_request_rejects(messages: list[Any], complaint: str) -> None:
    assert complaint in (validate_request({"messages": messages}) or "")


def test_validate_request_accepts_a_tool_cycle() -> None:
    assert validate_request({"messages": [*tool_history("t1", "x"), {"role": "assistant", "content": "done"}]}) is None


@pytest.mark.asyncio
async def test_callable_step_sees_the_request(fake: FakeModel) -> None:
    def echo(request: dict[str, Any]) -> Reply:
        return Reply.of("you sent: " + request["messages"][-1]["content"][0]["content"])

    fake.add(echo)
    async with client(fake) as c:
        stream = c.messages.stream(model=MODEL, max_tokens=10, messages=tool_history("toolu_1", "file contents"))
        async with stream as s:
            assert await s.get_final_text() == "you sent: file contents"


@pytest.mark.asyncio
async def test_exhausted_script_is_a_500_not_retried(fake: FakeModel) -> None:
    async with client(fake, max_retries=2) as c:
        with pytest.raises(anthropic.InternalServerError) as caught:
            await c.messages.create(model=MODEL, max_tokens=10, messages=HELLO, stream=True)
    assert EXHAUSTED_MESSAGE in caught.value.message
    assert len(fake.requests) == 1
    assert fake.errors == [f"500 api_error: {EXHAUSTED_MESSAGE}"]


@pytest.mark.asyncio
async def test_crashing_step_is_a_500_and_the_server_survives(
    fake: FakeModel, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(request: dict[str, Any]) -> Reply:
        raise KeyError("nope")

    fake.add(broken, Reply.of("fine"))
    async with client(fake, max_retries=2) as c:
        with pytest.raises(anthropic.InternalServerError):
            await c.messages.create(model=MODEL, max_tokens=10, messages=HELLO)
        assert (await c.messages.create(model=MODEL, max_tokens=10, messages=HELLO)).content[0].type == "text"
    assert "KeyError" in capsys.readouterr().err
    assert len(fake.errors) == 1


def test_wait_for_requests(fake: FakeModel) -> None:
    fake.add(Reply.of("one"))
    httpx2.post(f"{fake.base_url}/v1/messages", json={"model": MODEL, "messages": HELLO})
    assert len(fake.wait_for_requests(1, timeout=5)) == 1
    with pytest.raises(TimeoutError):
        fake.wait_for_requests(2, timeout=0)


# -- usage counted from the request ------------------------------------------------


async def test_a_counted_reply_reports_the_requests_size_as_its_input_tokens(fake: FakeModel) -> None:
    fake.add(counted(Reply.of(Text("short"))), counted(Reply.of(Text("longer"))))
    longer: list[Any] = [{"role": "user", "content": "x" * 4000}]
    async with client(fake) as c:
        async with c.messages.stream(model=MODEL, max_tokens=100, messages=HELLO, system="be brief") as stream:
            first = await stream.get_final_message()
        second = await c.messages.create(model=MODEL, max_tokens=100, messages=longer)
    requests = fake.requests
    assert first.usage.input_tokens == request_tokens(requests[0]) > 0
    assert second.usage.input_tokens == request_tokens(requests[1]) >= 1000
    fake.forget_requests()
    assert fake.requests == []
