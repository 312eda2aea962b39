"""The permission phase of a tool call: PreToolUse hooks, the pipeline's decision, the user's answer, the audit.

Hooks cannot loosen policy: a hook's allow only settles an ask that no rule,
tool check or safety check asked for; a hook's deny or ask always counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import time
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ValidationError

from handrail.permissions.decision import DecisionReason, PermissionDecision
from handrail.permissions.hooks import HookOutcome, commands_for, run_hooks
from handrail.permissions.pipeline import CallFacts, decide
from handrail.permissions.rules import PermissionRule, parse_rule
from handrail.tools import auto_mode
from handrail.tools.context import PermissionAnswer, PermissionRequest, ToolUseContext
from handrail.tools.messages import ToolResultBlock
from handrail.tools.protocol import Tool
from handrail.tools.small_model import SmallModel

# Ask reasons a hook's allow may settle: nothing but the pipeline's cautious default asked.
_HOOK_SETTLES = frozenset({"default"})


@dataclass(frozen=True)
class Authorization:
    """Whether the call may run, with the input it runs with (a hook may have changed it)."""

    allowed: bool
    value: BaseModel
    message: str = ""
    new_rules: tuple[PermissionRule, ...] = ()


async def decide_call(tool: Tool[Any], value: BaseModel, ctx: ToolUseContext) -> PermissionDecision:
    """The pipeline's decision for one parsed call (the tool's own check included)."""
    check = await tool.check_permissions(value, ctx)
    facts = CallFacts(
        tool.name, tool.is_read_only(value), tool.rule_content(value), tool.paths(value), tuple(tool.aliases)
    )
    return decide(facts, check, ctx.permission_context)


def input_digest(value: BaseModel) -> str:
    """A short digest of a call's input for the audit log (the input itself may hold secrets)."""
    data = json.dumps(value.model_dump(mode="json", by_alias=True), sort_keys=True, default=str)
    return hashlib.sha256(data.encode()).hexdigest()[:16]


def _hook_payload(tool: Tool[Any], value: BaseModel, ctx: ToolUseContext) -> dict[str, Any]:
    return {
        "session_id": ctx.options.session_id,
        "cwd": str(ctx.session_cwd()),  # where the session's shell is now (a `cd` moves it), as Claude Code sends
        "permission_mode": ctx.permission_context.mode,
        "tool_name": tool.name,
        "tool_input": value.model_dump(mode="json", by_alias=True, exclude_none=True),
        "tool_use_id": ctx.tool_use_id,
    }


async def pre_tool_use(tool: Tool[Any], value: BaseModel, ctx: ToolUseContext) -> HookOutcome:
    """Run the PreToolUse hooks in force for this call."""
    commands = commands_for(ctx.permission_context.hooks_by_source(), "PreToolUse", tool.name, tool.aliases)
    return await run_hooks("PreToolUse", commands, _hook_payload(tool, value, ctx), ctx.options.cwd)


async def post_tool_use(tool: Tool[Any], value: BaseModel, ctx: ToolUseContext, block: ToolResultBlock) -> str:
    """Run the PostToolUse hooks; returns their feedback for the model (empty when none)."""
    commands = commands_for(ctx.permission_context.hooks_by_source(), "PostToolUse", tool.name, tool.aliases)
    if not commands:
        return ""
    payload = {**_hook_payload(tool, value, ctx), "tool_response": block.get("content")}
    outcome = await run_hooks("PostToolUse", commands, payload, ctx.options.cwd)
    return outcome.feedback


def with_hook(decision: PermissionDecision, hook: HookOutcome) -> PermissionDecision:
    """Fold a hook's opinion into the pipeline's decision without letting it loosen policy."""
    why = hook.feedback or hook.reason or "a PreToolUse hook decided so"
    if hook.decision == "deny" and decision.behavior != "deny":
        return replace(decision, behavior="deny", reason=DecisionReason("hook", why))
    if hook.decision == "ask" and decision.behavior == "allow":
        return replace(decision, behavior="ask", reason=DecisionReason("hook", why))
    if hook.decision == "allow" and decision.behavior == "ask" and decision.reason.type in _HOOK_SETTLES:
        return replace(decision, behavior="allow", reason=DecisionReason("hook", why))
    return decision


def _audit(
    ctx: ToolUseContext,
    tool: Tool[Any],
    value: BaseModel,
    decision: PermissionDecision,
    *,
    outcome: str,
    answered_by: str,
) -> None:
    ctx.audit.record(
        {
            "time": time.time(),
            "session": ctx.options.session_id,
            "toolUseId": ctx.tool_use_id,
            "tool": tool.name,
            "inputDigest": input_digest(value),
            "decision": decision.behavior,
            "outcome": outcome,
            "answeredBy": answered_by,
            "reasonType": decision.reason.type,
            "reason": decision.reason.message,
            "rule": decision.reason.rule,
        }
    )


