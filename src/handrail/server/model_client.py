"""The model, reached through the anthropic SDK: one streamed response per call, with retries.

The SDK is imported on first use: importing it costs about a second, which an
editor would otherwise wait for at every start. It talks HTTP through aiohttp (the
SDK's `DefaultAioHttpClient`): its C parser costs about 1 ms less per round trip
than the default pure-Python stack, which a turn of one tool call per response pays
at every call.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from handrail.server.message_builder import MessageBuilder
from handrail.server.request_body import RequestBody
from handrail.tools.execution import ToolUse

if TYPE_CHECKING:
    import anthropic

log = logging.getLogger(__name__)

DEFAULT_MODEL = "claude-sonnet-5-5"

_RETRYABLE_ERROR_TYPES = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}


@dataclass(frozen=True)
class ModelSettings:
    """How to reach the model; values come from client settings, then the environment."""

    model: str = DEFAULT_MODEL
    max_tokens: int = 8192
    api_key: str | None = None
    base_url: str | None = None
    sdk_max_retries: int = 2
    # failures after the stream started are retried by the agent loop (when no tool started yet)
    stream_retries: int = 3
    retry_base_delay: float = 0.5
    # a stream that sends nothing (not even a ping) for this long is abandoned and retried
    stream_idle_timeout: float = 90.0
    # a server's retry-after is honoured up to this many seconds
    max_retry_after: float = 60.0
    # the model's context window in tokens: the history is compacted as the last request nears it
    context_window: int = 200_000


@dataclass(frozen=True)
class ModelResponse:
    """One finished assistant message: content blocks as API dicts, and why it stopped."""

    content: list[dict[str, Any]]
    stop_reason: str | None
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The message's text blocks, joined."""
        return "".join(block.get("text", "") for block in self.content if block.get("type") == "text")


class ModelError(Exception):
    """The model could not be reached or answered with an error that retries did not cure."""


class StreamFault(Exception):
    """The stream broke in a way the SDK does not classify: it stalled, or sent events that do not parse."""


def retry_after_seconds(exc: BaseException) -> float | None:
    """The wait an error response asks for (`retry-after-ms` or `retry-after` in seconds), if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue  # an HTTP date: rare for this API; fall back to our own backoff
        if seconds >= 0:
            return seconds
    return None


def is_retryable(exc: BaseException) -> bool:
    import anthropic
    import httpx2

    if isinstance(exc, anthropic.APIConnectionError | httpx2.TransportError | StreamFault):
        return True
    if isinstance(exc, anthropic.APIStatusError):
        body = exc.body if isinstance(exc.body, dict) else {}
        error = body.get("error") if isinstance(body.get("error"), dict) else {}
        error_type = error.get("type") if isinstance(error, dict) else None
        return error_type in _RETRYABLE_ERROR_TYPES or exc.status_code in {408, 409, 429, 529} or (
            exc.status_code >= 500
        )
    return False


def describe_error(exc: BaseException) -> str:
    """A sentence a user can read for a model failure."""
    import anthropic

    if isinstance(exc, anthropic.AuthenticationError):
        return "The model API rejected the API key (set ANTHROPIC_API_KEY or handrail.apiKey)."
    if isinstance(exc, anthropic.APIStatusError):
        body = exc.body if isinstance(exc.body, dict) else {}
        error = body.get("error") if isinstance(body.get("error"), dict) else {}
        message = error.get("message") if isinstance(error, dict) else None
        return f"The model API answered {exc.status_code}: {message or exc.message}"
    if isinstance(exc, anthropic.APIConnectionError):
        return f"Could not reach the model API: {exc}"
    if isinstance(exc, StreamFault):
        return f"The model stream broke: {exc}"
    return f"{type(exc).__name__}: {exc}"


class ModelClient:
    """Streams assistant messages through the SDK (whose own retries cover failures before the stream starts)."""

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self._client: anthropic.AsyncAnthropic | None = None
        self._body = RequestBody()

    def _sdk(self) -> anthropic.AsyncAnthropic:
        if self._client is None:
            import anthropic

            self._client = anthropic.AsyncAnthropic(
                api_key=self.settings.api_key,
                base_url=self.settings.base_url,
                max_retries=self.settings.sdk_max_retries,
                http_client=anthropic.DefaultAioHttpClient(),
            )
        return self._client

    def retry_delay(self, attempt: int, exc: BaseException | None = None) -> float:
        """Seconds to wait before retry number `attempt` (1-based), with jitter.

        A `retry-after` the server sent with `exc` is honoured (never waiting less),
        up to `max_retry_after` so a hostile or confused server cannot park a turn.
        """
        backoff = float(self.settings.retry_base_delay * (2 ** (attempt - 1)) * (0.75 + random.random() / 2))
        asked = retry_after_seconds(exc) if exc is not None else None
        if asked is None:
            return backoff
        return min(max(backoff, asked), self.settings.max_retry_after)

    async def stream_once(
        self,
        *,
        system: str,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        on_text: Callable[[str], None],
        on_tool_use: Callable[[ToolUse], None],
    ) -> ModelResponse:
        """Stream one assistant message.

        `on_text` gets each text delta; `on_tool_use` each tool_use block as soon as
        it is complete, with its input parsed strictly from the streamed JSON (a
        block whose JSON does not parse comes with `input_error` set). Errors
        propagate; the caller decides whether to retry (`is_retryable`).
        """
        import anthropic

        client = self._sdk()
        body = self._body.encode(model=self.settings.model, max_tokens=self.settings.max_tokens, system=system,
                                 messages=messages, tools=tools)
        message = MessageBuilder(on_text, on_tool_use)
        idle = self.settings.stream_idle_timeout
        loop = asyncio.get_running_loop()
        try:
            # the deadline moves on with every event: it bounds silence, not the length of an answer; the first
            # wait covers the response headers and the SDK's own retries (whose waits it caps at 60 s)
            async with asyncio.timeout(idle) as deadline:
                stream = await client.post(
                    "/v1/messages",
                    cast_to=anthropic.types.Message,
                    content=body,
                    options={"headers": {"content-type": "application/json"}},
                    stream=True,
                    # events as the JSON objects they are: MessageBuilder reads them as such
                    stream_cls=anthropic.AsyncStream[object],
                )
                async with stream:
                    async for event in stream:
                        deadline.reschedule(loop.time() + idle)
                        message.feed(event)
        except TimeoutError as exc:
            if deadline.expired():
                raise StreamFault(f"no data from the model API for {idle:g} s") from exc
            raise
        except (ValueError, KeyError, IndexError) as exc:
            # the SDK parses each SSE event as it comes: garbage surfaces as one of these
            raise StreamFault(f"malformed event stream ({type(exc).__name__}: {exc})") from exc
        if not message.started:
            raise StreamFault("the event stream ended before the message started")
        return ModelResponse(content=message.content(), stop_reason=message.stop_reason, usage=message.usage)

    async def close(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            await self._client.close()
