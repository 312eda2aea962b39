"""The agent loop: ask the model, run the tools it asks for as their blocks stream in, feed results back.

Invariant kept on every path (success, model error, stream failure, max_tokens,
cancellation): each `tool_use` in the history is answered by exactly one
`tool_result` in the next user message, and no tool runs twice — a stream that
fails after a tool started is not retried; its calls are answered instead.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from handrail.agent.compaction import (
    clear_old_tool_results,
    cleared_enough,
    context_size,
    estimate_tokens,
    is_prompt_too_long,
    needs_compaction,
    summarize_older_turns,
)
from handrail.agent.message_builder import MessageBuilder
from handrail.agent.model_client import ModelClient, ModelFailure, ModelResponse, is_retryable
from handrail.agent.session import Session, content_blocks
from handrail.agent.usage import TurnUsage
from handrail.tools.context import ToolUseContext
from handrail.tools.execution import CallOutcome, ToolUse, error_block
from handrail.tools.messages import ContentBlock, Message, is_tool_use
from handrail.tools.orchestration import is_read_only_call
from handrail.tools.protocol import Tool
from handrail.tools.streaming_executor import StreamingToolExecutor

log = logging.getLogger(__name__)

MAX_TOKENS_NOTE = "The response hit the output token limit before this call was complete, so it was stopped."
TOO_LONG_REASON = "The conversation no longer fits the model's context window; compacting it."
# Claude Code's words for a turn the user stopped: models trained on them know what they mean
INTERRUPTED = "[Request interrupted by user]"
MAX_COMPACTIONS = 2  # per request: clear old tool results, then summarize older turns


class TurnListener(Protocol):
    """Who hears about a turn as it happens (the chat view)."""

    def text(self, delta: str) -> None:
        """A piece of assistant text."""
        ...

    def thinking(self, delta: str) -> None:
        """A piece of the model's thinking."""
        ...

    def retry(self, reason: str) -> None:
        """The model stream failed and is being retried; drop the partial message."""
        ...


@dataclass(frozen=True)
class TurnResult:
    """How a turn ended and the final assistant text (and, when it failed, why, in words a user can act on)."""

    stop_reason: str
    text: str
    error: ModelFailure | None = None


@dataclass(frozen=True)
class TurnConfig:
    """What a turn needs besides the session."""

    model: ModelClient
    tools: Sequence[Tool[Any]]
    system: str
    definitions: Callable[[], list[dict[str, Any]]]
    max_turns: int = 50
    # called whenever messages were added to the history (to save the transcript); must not block
    on_history: Callable[[], object] | None = None
    usage: TurnUsage | None = None
    # user content to add after a message's tool results (e.g. instructions of folders the calls reached)
    reminders: Callable[[Sequence[ToolUse]], Awaitable[list[ContentBlock]]] | None = None
    # lines to add after the prompt (e.g. that the date changed since the system prompt was written)
    notes: Sequence[str] = ()


def add_user_content(messages: list[Message], blocks: list[ContentBlock]) -> None:
    """Append user content, merging into a trailing user message so roles keep alternating."""
    if not blocks:
        return
    if messages and messages[-1]["role"] == "user":
        messages[-1]["content"] = [*content_blocks(messages[-1]), *blocks]
    else:
        messages.append({"role": "user", "content": blocks})


def mark_interrupted(messages: list[Message]) -> None:
    """Say in the history that the user stopped the turn here, so the next prompt reads as a new request
    (not as more of the one that was cut short)."""
    if messages:
        add_user_content(messages, [{"type": "text", "text": INTERRUPTED}])


def _unanswered(content: list[ContentBlock], outcomes: Sequence[CallOutcome]) -> list[ContentBlock]:
    """Error results for tool_use blocks the stream never completed (so no call was made for them)."""
    answered = {o.block.get("tool_use_id") for o in outcomes}
    return [
        error_block(block["id"], MAX_TOKENS_NOTE)
        for block in content
        if is_tool_use(block) and block.get("id") not in answered
    ]


def _record_results(session: Session, outcomes: Sequence[CallOutcome]) -> None:
    add_user_content(session.messages, [o.block for o in outcomes])
    for outcome in outcomes:
        for message in outcome.new_messages:
            add_user_content(session.messages, list(message.get("content", [])))


class _Attempt:
    """One streamed request: the message as it streams in and the executor running its tool calls."""

    def __init__(self, session: Session, config: TurnConfig, listener: TurnListener,
                 make_context: Callable[[Session], ToolUseContext]) -> None:
        def remember_rule(outcome: CallOutcome) -> None:
            for rule in outcome.new_rules:
                session.allow_always(rule)  # later calls of this message see it at once

        self.executor = StreamingToolExecutor(config.tools, lambda: make_context(session), on_outcome=remember_rule)
        self.message = MessageBuilder(listener.text, self.executor.add, listener.thinking)

    async def close_partial(self, session: Session, *, interrupted: bool) -> None:
        """The message will not complete: answer its calls and keep the history valid.

        A message the user interrupted stays in the history as far as it streamed (its thinking unchanged),
        so the model knows what it had said; one that failed is kept only when its calls must be answered.
        """
        if interrupted:
            await self.executor.interrupt()
        else:
            await self.executor.discard("streaming_fallback")
        partial = self.message.partial()
        said = any(block.get("type") not in ("thinking", "redacted_thinking") for block in partial)
        if self.executor.started_any or (interrupted and said):
            session.messages.append({"role": "assistant", "content": partial})
            _record_results(session, self.executor.outcomes())


