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

from handrail.agent.message_builder import MessageBuilder
from handrail.agent.model_catalog import model_info
from handrail.agent.model_errors import (
    ModelError,
    ModelFailure,
    StreamFault,
    describe_failure,
    is_retryable,
    no_api_key,
    retry_after_seconds,
)
from handrail.agent.request_body import RequestBody
from handrail.tools.execution import ToolUse

__all__ = [
    "DEFAULT_MODEL",
    "ModelClient",
    "ModelError",
    "ModelFailure",
    "ModelResponse",
    "ModelSettings",
    "StreamFault",
    "describe_failure",
    "is_retryable",
    "retry_after_seconds",
    "thinking_fields",
]

if TYPE_CHECKING:
    import anthropic

log = logging.getLogger(__name__)

DEFAULT_MODEL = "claude-sonnet-5-5"
DEFAULT_MAX_TOKENS = 32_000  # thinking counts against it too
EFFORT_OFF = "off"
# how a model's answer shows its thinking: "summarized" returns the text the chat shows (folded), where
# some models would otherwise return it empty
_THINKING_DISPLAY = "summarized"


@dataclass(frozen=True)
class ModelSettings:
    """How to reach the model; values come from client settings, then the environment."""

    model: str = DEFAULT_MODEL
    max_tokens: int = DEFAULT_MAX_TOKENS
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
    # how hard an adaptive-thinking model thinks: low, medium, high, xhigh, max; "off" for no thinking;
    # None for the model's own default
    effort: str | None = None


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


def thinking_fields(model: str, effort: str | None) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The request's `thinking` and `output_config` for `model` at `effort` (None: leave the field out).

    Adaptive thinking for the models that have it; `off` sends the model's off switch, or, for a model that
    always thinks, the lowest effort. Models handrail does not know get neither field.
    """
    info = model_info(model)
    if info is None:
        return None, None
    if effort == EFFORT_OFF:
        if not info.adaptive_thinking:
            return None, None  # these think only when asked to
        if info.off_switch is None:
            return {"type": "adaptive", "display": _THINKING_DISPLAY}, {"effort": "low"}
        return {"type": info.off_switch}, None
    thinking = {"type": "adaptive", "display": _THINKING_DISPLAY} if info.adaptive_thinking else None
    return thinking, ({"effort": effort} if effort and info.effort else None)


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
        client = self._client
        if not client.api_key and not client.auth_token and client.credentials is None:
            raise no_api_key()  # the SDK would say so with a TypeError at the first request
        return client

    def prepare(self) -> None:
        """Make the SDK client now (it loads a TLS context: tens of milliseconds) rather than at the first
        request; raises what the first request would (no API key, say)."""
        self._sdk()

    def describe(self, exc: BaseException) -> ModelFailure:
        """A failure of this client's requests, in words the user can act on."""
        return describe_failure(exc, model=self.settings.model, base_url=self.settings.base_url)

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
        on_text: Callable[[str], None] | None = None,
        on_tool_use: Callable[[ToolUse], None] | None = None,
        on_thinking: Callable[[str], None] | None = None,
        message: MessageBuilder | None = None,
        cache: bool = True,
    ) -> ModelResponse:
        """Stream one assistant message.

        `on_text` gets each text delta, `on_thinking` each thinking delta; `on_tool_use` each tool_use block as
        soon as it is complete, with its input parsed strictly from the streamed JSON (a block whose JSON does
        not parse comes with `input_error` set). A caller that needs the blocks completed so far when the
        stream fails passes its own `message` builder. `cache` marks the prompt for caching (see
        `RequestBody`); a one-off request leaves it out. Errors propagate; the caller decides whether to
        retry (`is_retryable`) and says what went wrong with `describe`.
        """
        import anthropic

        client = self._sdk()
        thinking, output_config = thinking_fields(self.settings.model, self.settings.effort)
        body = self._body.encode(
            model=self.settings.model, max_tokens=self.settings.max_tokens, system=system, messages=messages,
            tools=tools, thinking=thinking, output_config=output_config, cache=cache,
        )
        if message is None:
            message = MessageBuilder(on_text, on_tool_use, on_thinking)
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
        except (ValueError, KeyError, IndexError, RecursionError) as exc:
            # the SDK parses each SSE event as it comes: garbage (or an event nested absurdly deep) surfaces so
            raise StreamFault(f"malformed event stream ({type(exc).__name__}: {exc})") from exc
        if not message.started:
            raise StreamFault("the event stream ended before the message started")
        return ModelResponse(content=message.content(), stop_reason=message.stop_reason, usage=message.usage)

    async def close(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            await self._client.close()
