"""StreamingToolExecutor: start tool calls as their blocks complete in the stream, release results in order.

Each call goes queued → executing → completed → yielded. A call starts when
nothing runs, or when it and everything running are concurrency-safe (and the
cap allows); a call that cannot start blocks the queue behind it, so a result
never overtakes an earlier non-safe call. Progress goes out at once through the
context's reporter; `results()` yields outcomes in the model's order.

Every call added gets exactly one outcome, also when the stream fails
(`discard`), a sibling Bash call fails, or the user interrupts (`interrupt`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from handrail.tools.context import ToolUseContext
from handrail.tools.execution import CallOutcome, ToolUse, error_block, run_tool_use
from handrail.tools.orchestration import is_safe_call, max_tool_concurrency
from handrail.tools.protocol import Tool
from handrail.tools.registry import find_tool

AbortReason = Literal["user_interrupted", "sibling_error", "streaming_fallback"]
CallState = Literal["queued", "executing", "completed", "yielded"]

ABORT_MESSAGES: dict[AbortReason, str] = {
    "user_interrupted": "The user cancelled this tool call before it finished. Nothing more ran.",
    "sibling_error": "Cancelled because a sibling tool call ({sibling}) failed; this call did not finish.",
    "streaming_fallback": "The model's response ended before this call could finish, so it was stopped.",
}

ContextSource = ToolUseContext | Callable[[], ToolUseContext]
log = logging.getLogger(__name__)


@dataclass
class _Call:
    use: ToolUse
    safe: bool
    interrupt_behavior: str
    state: CallState = "queued"
    task: asyncio.Task[None] | None = None
    outcome: CallOutcome | None = None
    calling: bool = False
    abort_reason: AbortReason | None = None
    abort_message: str | None = None


class StreamingToolExecutor:
    """Runs one assistant message's tool calls while the message may still be streaming."""

    def __init__(
        self,
        tools: Sequence[Tool[Any]],
        context: ContextSource,
        *,
        max_concurrency: int | None = None,
        on_outcome: Callable[[CallOutcome], None] | None = None,
    ) -> None:
        self._tools = tools
        self._context_source = context
        self._max = max_concurrency or max_tool_concurrency()
        self._on_outcome = on_outcome
        self._calls: list[_Call] = []
        self._modifiers: list[Callable[[ToolUseContext], ToolUseContext]] = []
        self._finished = False
        self._closed: tuple[AbortReason, str] | None = None
        self._changed = asyncio.Event()

    # -- feeding -----------------------------------------------------------------

    def add(self, use: ToolUse) -> None:
        """Queue a call whose block just completed; it starts as soon as the rules allow."""
        tool = find_tool(self._tools, use.name)
        call = _Call(
            use=use,
            safe=use.input_error is None and is_safe_call(use, self._tools),
            interrupt_behavior=tool.interrupt_behavior if tool is not None else "cancel",
        )
        self._calls.append(call)
        if self._closed is not None:
            self._settle(call, *self._closed)
        self._pump()

    def finish(self) -> None:
        """No more calls will be added (the message ended normally)."""
        self._finished = True
        self._signal()

    @property
    def started_any(self) -> bool:
        """Whether any call was added (and so may have run): the stream cannot simply be retried."""
        return bool(self._calls)

    @property
    def uses(self) -> tuple[ToolUse, ...]:
        """Every call added, in the model's order."""
        return tuple(call.use for call in self._calls)

    # -- results -----------------------------------------------------------------

    async def results(self) -> AsyncIterator[CallOutcome]:
        """Outcomes in the model's order, each as soon as it and all before it are done."""
        index = 0
        while True:
            while index < len(self._calls) and self._calls[index].state == "completed":
                call = self._calls[index]
                call.state = "yielded"
                index += 1
                assert call.outcome is not None
                yield call.outcome
            if self._finished and index >= len(self._calls):
                return
            self._changed.clear()
            await self._changed.wait()

    def outcomes(self) -> list[CallOutcome]:
        """Every outcome, in order; valid once all calls are done (after `collect`, `discard` or `interrupt`)."""
        missing = [c.use.id for c in self._calls if c.outcome is None]
        assert not missing, f"calls without an outcome: {missing}"
        return [c.outcome for c in self._calls if c.outcome is not None]

    async def collect(self) -> list[CallOutcome]:
        """Finish and wait for every outcome."""
        self.finish()
        return [outcome async for outcome in self.results()]

    # -- stopping ----------------------------------------------------------------

    async def discard(self, reason: AbortReason = "streaming_fallback", message: str | None = None) -> None:
        """The message will not complete: stop what runs and answer every unfinished call with an error."""
        await self._close(reason, message or ABORT_MESSAGES[reason], stop=lambda _: True)

    async def interrupt(self) -> None:
        """The user stopped the turn: `cancel` tools stop at once, `block` tools already running finish."""
        await self._close(
            "user_interrupted",
            ABORT_MESSAGES["user_interrupted"],
            stop=lambda call: call.interrupt_behavior == "cancel" or not call.calling,
        )

    async def _close(self, reason: AbortReason, message: str, stop: Callable[[_Call], bool]) -> None:
        self._closed = (reason, message)
        self._finished = True
        running: list[asyncio.Task[None]] = []
        for call in self._calls:
            if call.state == "queued":
                self._settle(call, reason, message)
            elif call.state == "executing" and call.task is not None:
                if stop(call):
                    call.abort_reason, call.abort_message = reason, message
                    call.task.cancel()
                running.append(call.task)
        if running:
            try:
                await asyncio.shield(asyncio.gather(*running, return_exceptions=True))
            except asyncio.CancelledError:  # asked to stop while waiting: stop everything, then go
                for task in running:
                    task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.gather(*running, return_exceptions=True)
                raise
        self._signal()

    # -- internals ---------------------------------------------------------------

    def _context(self) -> ToolUseContext:
        source = self._context_source
        ctx = source() if callable(source) else source
        for modifier in self._modifiers:
            ctx = modifier(ctx)
        return ctx

    def _pump(self) -> None:
        for call in self._calls:
            if call.state != "queued":
                continue
            executing = [c for c in self._calls if c.state == "executing"]
            if len(executing) >= self._max:
                break
            if executing and not (call.safe and all(c.safe for c in executing)):
                break  # a call that cannot start now blocks the queue behind it
            self._start(call)
        self._signal()

    def _start(self, call: _Call) -> None:
        call.state = "executing"
        ctx = self._context()
        call.task = asyncio.create_task(self._run(call, ctx), name=f"tool {call.use.name} {call.use.id}")
        call.task.add_done_callback(lambda _: self._answer_if_unanswered(call, ctx))

    def _answer_if_unanswered(self, call: _Call, ctx: ToolUseContext) -> None:
        """A task cancelled before its first step never runs its body: answer its call here."""
        if call.outcome is None:
            self._complete(call, self._aborted(call, ctx))

    @staticmethod
    def _aborted(call: _Call, ctx: ToolUseContext) -> CallOutcome:
        reason = call.abort_reason or "user_interrupted"
        message = call.abort_message or ABORT_MESSAGES[reason]
        ctx.progress.tool_finished(call.use.id, is_error=True, text=message)
        return CallOutcome(error_block(call.use.id, message))

    async def _run(self, call: _Call, ctx: ToolUseContext) -> None:
        def mark_calling() -> None:
            call.calling = True

        try:
            outcome = await run_tool_use(call.use, self._tools, ctx, on_call_start=mark_calling)
        except asyncio.CancelledError:
            outcome = self._aborted(call, ctx)
        except Exception as exc:  # run_tool_use answers every failure itself; this is the last line
            log.exception("tool call %s failed outside its tool", call.use.id)
            message = f"{call.use.name} could not be run: {type(exc).__name__}: {exc}"
            ctx.progress.tool_finished(call.use.id, is_error=True, text=message)
            outcome = CallOutcome(error_block(call.use.id, message))
        self._complete(call, outcome)

    def _settle(self, call: _Call, reason: AbortReason, message: str) -> None:
        """Answer a call that never started."""
        progress = self._context().progress
        progress.tool_started(call.use.id, call.use.name, call.use.name)
        progress.tool_finished(call.use.id, is_error=True, text=message)
        call.abort_reason = reason
        self._complete(call, CallOutcome(error_block(call.use.id, message)))

    def _complete(self, call: _Call, outcome: CallOutcome) -> None:
        call.outcome = outcome
        call.state = "completed"
        if not call.safe and outcome.context_modifier is not None:
            self._modifiers.append(outcome.context_modifier)
        if self._on_outcome is not None:
            self._on_outcome(outcome)
        if call.use.name == "Bash" and outcome.ran and outcome.is_error and call.abort_reason is None:
            self._abort_siblings(call)
        if self._closed is None:
            self._pump()
        self._signal()

    def _abort_siblings(self, failed: _Call) -> None:
        message = ABORT_MESSAGES["sibling_error"].format(sibling=f"Bash {failed.use.id}")
        self._closed = ("sibling_error", message)
        for call in self._calls:
            if call is failed or call.outcome is not None:
                continue
            if call.state == "queued":
                self._settle(call, "sibling_error", message)
            elif call.task is not None:
                call.abort_reason, call.abort_message = "sibling_error", message
                call.task.cancel()

    def _signal(self) -> None:
        self._changed.set()