async def _ask_until_settled(
    tool: Tool[Any], value: BaseModel, ctx: ToolUseContext, request: PermissionRequest, hook: HookOutcome
) -> tuple[PermissionDecision | None, PermissionAnswer | None]:
    """Ask the user; if the rules change meanwhile and now settle the call, close the prompt instead.

    Returns (the settling decision, None) or (None, the user's answer): exactly one
    of the two resolves the prompt, whichever comes first.
    """
    updates = ctx.permission_updates
    prompt = asyncio.ensure_future(ctx.prompter.ask_permission(request))
    try:
        while True:
            if updates is None:
                return None, await prompt
            change = asyncio.ensure_future(updates.wait())
            try:
                await asyncio.wait({prompt, change}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                change.cancel()
            if prompt.done():
                return None, prompt.result()
            fresh = replace(ctx, permission_context=updates.current())
            decision = with_hook(await decide_call(tool, value, fresh), hook)
            if decision.behavior != "ask":
                return decision, None
    finally:
        if not prompt.done():
            prompt.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await prompt


async def _classify(
    tool: Tool[Any], value: BaseModel, ctx: ToolUseContext, model: SmallModel, decision: PermissionDecision
) -> tuple[PermissionDecision, bool]:
    """Auto mode: let the classifier settle a plain ask; its allow is audited here, its ask goes to the user."""
    tool_input = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    verdict = await auto_mode.judge(model, tool.name, tool_input, ctx.messages, intent=ctx.user_prompt)
    if verdict.decision == "allow":
        judged = replace(decision, behavior="allow", reason=DecisionReason("classifier", verdict.reason))
        _audit(ctx, tool, value, judged, outcome="allow", answered_by="classifier")
        return judged, True
    message = f"{decision.reason.message} (auto mode: {verdict.reason})"
    return replace(decision, reason=DecisionReason("classifier", message)), False


def _command_and_description(tool_input: dict[str, Any]) -> tuple[str | None, str | None]:
    """The exact command a call runs (a `command` argument, as Bash has) and the model's description of it."""
    command = tool_input.get("command")
    if not isinstance(command, str):
        return None, None
    description = tool_input.get("description")
    return command, description if isinstance(description, str) and description.strip() else None


async def authorize(tool: Tool[Any], value: BaseModel, ctx: ToolUseContext) -> Authorization:
    """Decide whether the call may run, asking the user when the pipeline says ask."""
    hook = await pre_tool_use(tool, value, ctx)
    if hook.updated_input is not None:
        try:
            value = tool.input_model.model_validate(dict(hook.updated_input))
        except ValidationError as exc:
            return Authorization(False, value, f"A PreToolUse hook changed the input into an invalid one: {exc}")
        validation = await tool.validate_input(value, ctx)
        if not validation.ok:
            return Authorization(False, value, validation.message)
    decision = with_hook(await decide_call(tool, value, ctx), hook)
    if decision.behavior == "deny":
        _audit(ctx, tool, value, decision, outcome="deny", answered_by="policy")
        return Authorization(False, value, f"Permission denied: {decision.reason.message}")
    if decision.behavior == "allow":
        _audit(ctx, tool, value, decision, outcome="allow", answered_by="policy")
        return Authorization(True, value)
    if ctx.small_model is not None and auto_mode.applies(decision, ctx.permission_context.mode):
        decision, allowed = await _classify(tool, value, ctx, ctx.small_model, decision)
        if allowed:
            return Authorization(True, value)
    tool_input = value.model_dump(by_alias=True, exclude_none=True)
    command, description = _command_and_description(tool_input)
    request = PermissionRequest(
        tool_name=tool.name,
        tool_use_id=ctx.tool_use_id,
        input=tool_input,
        summary=tool.summary(value) or tool.name,
        reason=decision.reason.message,
        diff=decision.diff,
        suggestions=decision.suggestions,  # none: no rule is safe to offer, so no "always" answer is offered
        command=command,
        description=description,
    )
    settled, answer = await _ask_until_settled(tool, value, ctx, request, hook)
    if settled is not None:
        allowed_now = settled.behavior == "allow"
        _audit(ctx, tool, value, settled, outcome="allow" if allowed_now else "deny", answered_by="policy")
        if allowed_now:
            return Authorization(True, value)
        return Authorization(False, value, f"Permission denied: {settled.reason.message}")
    assert answer is not None
    allowed = answer.decision in ("allow", "allow_always")
    _audit(ctx, tool, value, decision, outcome="allow" if allowed else "deny", answered_by="user")
    if answer.decision == "allow":
        return Authorization(True, value)
    if answer.decision == "allow_always":  # every rule the user was offered together, or those it named
        parsed = (parse_rule(text, source="session") for text in answer.rules or request.suggestions)
        return Authorization(True, value, new_rules=tuple(r for r in parsed if isinstance(r, PermissionRule)))
    if answer.decision == "cancelled":
        return Authorization(False, value, "The permission prompt was cancelled, so the call did not run.")
    if answer.message:
        return Authorization(False, value, answer.message)
    message = "The user declined this tool call, so nothing was changed."
    if answer.feedback:
        message += f" The user said: {answer.feedback}"
    return Authorization(False, value, message)
