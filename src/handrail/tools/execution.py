"""Running one tool call: parse → validate → permission → call, always ending in one tool_result.

Whatever happens — unknown tool, invalid input, a denial, a crash inside the
tool — the model gets exactly one `tool_result` block for its `tool_use`.
Cancellation is the exception: it propagates, and the caller answers the
unanswered calls (see `cancelled_result`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from handrail.permissions.rules import PermissionRule
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.messages import Message, ToolResultBlock
from handrail.tools.permission_flow import authorize, post_tool_use
from handrail.tools.protocol import Tool
from handrail.tools.registry import find_tool
from handrail.tools.results import limit_result, result_text
from handrail.tools.tool_input import input_problem

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolUse:
    """A `tool_use` block from the model; `input_error` says its input JSON did not parse."""

    id: str
    name: str
    input: Any
    input_error: str | None = None


@dataclass(frozen=True)
class CallOutcome:
    """The `tool_result` block for one call, plus what the call changed for the session."""

    block: ToolResultBlock
    new_rules: tuple[PermissionRule, ...] = ()
    new_messages: tuple[Message, ...] = ()
    context_modifier: Callable[[ToolUseContext], ToolUseContext] | None = None
    ran: bool = False

    @property
    def is_error(self) -> bool:
        """Whether the model is told the call failed."""
        return bool(self.block.get("is_error"))


def error_block(tool_use_id: str, message: str) -> ToolResultBlock:
    """An `is_error` tool_result carrying `message`."""
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": message, "is_error": True}


def cancelled_result(tool_use_id: str) -> ToolResultBlock:
    """The answer for a call that was interrupted or never started because the user stopped the turn."""
    return error_block(tool_use_id, "The user cancelled this tool call before it finished. Nothing more ran.")


def format_validation_error(tool_name: str, exc: ValidationError) -> str:
    """Pydantic's errors, phrased for the model."""
    lines = [f"InputValidationError: {tool_name} failed due to the following issue(s):"]
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err["loc"]) or "input"
        lines.append(f"- {where}: {err['msg']}")
    return "\n".join(lines)


def with_feedback(block: ToolResultBlock, text: str) -> ToolResultBlock:
    """`block` with `text` added after its content."""
    content = block.get("content")
    if isinstance(content, str):
        return {**block, "content": f"{content}\n\n{text}"}
    return {**block, "content": [*(content or []), {"type": "text", "text": text}]}


def parse_input(tool: Tool[Any], raw: Any) -> BaseModel:
    """The tool's typed input; raises pydantic's ValidationError."""
    value: BaseModel = tool.input_model.model_validate(raw if raw is not None else {})
    return value


async def run_tool_use(
    use: ToolUse,
    tools: Sequence[Tool[Any]],
    ctx: ToolUseContext,
    *,
    on_call_start: Callable[[], None] | None = None,
) -> CallOutcome:
    """Run one call to the end and return its single tool_result.

    `on_call_start` is told when the tool itself starts running (after validation
    and permission), which is when its interrupt behaviour starts to apply.
    """
    tool = find_tool(tools, use.name)
    if tool is None:
        names = ", ".join(t.name for t in tools)
        ctx = ctx.for_call(use.id)
        ctx.progress.tool_started(use.id, use.name, use.name)
        message = f"No such tool available: {use.name}. Available tools: {names}"
        return _finish(ctx, CallOutcome(error_block(use.id, message)))
    ctx = ctx.for_call(use.id)
    problem = use.input_error or input_problem(use.input)  # whatever made the input, bounded before use
    if problem is not None:
        ctx.progress.tool_started(use.id, tool.name, tool.name)
        message = f"The input of this {tool.name} call could not be used ({problem}); it did not run."
        return _finish(ctx, CallOutcome(error_block(use.id, message)))
    try:
        value = parse_input(tool, use.input)
    except ValidationError as exc:
        ctx.progress.tool_started(use.id, tool.name, tool.name)
        return _finish(ctx, CallOutcome(error_block(use.id, format_validation_error(tool.name, exc))))
    ctx.progress.tool_started(use.id, tool.name, _summary(tool, value))
    new_rules: tuple[PermissionRule, ...] = ()
    ran = False
    try:
        validation = await tool.validate_input(value, ctx)
        if not validation.ok:
            return _finish(ctx, CallOutcome(error_block(use.id, validation.message)))
        authorization = await authorize(tool, value, ctx)
        new_rules = authorization.new_rules
        if not authorization.allowed:
            return _finish(ctx, CallOutcome(error_block(use.id, authorization.message)))
        value = authorization.value
        if on_call_start is not None:
            on_call_start()
        ran = True
        result = await tool.call(value, ctx)
        block = tool.map_result_to_block(result.data, use.id)
        feedback = await post_tool_use(tool, value, ctx, block)
        if feedback:
            block = with_feedback(block, f"PostToolUse hook feedback: {feedback}")
        block = await limit_result(block, tool.max_result_size_chars, ctx.options.results_dir)
        return _finish(ctx, CallOutcome(block, new_rules, result.new_messages, result.context_modifier, ran=True))
    except ToolError as exc:
        return _finish(ctx, CallOutcome(error_block(use.id, str(exc)), new_rules, ran=ran))
    except Exception as exc:  # a crash inside a tool must not lose the call
        log.exception("tool %s crashed", tool.name)
        message = f"{tool.name} failed: {type(exc).__name__}: {exc}"
        return _finish(ctx, CallOutcome(error_block(use.id, message), new_rules, ran=ran))


def _summary(tool: Tool[Any], value: BaseModel) -> str:
    """The tool's one-line summary of the call; its name when the summary fails (it must not lose the call)."""
    try:
        return tool.summary(value) or tool.name
    except Exception:
        log.exception("the summary of a %s call failed", tool.name)
        return tool.name


def _finish(ctx: ToolUseContext, outcome: CallOutcome) -> CallOutcome:
    ctx.progress.tool_finished(ctx.tool_use_id, is_error=outcome.is_error, text=result_text(outcome.block))
    return outcome
