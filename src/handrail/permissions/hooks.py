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
MAX_STDOUT_BYTES = 4 * 1024 * 1024  # room for a decision whose updatedInput carries a whole file
MAX_STDERR_BYTES = 4_000
TAIL_BYTES = 2_000  # the end of a cut output is kept too: that is where errors tend to be


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
    stdout_cut: bool = False


class _Capture:
    """What a hook printed on one stream, bounded: its first `head` bytes and last TAIL_BYTES, and how much
    there was, so a hook printing without end costs no more than that."""

    def __init__(self, head: int) -> None:
        self._limit = head
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    @property
    def cut(self) -> bool:
        """Whether more was printed than was kept."""
        return self.total > len(self._head) + len(self._tail)

    async def drain(self, stream: asyncio.StreamReader | None) -> None:
        """Read `stream` to its end, keeping only what fits."""
        while stream is not None and (chunk := await stream.read(65536)):
            self.total += len(chunk)
            room = self._limit - len(self._head)
            if room > 0:
                self._head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self._tail = (self._tail + chunk)[-TAIL_BYTES:]

    def text(self) -> str:
        """What was kept, with a note where the middle was cut."""
        head = self._head.decode(errors="replace")
        if not self.cut:
            return head + self._tail.decode(errors="replace")
        left_out = self.total - len(self._head) - len(self._tail)
        return f"{head}\n… [{left_out} bytes of hook output cut] …\n{self._tail.decode(errors='replace')}"


async def _feed(stdin: asyncio.StreamWriter | None, payload: bytes) -> None:
    if stdin is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a hook need not read its input
        stdin.write(payload)
        await stdin.drain()
    stdin.close()


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
    out, err = _Capture(MAX_STDOUT_BYTES), _Capture(MAX_STDERR_BYTES)
    try:
        await asyncio.wait_for(
            asyncio.gather(
                _feed(process.stdin, payload), out.drain(process.stdout), err.drain(process.stderr), process.wait()
            ),
            command.timeout,
        )
    except (TimeoutError, asyncio.CancelledError) as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        return _Run(None, "", "", timed_out=True)
    return _Run(process.returncode, out.text(), err.text(), stdout_cut=out.cut)


def _parse_stdout(stdout: str) -> dict[str, Any]:
    text = stdout.strip()
    if not text.startswith("{"):
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or JSON nested too deeply to read: no answer
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
        if run.stdout_cut and run.stdout.lstrip().startswith("{"):  # an answer too long to read whole
            failures.append(
                f"hook `{command.command}` ({command.source}) printed more than {MAX_STDOUT_BYTES} bytes; "
                "its answer was cut, so it could not be read"
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
