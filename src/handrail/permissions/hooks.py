"""PreToolUse and PostToolUse hooks from settings: shell commands that see each call as JSON.

Format (as in Claude Code's settings):
    "hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "...",
                                                               "timeout": 30}]}]}

A PreToolUse hook blocks with exit code 2 (its stderr goes to the model), or
answers on stdout with `hookSpecificOutput.permissionDecision` allow / deny / ask,
a reason, and optionally `updatedInput`. A hook that times out, crashes or exits
with another error fails closed: the call is denied and the failure reported.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

log = logging.getLogger(__name__)

HookEventName = Literal["PreToolUse", "PostToolUse"]
HookDecision = Literal["allow", "deny", "ask"]

DEFAULT_TIMEOUT_SECONDS = 60.0
BLOCKING_EXIT_CODE = 2
_MAX_STDERR = 4_000


@dataclass(frozen=True)
class HookCommand:
    """One command to run for matching calls, and where it was configured."""

    command: str
    timeout: float
    source: str


@dataclass(frozen=True)
class HookOutcome:
    """What the hooks of one event said about one call.

    `decision` is None when no hook expressed one. `feedback` is text for the
    model (a blocking hook's stderr, a PostToolUse hook's complaint).
    """

    decision: HookDecision | None = None
    reason: str = ""
    updated_input: Mapping[str, Any] | None = None
    feedback: str = ""
    failures: tuple[str, ...] = field(default=())


def matches(matcher: str, tool_name: str) -> bool:
    """Whether a hook matcher covers `tool_name`: empty or `*` for all, `A|B`, or a regular expression."""
    if matcher in ("", "*"):
        return True
    if re.fullmatch(r"[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*", matcher):
        return tool_name in matcher.split("|")
    try:
        return re.fullmatch(matcher, tool_name) is not None
    except re.error:
        return False


def commands_for(hooks_by_source: Sequence[tuple[str, Mapping[str, Any]]], event: HookEventName,
                 tool_name: str, aliases: Sequence[str] = ()) -> list[HookCommand]:
    """The commands configured for `event` whose matcher covers `tool_name` or one of its `aliases`, in source order."""
    found: list[HookCommand] = []
    names = (tool_name, *aliases)
    for source, config in hooks_by_source:
        for group in config.get(event, ()) or ():
            if not isinstance(group, Mapping):
                continue
            matcher = str(group.get("matcher", "") or "")
            if not any(matches(matcher, name) for name in names):
                continue
            for hook in group.get("hooks", ()) or ():
                if not isinstance(hook, Mapping) or hook.get("type", "command") != "command":
                    continue
                command = hook.get("command")
                if not isinstance(command, str) or not command.strip():
                    continue
                timeout = hook.get("timeout")
                seconds = DEFAULT_TIMEOUT_SECONDS
                if isinstance(timeout, int | float) and timeout > 0:
                    seconds = float(timeout)
                found.append(HookCommand(command, seconds, source))
    return found


@dataclass(frozen=True)
class _Run:
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool = False


async def _run(command: HookCommand, payload: bytes, cwd: Path) -> _Run:
    process = await asyncio.create_subprocess_shell(
        command.command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        start_new_session=True,  # so a timeout can kill everything the hook started
        env={**os.environ, "HANDRAIL_PROJECT_DIR": str(cwd)},
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(payload), command.timeout)
    except (TimeoutError, asyncio.CancelledError) as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        return _Run(None, "", "", timed_out=True)
    return _Run(process.returncode, out.decode(errors="replace"), err.decode(errors="replace")[:_MAX_STDERR])


def _parse_stdout(stdout: str) -> dict[str, Any]:
    text = stdout.strip()
    if not text.startswith("{"):
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _decision_of(output: Mapping[str, Any]) -> tuple[HookDecision | None, str, Mapping[str, Any] | None]:
    specific = output.get("hookSpecificOutput")
    if isinstance(specific, Mapping):
        decision = specific.get("permissionDecision")
        reason = str(specific.get("permissionDecisionReason", "") or "")
        updated = specific.get("updatedInput")
        if decision in ("allow", "deny", "ask"):
            return decision, reason, updated if isinstance(updated, Mapping) else None
        return None, reason, updated if isinstance(updated, Mapping) else None
    legacy = output.get("decision")  # the older top-level form
    reason = str(output.get("reason", "") or "")
    if legacy == "approve":
        return "allow", reason, None
    if legacy == "block":
        return "deny", reason, None
    return None, reason, None


_STRENGTH: dict[HookDecision, int] = {"allow": 0, "ask": 1, "deny": 2}


async def run_hooks(
    event: HookEventName,
    commands: Sequence[HookCommand],
    payload: Mapping[str, Any],
    cwd: Path,
) -> HookOutcome:
    """Run every command for one call and combine what they said: deny beats ask beats allow."""
    if not commands:
        return HookOutcome()
    data = json.dumps({**payload, "hook_event_name": event}, default=str).encode()
    runs = await asyncio.gather(*(_run(command, data, cwd) for command in commands), return_exceptions=True)
    decision: HookDecision | None = None
    reasons: list[str] = []
    feedback: list[str] = []
    failures: list[str] = []
    updated: Mapping[str, Any] | None = None
    for command, run in zip(commands, runs, strict=True):
        if isinstance(run, BaseException):
            failures.append(f"hook `{command.command}` ({command.source}) could not run: {run}")
            continue
        if run.timed_out:
            failures.append(f"hook `{command.command}` ({command.source}) timed out after {command.timeout:g}s")
            continue
        if run.returncode == BLOCKING_EXIT_CODE:
            decision = "deny"
            feedback.append(run.stderr.strip() or f"blocked by hook `{command.command}`")
            continue
        if run.returncode != 0:
            failures.append(
                f"hook `{command.command}` ({command.source}) failed with exit code {run.returncode}: "
                f"{run.stderr.strip()[:500]}"
            )
            continue
        said, reason, new_input = _decision_of(_parse_stdout(run.stdout))
        if reason:
            reasons.append(reason)
        if new_input is not None:
            updated = new_input
        if said is not None and (decision is None or _STRENGTH[said] > _STRENGTH[decision]):
            decision = said
        if event == "PostToolUse" and said == "deny":
            feedback.append(reason or f"hook `{command.command}` objected to the result")
    if failures and event == "PreToolUse":
        decision = "deny"  # fail closed
    for failure in failures:
        log.warning("%s", failure)
    return HookOutcome(
        decision=decision,
        reason="; ".join([*reasons, *failures]),
        updated_input=updated,
        feedback="\n".join(feedback),
        failures=tuple(failures),
    )
