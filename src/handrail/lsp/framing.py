"""Reading the client's messages for pygls: in chunks, and with a size limit.

pygls 2.1.1 hops to a thread for every header line and every body it reads, three
or four hops a message (each a thread wake-up and a loop wake-up); `BoundedReader`
reads whatever the pipe holds in one hop and serves lines and bodies from that, so
a burst of keystrokes' didChange notifications costs a hop or two, not hundreds.

pygls reads each body whole, so a client could make the server hold any amount of
memory. Bodies above the limit are read and thrown away in pieces instead, and
pygls is handed a small stand-in: a request to `$/handrail/tooLarge` carrying the
original id when the body's head names one (so the client gets an error answer),
else a notification (logged, and the user told). The default limit takes a 50 MB
document comfortably.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from typing import BinaryIO

TOO_LARGE_METHOD = "$/handrail/tooLarge"
DEFAULT_MAX_MESSAGE_BYTES = 128 * 1024 * 1024
MAX_HEADER_LINE = 8192
_HEAD = 64 * 1024
_CHUNK = 1024 * 1024
_READ = 64 * 1024  # what one hop reads at most when the next message's size is not known yet
# the first top-level-looking id and method in the head of a body (clients write them before params)
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
_METHOD = re.compile(rb'"method"\s*:\s*"((?:[^"\\]|\\.){1,200})"')


def max_message_bytes(env: Mapping[str, str] | None = None) -> int:
    """The limit: `HANDRAIL_MAX_MESSAGE_BYTES`, else the default."""
    env = os.environ if env is None else env
    try:
        value = int(env.get("HANDRAIL_MAX_MESSAGE_BYTES") or DEFAULT_MAX_MESSAGE_BYTES)
    except ValueError:
        return DEFAULT_MAX_MESSAGE_BYTES
    return value if value > 0 else DEFAULT_MAX_MESSAGE_BYTES


class BoundedReader:
    """The client's byte stream as pygls's message loop reads it (`readline`, `readexactly`), bounded."""

    def __init__(self, raw: BinaryIO, limit: int, executor: Executor | None = None) -> None:
        self._raw = raw
        self.limit = limit
        self._executor = executor
        self._buffer = bytearray()
        self._ended = False

    async def _in_thread(self, read: Callable[[int], bytes], size: int) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(self._executor, read, size)

    async def _fill(self) -> bool:
        """Add what the stream holds (waiting for at least a byte) to the buffer; False at its end."""
        chunk = b"" if self._ended else await self._in_thread(self._raw.read1, _READ)  # type: ignore[attr-defined]
        self._ended = not chunk
        self._buffer += chunk
        return not self._ended

    def _take(self, size: int) -> bytes:
        taken = bytes(self._buffer[:size])
        del self._buffer[:size]
        return taken

    async def readline(self) -> bytes:
        """One header line (a longer one is cut, and so fails to parse as a header); b"" at the end."""
        while (end := self._buffer.find(b"\n", 0, MAX_HEADER_LINE)) < 0:
            if len(self._buffer) >= MAX_HEADER_LINE or not await self._fill():
                return self._take(MAX_HEADER_LINE)
        return self._take(end + 1)

    async def readexactly(self, size: int) -> bytes:
        """A body of `size` bytes, or the stand-in for one above the limit (b"" if the stream ends first)."""
        if size > self.limit:
            return await self._refuse(size)
        if not await self._gather(size):
            return b""
        return self._take(size)

    async def _gather(self, size: int) -> bool:
        """Read until the buffer holds `size` bytes (what is missing in one hop); False, and nothing left
        to read, if the stream ends first."""
        missing = size - len(self._buffer)
        if missing > 0:
            rest = await self._in_thread(self._raw.read, missing)
            self._buffer += rest
            self._ended = len(rest) < missing
        if len(self._buffer) < size:
            self._buffer.clear()
            return False
        return True

    async def _refuse(self, size: int) -> bytes:
        """Read and drop a body above the limit, keeping its head to name it in the stand-in."""
        head_size = min(size, _HEAD)
        if not await self._gather(head_size):
            return b""
        head = self._take(head_size)
        left = size - head_size
        dropped = min(left, len(self._buffer))
        del self._buffer[:dropped]
        left -= dropped
        while left > 0:
            piece = await self._in_thread(self._raw.read, min(left, _CHUNK))
            if not piece:
                self._ended = True
                return b""
            left -= len(piece)
        return stand_in(head, size, self.limit)


def stand_in(head: bytes, size: int, limit: int) -> bytes:
    """The small message pygls gets instead of a body that was too large."""
    method = _METHOD.search(head)
    params = {"size": size, "limit": limit, "method": method.group(1).decode("utf-8", "replace") if method else None}
    message = f'{{"jsonrpc": "2.0", "method": "{TOO_LARGE_METHOD}", "params": {json.dumps(params)}'
    found = _ID.search(head)
    if found and method:
        message += f', "id": {found.group(1).decode("utf-8", "replace")}'
    return (message + "}").encode()


def refusal_message(params: object) -> str:
    """What the client (or the user) is told about a refused message."""
    values = params if isinstance(params, dict) else {}
    method = values.get("method") or "a message"
    size, limit = values.get("size"), values.get("limit")
    if isinstance(size, int) and isinstance(limit, int):
        return (f"handrail ignored {method} from the editor: {size / 1e6:.1f} MB is over the "
                f"{limit / 1e6:.1f} MB limit (HANDRAIL_MAX_MESSAGE_BYTES)")
    return f"handrail ignored {method} from the editor: it is too large"