def _early_reminders(config: TurnConfig, uses: Sequence[ToolUse]) -> asyncio.Future[list[ContentBlock]] | None:
    """The reminders' lookup, started while the calls run, when none of them can change files (so it finds
    what it would find after them): it is a thread hop that would otherwise follow the calls."""
    if config.reminders is None or not uses or not all(is_read_only_call(use, config.tools) for use in uses):
        return None
    return asyncio.ensure_future(config.reminders(uses))


async def _compact(session: Session, config: TurnConfig, level: int) -> bool:
    """Shrink the history in place: level 1 clears old tool results, level 2 also summarizes older turns.

    Level 1 goes on to summarize when clearing changed nothing or left too little room. Returns whether
    the history changed.
    """
    before = estimate_tokens(session.messages)
    compacted = clear_old_tool_results(session.messages)
    cleared = estimate_tokens(compacted)
    room = cleared_enough(session.context_tokens, before - cleared, config.model.settings.context_window)
    if level >= 2 or cleared >= before or not room:
        usage, model = config.usage, config.model.settings.model
        summarized = await summarize_older_turns(
            config.model, config.system, config.definitions(), compacted,
            on_usage=(lambda response: usage.add(response, model)) if usage is not None else None,
        )
        compacted = summarized if summarized is not None else compacted
    after = estimate_tokens(compacted)
    if after >= before:
        return False
    session.messages[:] = compacted
    session.context_tokens = after
    return True


async def _stream(session: Session, config: TurnConfig, attempt: _Attempt) -> ModelResponse:
    return await config.model.stream_once(
        system=config.system, messages=session.messages, tools=config.definitions(), message=attempt.message
    )


async def run_turn(
    session: Session,
    prompt: str | Sequence[ContentBlock],
    config: TurnConfig,
    listener: TurnListener,
    make_context: Callable[[Session], ToolUseContext],
) -> TurnResult:
    """Run one user turn to its end (`prompt`: the user's text, or content blocks such as an MCP prompt's).
    Cancellation propagates after the history is made valid and says where the user stopped it."""
    blocks: list[ContentBlock] = [{"type": "text", "text": prompt}] if isinstance(prompt, str) else list(prompt)
    notes: list[ContentBlock] = [{"type": "text", "text": text} for text in config.notes]
    add_user_content(session.messages, [*blocks, *notes])
    try:
        return await _run_turn(session, config, listener, make_context)
    except asyncio.CancelledError:
        mark_interrupted(session.messages)
        raise


async def _run_turn(
    session: Session, config: TurnConfig, listener: TurnListener, make_context: Callable[[Session], ToolUseContext]
) -> TurnResult:
    last_text = ""
    for _ in range(config.max_turns):
        if config.on_history is not None:
            config.on_history()
        failures = 0
        compactions = 0
        if needs_compaction(session.context_tokens, config.model.settings.context_window):
            await _compact(session, config, level=1)
        while True:
            attempt = _Attempt(session, config, listener, make_context)
            try:
                response = await _stream(session, config, attempt)
                break
            except asyncio.CancelledError:
                await attempt.close_partial(session, interrupted=True)
                raise
            except Exception as exc:
                if is_prompt_too_long(exc) and not attempt.executor.started_any and compactions < MAX_COMPACTIONS:
                    compactions += 1
                    listener.retry(TOO_LONG_REASON)
                    if await _compact(session, config, level=compactions):
                        continue
                retry = is_retryable(exc) and failures < config.model.settings.stream_retries
                failure = config.model.describe(exc)
                if attempt.executor.started_any or not retry:
                    # tools may have run: never replay the message; answer its calls instead
                    await attempt.close_partial(session, interrupted=False)
                    if retry:
                        log.warning("stream failed after tool calls started (%s); continuing", failure.message)
                        response = None
                        break
                    return TurnResult("error", failure.message, failure)
                failures += 1
                listener.retry(failure.message)
                await asyncio.sleep(config.model.retry_delay(failures, exc))
        if response is None:
            continue
        if config.usage is not None:
            config.usage.add(response.usage, config.model.settings.model)
        last_text = response.text or last_text
        session.context_tokens = context_size(response.usage)
        session.messages.append({"role": "assistant", "content": response.content})
        if config.on_history is not None:
            config.on_history()
        early_reminders = _early_reminders(config, attempt.executor.uses)
        try:
            if response.stop_reason == "max_tokens":
                await attempt.executor.discard("streaming_fallback", MAX_TOKENS_NOTE)
                outcomes = attempt.executor.outcomes()
            else:
                outcomes = await attempt.executor.collect()
        except BaseException as exc:
            if early_reminders is not None:
                early_reminders.cancel()
            if isinstance(exc, asyncio.CancelledError):
                await attempt.executor.interrupt()
                _record_results(session, attempt.executor.outcomes())
            raise
        blocks = [o.block for o in outcomes] + _unanswered(response.content, outcomes)
        if not blocks and response.stop_reason == "pause_turn":
            continue  # a long server-side tool turn (web search) paused: send the message back to let it go on
        if not blocks:
            return TurnResult(response.stop_reason or "end_turn", response.text)
        _record_results(session, outcomes)
        add_user_content(session.messages, blocks[len(outcomes) :])
        if early_reminders is not None:
            add_user_content(session.messages, await early_reminders)
        elif config.reminders is not None:
            add_user_content(session.messages, await config.reminders(attempt.executor.uses))
    return TurnResult("max_turns", last_text)
