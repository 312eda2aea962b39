"""Benchmarks of the execution engine, measured side by side in one run (not part of the test suite).

Run: .venv/bin/python -m tests.bench.bench_engine

1. Per-call overhead of the pipeline (lookup + input validation + permission check +
   result mapping) for a no-op tool, against awaiting the tool's function directly.
   Target: under 50 µs per call.
2. Ten concurrency-safe calls that each wait 100 ms, run through the executor,
   against the same ten awaited one after another. Target: at least 9 times faster.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from handrail.permissions.context import PermissionContext
from handrail.tools.context import ToolOptions, ToolUseContext
from handrail.tools.execution import ToolUse, run_tool_use
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import DiskFileSystem
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.registry import all_base_tools
from tests.bench.report import row
from tests.tools.support import run_tools

CALLS = 20_000
ROUNDS = 5


class Args(BaseModel):
    word: str = "x"
    count: int = 1


async def noop(value: Args, ctx: ToolUseContext) -> ToolResult:
    return ToolResult("ok")


async def wait_100ms(value: Args, ctx: ToolUseContext) -> ToolResult:
    await asyncio.sleep(0.1)
    return ToolResult("slept")


NOOP = build_tool(name="Noop", input_model=Args, description="noop", call=noop,
                  is_read_only=lambda _: True, is_concurrency_safe=lambda _: True)
SLEEPY = build_tool(name="Sleepy", input_model=Args, description="sleep", call=wait_100ms,
                    is_read_only=lambda _: True, is_concurrency_safe=lambda _: True)


class NoPrompts:
    async def ask_permission(self, request: Any) -> Any:
        raise AssertionError("read-only tools inside the workspace are not asked about")


def context(root: Path) -> ToolUseContext:
    return ToolUseContext(
        options=ToolOptions(cwd=root, workspace_roots=(root,)), fs=DiskFileSystem(), file_state=FileStateCache(),
        prompter=NoPrompts(), permission_context=PermissionContext(workspace_roots=(root,)),
    )


async def overhead(ctx: ToolUseContext) -> tuple[float, float]:
    tools = [*all_base_tools(), NOOP]  # lookup walks a realistic pool
    raw = {"word": "hello", "count": 3}
    use = ToolUse("toolu_1", "Noop", raw)
    pipeline, direct = [], []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(CALLS):
            await run_tool_use(use, tools, ctx)
        pipeline.append((time.perf_counter() - start) / CALLS)
        start = time.perf_counter()
        for _ in range(CALLS):
            await noop(Args(**raw), ctx)
        direct.append((time.perf_counter() - start) / CALLS)
    return statistics.median(pipeline), statistics.median(direct)


async def concurrency(ctx: ToolUseContext) -> tuple[float, float]:
    uses = [ToolUse(f"toolu_{i}", "Sleepy", {}) for i in range(10)]
    start = time.perf_counter()
    outcomes = await run_tools(uses, [SLEEPY], ctx)
    together = time.perf_counter() - start
    assert len(outcomes) == 10 and not any(o.is_error for o in outcomes)
    start = time.perf_counter()
    for _ in uses:
        await wait_100ms(Args(), ctx)
    serial = time.perf_counter() - start
    return together, serial


async def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        ctx = context(Path(tmp))
        pipeline, direct = await overhead(ctx)
        together, serial = await concurrency(ctx)
    added = (pipeline - direct) * 1e6
    speedup = serial / together
    print(f"pipeline per call: {pipeline * 1e6:8.1f} µs   direct call: {direct * 1e6:6.1f} µs   "
          f"overhead: {added:6.1f} µs (target < 50)")
    print(f"10 × 100 ms calls: executor {together * 1000:6.0f} ms   serial {serial * 1000:6.0f} ms   "
          f"speed-up: {speedup:4.1f}× (target ≥ 9)")
    row("engine: pipeline per call, no-op tool", f"{pipeline * 1e6:.1f} µs", f"direct call {direct * 1e6:.1f} µs",
        pipeline / direct, target="< 50 µs added", ok=added < 50)
    row("engine: 10 concurrent 100 ms calls", f"{together * 1000:.0f} ms", f"one by one {serial * 1000:.0f} ms",
        together / serial, target=">= 9x faster", ok=speedup >= 9)
    return 0 if added < 50 and speedup >= 9 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
