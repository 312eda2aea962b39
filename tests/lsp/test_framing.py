"""BoundedReader: the client's messages read in chunks (one thread hop for a burst), with a size limit."""

from __future__ import annotations

import io
import json
from typing import Any

from handrail.lsp.framing import MAX_HEADER_LINE, TOO_LARGE_METHOD, BoundedReader


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class CountingStream(io.BytesIO):
    """A byte stream that counts the reads made of it (each one a thread hop in the server)."""

    reads = 0

    def read(self, size: int | None = -1, /) -> bytes:
        self.reads += 1
        return super().read(size)

    def read1(self, size: int | None = -1, /) -> bytes:
        self.reads += 1
        return super().read1(size)


async def _read_message(reader: BoundedReader) -> bytes:
    """One message the way pygls's loop reads it: header lines up to a blank one, then the body."""
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return await reader.readexactly(length) if length else b""


async def test_a_burst_of_messages_takes_one_read() -> None:
    messages = [{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"n": n}} for n in range(100)]
    stream = CountingStream(b"".join(_frame(m) for m in messages))
    reader = BoundedReader(stream, limit=1 << 20)
    assert [json.loads(await _read_message(reader)) for _ in messages] == messages
    assert stream.reads == 1  # pygls 2.1.1's reader makes three per message
    assert await reader.readline() == b""


async def test_a_body_longer_than_one_chunk_is_read_whole_in_one_more_read() -> None:
    message = {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"text": "x" * 1_000_000}}
    stream = CountingStream(_frame(message) + _frame({"jsonrpc": "2.0", "method": "after"}))
    reader = BoundedReader(stream, limit=1 << 21)
    assert json.loads(await _read_message(reader)) == message
    assert stream.reads == 2
    assert json.loads(await _read_message(reader))["method"] == "after"


async def test_a_body_over_the_limit_becomes_a_stand_in_and_the_next_message_reads() -> None:
    big = {"jsonrpc": "2.0", "id": 7, "method": "workspace/executeCommand", "params": {"prompt": "z" * 300_000}}
    stream = CountingStream(_frame(big) + _frame({"jsonrpc": "2.0", "method": "after"}))
    reader = BoundedReader(stream, limit=100_000)
    stand_in = json.loads(await _read_message(reader))
    assert stand_in["method"] == TOO_LARGE_METHOD and stand_in["id"] == 7
    assert stand_in["params"]["method"] == "workspace/executeCommand" and stand_in["params"]["limit"] == 100_000
    assert json.loads(await _read_message(reader))["method"] == "after"


async def test_a_header_line_too_long_is_cut() -> None:
    line = b"X-Junk: " + b"j" * (2 * MAX_HEADER_LINE) + b"\r\n"
    reader = BoundedReader(io.BytesIO(line), limit=1 << 20)
    assert len(await reader.readline()) == MAX_HEADER_LINE
    assert len(await reader.readline()) == MAX_HEADER_LINE
    assert await reader.readline() == b"j" * (len(line) - 2 * MAX_HEADER_LINE - 2) + b"\r\n"


async def test_a_stream_ending_inside_a_body_gives_nothing() -> None:
    reader = BoundedReader(io.BytesIO(b"Content-Length: 100\r\n\r\n{\"jsonrpc\""), limit=1 << 20)
    assert await _read_message(reader) == b""
    assert await reader.readline() == b""
