"""A size limit on the messages the client sends, applied where pygls reads them.

pygls reads each body whole (`read(Content-Length)`), so a client could make the
server hold any amount of memory. Bodies above the limit are read and thrown
away in pieces instead, and pygls is handed a small stand-in: a request to
`$/handrail/tooLarge` carrying the original id when the body's head names one
(so the client gets an error answer), else a notification (logged, and the user
told). The default limit takes a 50 MB document comfortably.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import BinaryIO

TOO_LARGE_METHOD = "$/handrail/tooLarge"
DEFAULT_MAX_MESSAGE_BYTES = 128 * 1024 * 1024
MAX_HEADER_LINE = 8192
_HEAD = 64 * 1024
_CHUNK = 1024 * 1024
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


class BoundedInput:
    """The client's byte stream as pygls reads it (`readline`, `read`), with header lines and bodies bounded."""

    def __init__(self, raw: BinaryIO, limit: int) -> None:
        self._raw = raw
        self.limit = limit

    def readline(self) -> bytes:
        """One header line (a longer one is cut, and so fails to parse as a header)."""
        return self._raw.readline(MAX_HEADER_LINE)

    def read(self, n: int) -> bytes:
        """A body of `n` bytes, or the stand-in for one above the limit (b"" at end of input)."""
        if n <= self.limit:
            return self._raw.read(n)
        head = self._raw.read(min(n, _HEAD))
        left = n - len(head)
        while left > 0 and head:
            piece = self._raw.read(min(left, _CHUNK))
            if not piece:
                return b""
            left -= len(piece)
        if not head:
            return b""
        return stand_in(head, n, self.limit)


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
