"""The execution engine: which calls are safe together, the streaming schedule, ordering, aborts and interrupts.

Every test is driven by events and barriers: tools wait on gates the test opens.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from handrail.permissions.context import PermissionContext
from handrail.permissions.rules import PermissionRule
from handrail.tools.context import ToolOptions, ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.execution import CallOutcome, ToolUse
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import DiskFileSystem
from handrail.tools.orchestration import is_safe_call
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.streaming_executor import StreamingToolExecutor
from tests.tools.support import run_tools


class Key(BaseModel):
    key: str
    fail: bool = False


class Lab:
    """Gates the tools wait on, and a log of what happened in which order."""

    def __init__(self) -> None:
        self.gates: dict[str, asyncio.Event] = {}
        self.started: dict[str, asyncio.Event] = {}
        self.log: list[str] = []
        self.progress: list[tuple[str, str]] = []

    def gate(self, key: str) -> asyncio.Event:
        return self.gates.setdefault(key, asyncio.Event())

    def started_event(self, key: str) -> asyncio.Event:
        return self.started.setdefault(key, asyncio.Event())

    def tool_started(self, tool_use_id: str, name: str, summary: str) -> None:
        self.progress.append(("start", tool_use_id))

    def tool_progress(self, tool_use_id: str, message: str) -> None:
        self.progress.append(("progress", tool_use_id))

    def tool_finished(self, tool_use_id: str, *, is_error: bool, text: str) -> None:
        self.progress.append(("end", tool_use_id))

    async def allow(self, request: Any) -> Any:
        raise AssertionError("no prompts expected")


def _tool(lab: Lab, name: str, *, safe: bool, interrupt: str = "block") -> Any:
    async def call(value: Key, ctx: ToolUseContext) -> ToolResult:
        lab.log.append(f"start {value.key}")
        lab.started_event(value.key).set()
        ctx.report(f"working on {value.key}")
        try:
            await lab.gate(value.key).wait()
        except asyncio.CancelledError:
            lab.log.append(f"cancelled {value.key}")
            lab.started_event(f"cancelled {value.key}").set()
            raise
        lab.log.append(f"end {value.key}")
        if value.fail:
            raise ToolError(f"{value.key} failed")
        return ToolResult(f"{name} {value.key}")

    return build_tool(
        name=name, input_model=Key, description=name, call=call,
        is_concurrency_safe=lambda _: safe, interrupt_behavior=interrupt,
    )


def _ctx(lab: Lab, tmp_path: Path) -> ToolUseContext:
    class Prompter:
        async def ask_permission(self, request: Any) -> Any:
            raise AssertionError("no prompts expected")

    tools = ("Safe", "Serial", "Bash", "Stubborn", "Quick")
    context = PermissionContext(workspace_roots=(tmp_path,), allow=tuple(PermissionRule(t) for t in tools))
    return ToolUseContext(
        options=ToolOptions(cwd=tmp_path, workspace_roots=(tmp_path,)),
        fs=DiskFileSystem(), file_state=FileStateCache(), prompter=Prompter(), progress=lab,
        permission_context=context,
    )


def _use(name: str, key: str, **extra: Any) -> ToolUse:
    return ToolUse(f"id-{key}", name, {"key": key, **extra})


def _texts(outcomes: list[CallOutcome]) -> list[str]:
    return [str(o.block["content"]) for o in outcomes]


def _tools(lab: Lab) -> list[Any]:
    return [
        _tool(lab, "Safe", safe=True),
        _tool(lab, "Serial", safe=False),
        _tool(lab, "Bash", safe=True, interrupt="cancel"),
        _tool(lab, "Stubborn", safe=True, interrupt="block"),
    ]


def test_only_parsed_calls_of_known_tools_that_say_so_are_safe() -> None:
    tools = _tools(Lab())
    uses = [_use("Safe", "a"), _use("Serial", "c"), ToolUse("bad", "Safe", {"nope": 1}), _use("Unknown", "e")]
    assert [is_safe_call(use, tools) for use in uses] == [True, False, False, False]


def test_a_raising_safety_check_means_not_safe() -> None:
    async def call(value: Key, ctx: ToolUseContext) -> ToolResult:
        return ToolResult("x")

    def explode(_: Any) -> bool:
        raise RuntimeError("boom")

    tool = build_tool(name="Odd", input_model=Key, description="odd", call=call, is_concurrency_safe=explode)
    assert is_safe_call(_use("Odd", "a"), [tool]) is False


async def test_safe_calls_run_together_and_results_keep_model_order(tmp_path: Path) -> None:
    lab = Lab()
    executor = StreamingToolExecutor(_tools(lab), _ctx(lab, tmp_path))
    for key in ("a", "b", "c"):
        executor.add(_use("Safe", key))
    for key in ("a", "b", "c"):
        await lab.started_event(key).wait()  # all three are running at once
    lab.gate("c").set()
    lab.gate("b").set()
    lab.gate("a").set()
    outcomes = await executor.collect()
    assert _texts(outcomes) == ["Safe a", "Safe b", "Safe c"]
    # progress went out while the calls ran, before any result was released
    assert [kind for kind, _ in lab.progress[:6]].count("progress") == 3


async def test_non_safe_call_waits_and_blocks_the_queue(tmp_path: Path) -> None:
    lab = Lab()
    executor = StreamingToolExecutor(_tools(lab), _ctx(lab, tmp_path))
    executor.add(_use("Safe", "a"))
    executor.add(_use("Serial", "b"))
    executor.add(_use("Safe", "c"))  # may not overtake the non-safe call before it
    await lab.started_event("a").wait()
    assert lab.log == ["start a"]
    lab.gate("a").set()
    await lab.started_event("b").wait()
    assert "start c" not in lab.log
    lab.gate("b").set()
    await lab.started_event("c").wait()
    lab.gate("c").set()
    assert _texts(await executor.collect()) == ["Safe a", "Serial b", "Safe c"]
    assert lab.log == ["start a", "end a", "start b", "end b", "start c", "end c"]


async def test_concurrency_cap(tmp_path: Path) -> None:
    lab = Lab()
    executor = StreamingToolExecutor(_tools(lab), _ctx(lab, tmp_path), max_concurrency=2)
    for key in ("a", "b", "c"):
        executor.add(_use("Safe", key))
    await lab.started_event("a").wait()
    await lab.started_event("b").wait()
    assert "start c" not in lab.log
    lab.gate("a").set()
    await lab.started_event("c").wait()
    lab.gate("b").set()
    lab.gate("c").set()
    assert len(await executor.collect()) == 3


async def test_results_are_released_as_soon_as_earlier_ones_are_done(tmp_path: Path) -> None:
    lab = Lab()
    executor = StreamingToolExecutor(_tools(lab), _ctx(lab, tmp_path))
    executor.add(_use("Safe", "a"))
    executor.add(_use("Safe", "b"))
    stream = executor.results()
    lab.gate("a").set()
    first = await anext(stream)
    assert first.block["content"] == "Safe a"
    lab.gate("b").set()
    executor.finish()
    assert [o.block["content"] async for o in stream] == ["Safe b"]


async def test_failing_bash_aborts_its_siblings(tmp_path: Path) -> None:
    lab = Lab()
    executor = StreamingToolExecutor(_tools(lab), _ctx(lab, tmp_path))
    executor.add(_use("Safe", "a"))
    executor.add(_use("Bash", "b", fail=True))
    executor.add(_use("Serial", "c"))
    await lab.started_event("a").wait()
    await lab.started_event("b").wait()
    lab.gate("b").set()
    outcomes = await executor.collect()
    texts = _texts(outcomes)
    assert "sibling" in texts[0] and texts[1] == "b failed" and "sibling" in texts[2]
    assert "cancelled a" in lab.log and "start c" not in lab.log


async def test_other_errors_stay_isolated(tmp_path: Path) -> None:
    lab = Lab()
    executor = StreamingToolExecutor(_tools(lab), _ctx(lab, tmp_path))
    executor.add(_use("Safe", "a", fail=True))
    executor.add(_use("Safe", "b"))
    lab.gate("a").set()
    lab.gate("b").set()
    assert _texts(await executor.collect()) == ["a failed", "Safe b"]


async def test_interrupt_cancels_cancel_tools_and_lets_block_tools_finish(tmp_path: Path) -> None:
    lab = Lab()
    executor = StreamingToolExecutor(_tools(lab), _ctx(lab, tmp_path))
    executor.add(_use("Bash", "a"))  # interrupt_behavior cancel
    executor.add(_use("Stubborn", "b"))  # interrupt_behavior block
    executor.add(_use("Serial", "c"))  # queued: never starts
    await lab.started_event("a").wait()
    await lab.started_event("b").wait()
    interrupted = asyncio.create_task(executor.interrupt())
    await lab.started_event("cancelled a").wait()
    assert not interrupted.done()  # the block tool is still finishing
    lab.gate("b").set()
    await interrupted
    texts = _texts(executor.outcomes())
    assert "cancelled" in texts[0] and texts[1] == "Stubborn b" and "cancelled" in texts[2]
    assert "start c" not in lab.log


async def test_discard_on_stream_failure_answers_everything(tmp_path: Path) -> None:
    lab = Lab()
    executor = StreamingToolExecutor(_tools(lab), _ctx(lab, tmp_path))
    executor.add(_use("Safe", "a"))
    executor.add(_use("Stubborn", "b"))
    lab.gate("a").set()
    await anext(executor.results())
    await lab.started_event("b").wait()
    await executor.discard("streaming_fallback")
    executor.add(_use("Safe", "late"))  # a block completing after the failure is answered too
    texts = _texts(executor.outcomes())
    assert texts[0] == "Safe a" and "ended before" in texts[1] and "ended before" in texts[2]
    assert "start late" not in lab.log


async def test_context_modifiers_apply_only_from_serial_calls(tmp_path: Path) -> None:
    seen: list[str] = []

    async def call(value: Key, ctx: ToolUseContext) -> ToolResult:
        seen.append(ctx.options.cwd.name + ":" + value.key)
        return ToolResult(value.key, context_modifier=lambda c: ToolUseContext(
            options=ToolOptions(cwd=c.options.cwd / value.key, workspace_roots=c.options.workspace_roots),
            fs=c.fs, file_state=c.file_state, prompter=c.prompter, permission_context=c.permission_context,
        ))

    lab = Lab()
    serial = build_tool(name="Serial", input_model=Key, description="s", call=call)
    safe = build_tool(name="Safe", input_model=Key, description="s", call=call, is_concurrency_safe=lambda _: True)
    uses = [_use("Safe", "x"), _use("Serial", "m1"), _use("Serial", "m2"), _use("Safe", "y")]
    await run_tools(uses, [serial, safe], _ctx(lab, tmp_path))
    base = tmp_path.name
    assert seen == [f"{base}:x", f"{base}:m1", "m1:m2", "m2:y"]


async def test_invalid_json_input_is_answered_without_running(tmp_path: Path) -> None:
    lab = Lab()
    bad = ToolUse("t1", "Safe", {}, input_error="Expecting value")
    outcomes = await run_tools([bad], _tools(lab), _ctx(lab, tmp_path))
    assert outcomes[0].is_error and "could not be used (Expecting value)" in str(outcomes[0].block["content"])
    assert lab.log == []


async def test_calls_stopped_before_their_first_step_are_still_answered(tmp_path: Path) -> None:
    lab = Lab()
    executor = StreamingToolExecutor(_tools(lab), _ctx(lab, tmp_path))
    executor.add(_use("Safe", "a"))
    executor.add(_use("Safe", "b"))
    await executor.discard()  # no await in between: neither task has run a step yet
    assert len(executor.outcomes()) == 2 and lab.log == []
    assert [kind for kind, _ in lab.progress].count("end") == 2
