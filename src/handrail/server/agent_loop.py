"""The agent loop: ask the model, run the tools it asks for, feed the results back, until it is done.

Invariant kept on every path (success, error, cancellation): each `tool_use` in
the history is answered by exactly one `tool_result` in the next user message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from handrail.server.model_client import ModelClient, ModelError
from handrail.server.session import Session
from handrail.tools.context import ToolUseContext
from handrail.tools.execution import ToolUse, cancelled_result, error_block, run_tool_use
from handrail.tools.protocol import Tool
from handrail.tools.registry import tool_definitions

log = logging.getLogger(__name__)


class TurnListener(Protocol):
    """Who hears about a turn as it happens (the chat view)."""

    def text(self, delta: str) -> None:
        """A piece of assistant text."""
        ...

    def retry(self, reason: str) -> None:
        """The model stream failed and is being retried; drop the partial message."""
        ...


@dataclass(frozen=True)
class TurnResult:
    """How a turn ended and the final assistant text."""

    stop_reason: str
    text: str


@dataclass(frozen=True)
class TurnConfig:
    """What a turn needs besides the session."""

    model: ModelClient
    tools: Sequence[Tool[Any]]
    system: str
    max_turns: int = 50


def add_user_content(messages: list[dict[str, Any]], blocks: list[dict[str, Any]]) -> None:
    """Append user content, merging into a trailing user message so roles keep alternating."""
    if messages and messages[-1]["role"] == "user":
        last = messages[-1]
        content = last["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        last["content"] = [*content, *blocks]
    else:
        messages.append({"role": "user", "content": blocks})


def _text_of(content: list[dict[str, Any]]) -> str:
    return "".join(block.get("text", "") for block in content if block.get("type") == "text")


async def run_turn(
    session: Session,
    prompt: str,
    config: TurnConfig,
    listener: TurnListener,
    make_context: Callable[[Session], ToolUseContext],
) -> TurnResult:
    """Run one user turn to its end. Cancellation propagates after the history is made valid."""
    add_user_content(session.messages, [{"type": "text", "text": prompt}])
    definitions = tool_definitions(config.tools)
    last_text = ""
    for _ in range(config.max_turns):
        try:
            response = await config.model.stream(
                system=config.system,
                messages=session.messages,
                tools=definitions,
                on_text=listener.text,
                on_retry=listener.retry,
            )
        except ModelError as exc:
            return TurnResult("error", str(exc))
        session.messages.append({"role": "assistant", "content": response.content})
        last_text = _text_of(response.content) or last_text
        uses = [
            ToolUse(block["id"], block["name"], block.get("input"))
            for block in response.content
            if block.get("type") == "tool_use"
        ]
        if not uses:
            return TurnResult(response.stop_reason or "end_turn", _text_of(response.content))
        if response.stop_reason == "max_tokens":
            note = "The response was cut off by the output token limit before this call was complete; it did not run."
            add_user_content(session.messages, [error_block(use.id, note) for use in uses])
            continue
        await _run_tools(session, uses, config.tools, make_context)
    return TurnResult("max_turns", last_text)


async def _run_tools(
    session: Session,
    uses: list[ToolUse],
    tools: Sequence[Tool[Any]],
    make_context: Callable[[Session], ToolUseContext],
) -> None:
    """Run the calls one after another in the model's order, answering every one of them."""
    results: list[dict[str, Any]] = []
    extra: list[dict[str, Any]] = []
    try:
        for use in uses:
            outcome = await run_tool_use(use, tools, make_context(session))
            if outcome.new_rule is not None:
                session.allow_always(outcome.new_rule)
            results.append(outcome.block)
            extra.extend(outcome.new_messages)
    except BaseException:  # cancellation above all: answer what did not run
        answered = {block["tool_use_id"] for block in results}
        results.extend(cancelled_result(use.id) for use in uses if use.id not in answered)
        raise
    finally:
        add_user_content(session.messages, results)
        for message in extra:
            add_user_content(session.messages, list(message.get("content", [])))
