"""Frozen dataclasses describing what the fake model does, one step per request."""

from __future__ import annotations

import base64
import hashlib
import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias


def new_tool_use_id() -> str:
    """Return a fresh id shaped like the real API's (`toolu_...`)."""
    return "toolu_" + secrets.token_hex(12)


@dataclass(frozen=True)
class Text:
    """A text content block."""

    text: str


@dataclass(frozen=True)
class ToolUse:
    """A tool_use content block.

    `input` as a str is raw JSON text streamed as-is, so a script can send
    malformed or truncated JSON; a dict is serialised with `json.dumps`.
    """

    name: str
    input: dict[str, Any] | str = field(default_factory=dict)
    id: str = field(default_factory=new_tool_use_id)


def new_server_tool_use_id() -> str:
    """Return a fresh id shaped like the real API's server tool ids (`srvtoolu_...`)."""
    return "srvtoolu_" + secrets.token_hex(12)


@dataclass(frozen=True)
class ServerToolUse:
    """A server_tool_use block (the API ran the tool itself, e.g. web_search); its input streams as JSON."""

    name: str
    input: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=new_server_tool_use_id)


@dataclass(frozen=True)
class WebSearchResult:
    """A web_search_tool_result block answering a ServerToolUse; `results` are (url, title) pairs."""

    tool_use_id: str
    results: Sequence[tuple[str, str]] = ()

    def content_block(self) -> dict[str, Any]:
        """The block as the API sends it (whole, in content_block_start)."""
        content = [
            {"type": "web_search_result", "url": url, "title": title, "encrypted_content": "enc-" + title,
             "page_age": None}
            for url, title in self.results
        ]
        return {"type": "web_search_tool_result", "tool_use_id": self.tool_use_id, "content": content}


_SIGNATURE_KEY = b"handrail-fake-model-thinking"


def thinking_signature(thinking: str) -> str:
    """The signature the fake gives a thinking block: it checks blocks sent back against it, as the API does."""
    digest = hashlib.sha256(_SIGNATURE_KEY + thinking.encode()).digest()
    return base64.b64encode(digest).decode()


@dataclass(frozen=True)
class Thinking:
    """A thinking block, streamed as thinking deltas followed by its signature."""

    thinking: str

    @property
    def signature(self) -> str:
        """The block's signature (derived from its text, so an altered text no longer matches)."""
        return thinking_signature(self.thinking)

    def content_block(self) -> dict[str, Any]:
        """The block as the API returns it."""
        return {"type": "thinking", "thinking": self.thinking, "signature": self.signature}


Block: TypeAlias = Text | ToolUse | ServerToolUse | WebSearchResult | Thinking


@dataclass(frozen=True)
class Reply:
    """One complete assistant message.

    `stop_reason` defaults to "tool_use" when any block is a ToolUse, else
    "end_turn"; pass e.g. "max_tokens" to override. `usage_in` None reports the
    request's own size as the API would, split into uncached input, cache writes
    and cache reads (see `prompt_cache`); `counted` and `FakeModel(count_usage=True)` ask for it.
    """

    blocks: Sequence[Block] = ()
    stop_reason: str | None = None
    usage_in: int | None = 10
    usage_out: int = 10

    def __post_init__(self) -> None:
        # Accept any iterable (a list is the natural thing to write) but store a tuple.
        object.__setattr__(self, "blocks", tuple(self.blocks))

    @classmethod
    def of(
        cls, *blocks: Block | str, stop_reason: str | None = None, usage_in: int | None = 10, usage_out: int = 10
    ) -> Reply:
        """Build a reply from blocks given positionally; a bare str becomes a Text."""
        content = tuple(Text(b) if isinstance(b, str) else b for b in blocks)
        return cls(content, stop_reason, usage_in, usage_out)

    @property
    def resolved_stop_reason(self) -> str:
        """The stop_reason actually sent."""
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if any(isinstance(b, ToolUse) for b in self.blocks) else "end_turn"


_ERROR_TYPE_FOR_STATUS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}

_STATUS_FOR_ERROR_TYPE = {v: k for k, v in _ERROR_TYPE_FOR_STATUS.items()}


def error_type_for_status(status: int) -> str:
    """The real API's error type for an HTTP status."""
    return _ERROR_TYPE_FOR_STATUS.get(status, "api_error")


def status_for_error_type(error_type: str) -> int:
    """The HTTP status the real API uses for an error type (500 if unknown)."""
    return _STATUS_FOR_ERROR_TYPE.get(error_type, 500)


@dataclass(frozen=True)
class HttpError:
    """Answer with a JSON error response instead of a message.

    `error_type` and `message` default from the status (429 → rate_limit_error,
    529 → overloaded_error, otherwise api_error).
    """

    status: int
    error_type: str | None = None
    message: str | None = None
    retry_after: float | None = None

    @property
    def resolved_error_type(self) -> str:
        """The error type actually sent."""
        return self.error_type or error_type_for_status(self.status)

    @property
    def resolved_message(self) -> str:
        """The error message actually sent."""
        return self.message or self.resolved_error_type.replace("_", " ").capitalize()


@dataclass(frozen=True)
class StreamError:
    """Start a 200 SSE stream of `reply`, then send an `error` event and end it.

    The first `after_blocks` blocks are sent whole; with `partial_block` the
    next block is started and half of its deltas sent too.
    """

    after_blocks: int = 0
    error_type: str = "overloaded_error"
    message: str = "Overloaded"
    reply: Reply = Reply()
    partial_block: bool = False


@dataclass(frozen=True)
class Drop:
    """Start the SSE stream of `reply`, then close the TCP connection mid-stream."""

    after_blocks: int = 0
    reply: Reply = Reply()
    partial_block: bool = False


@dataclass(frozen=True)
class Hold:
    """Stream part of `reply`, then wait for `release` before sending the rest.

    `held` is set when the server starts answering with this step (before the
    first byte), so a client that has seen the part before the hold knows the
    server is holding. `abandoned` is set if the client went away (or the
    server stopped) while held; the rest is then never sent.
    """

    reply: Reply
    after_blocks: int = 0
    release: threading.Event = field(default_factory=threading.Event, compare=False)
    partial_block: bool = False
    held: threading.Event = field(default_factory=threading.Event, compare=False)
    abandoned: threading.Event = field(default_factory=threading.Event, compare=False)


@dataclass(frozen=True)
class Malformed:
    """Start the SSE stream of `reply`, then send `data` (bytes that are no valid event) and end the stream.

    Without streaming, the response is a 200 whose body is `data`.
    """

    after_blocks: int = 0
    reply: Reply = Reply()
    data: bytes = b"event: content_block_delta\ndata: {not json\n\n"
    partial_block: bool = False


Fault: TypeAlias = HttpError | StreamError | Drop | Hold | Malformed
Step: TypeAlias = Reply | Fault | Callable[[dict[str, Any]], "Step"]
"""One scripted answer; a callable computes it from the request's JSON body."""


@dataclass(frozen=True)
class Script:
    """Steps consumed in order, one per POST /v1/messages."""

    steps: Sequence[Step] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", tuple(self.steps))
