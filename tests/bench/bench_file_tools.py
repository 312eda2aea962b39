"""Benchmarks of the file tools, measured side by side in one run (not part of the test suite).

Run: .venv/bin/python -m tests.bench.bench_file_tools [--files 20000] [--megabytes 200]

1. Grep and Glob through the tools (parse, validate, call, result block) against running
   ripgrep directly with the same arguments, on a generated tree of 20,000 files / 200 MB.
   Target: within 1.2x of bare ripgrep.
2. Read of a 100,000-line file with offset/limit at its start and at its end.
   Target: the cost does not depend on the position (beyond the range read), under 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from handrail.tools.builtin import GLOB, GREP, READ
from handrail.tools.builtin.glob import glob_args, search_root
from handrail.tools.builtin.grep import rg_args, rg_cwd
from handrail.tools.context import PermissionAnswer, PermissionRequest, ToolOptions, ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import DiskFileSystem
from handrail.tools.protocol import Tool
from handrail.tools.ripgrep import find_rg
from tests.bench.report import row

ROUNDS = 15
WORDS_TEXT = """alpha beta gamma delta value result config handler request response client server session token
buffer stream parse render update create delete fetch store index cache query filter record event
async await return import class def self none true false print error warning info debug trace"""
WORDS = WORDS_TEXT.split()
EXTENSIONS = (".py", ".py", ".js", ".ts", ".md", ".txt", ".rs", ".go")


class NoPrompts:
    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        raise AssertionError("the benchmark never asks")


def make_tree(root: Path, files: int, megabytes: int) -> tuple[int, int]:
    """Write `files` text files totalling about `megabytes` MB under `root`; returns (files, bytes)."""
    rng = random.Random(7)
    pool = []
    for n in range(4000):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 12)))
        indent = "    " * rng.randint(0, 3)
        pool.append(f"{indent}{words} = {n}\n")
    per_file = megabytes * 1024 * 1024 // files
    (root / ".gitignore").write_text("build/\n*.log\n")
    written = 0
    count = 0
    per_dir = 100
    for index in range(files):
        directory = root / ("build" if index % 50 == 49 else "src") / f"pkg{index // per_dir:04}"
        if index % per_dir == 0 or index % 50 == 49:
            directory.mkdir(parents=True, exist_ok=True)
        lines: list[str] = []
        size = 0
        start = rng.randrange(len(pool))
        while size < per_file:
            line = pool[(start + len(lines) * 7) % len(pool)]
            lines.append(line)
            size += len(line)
        if index % 97 == 0:
            lines.insert(len(lines) // 2, f"rare_needle_{index} = True\n")
        if index % 10 == 0:
            lines.insert(len(lines) // 3, "# TODO: common marker\n")
        data = "".join(lines)
        (directory / f"mod_{index:05}{EXTENSIONS[index % len(EXTENSIONS)]}").write_text(data)
        written += len(data)
        count += 1
    return count, written


async def through_tool(tool: Tool[Any], ctx: ToolUseContext, raw: dict[str, Any]) -> dict[str, Any]:
    value = tool.input_model.model_validate(raw)
    check = await tool.validate_input(value, ctx)
    if not check.ok:
        raise ToolError(check.message)
    result = await tool.call(value, ctx)
    return tool.map_result_to_block(result.data, ctx.tool_use_id)


def bare_rg(args: list[str], cwd: Path) -> int:
    rg = find_rg()
    assert rg is not None, "ripgrep is needed"
    done = subprocess.run([rg, "--no-config", "--no-require-git", *args], cwd=cwd, capture_output=True, check=False)
    return len(done.stdout)


async def timed_pair(first: Callable[[], Awaitable[Any]], second: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
    """Median seconds of each, run alternately so both see the same machine load."""
    await first()  # warm the page cache and the imports
    await second()
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(ROUNDS):
        for action, times in ((first, samples[0]), (second, samples[1])):
            start = time.perf_counter()
            await action()
            times.append(time.perf_counter() - start)
    return statistics.median(samples[0]), statistics.median(samples[1])


async def timed(action: Callable[[], Awaitable[Any]]) -> float:
    return (await timed_pair(action, action))[0]


async def compare(label: str, tool: Tool[Any], ctx: ToolUseContext, raw: dict[str, Any], *,
                  args: list[str], cwd: Path) -> float:
    tool_time, rg_time = await timed_pair(
        lambda: through_tool(tool, ctx, raw), lambda: asyncio.to_thread(bare_rg, args, cwd)
    )
    block = await through_tool(tool, ctx, raw)
    first = str(block["content"]).splitlines()[0][:40]
    ratio = tool_time / rg_time
    print(f"  {label:<44} tool {tool_time * 1000:7.1f} ms   rg {rg_time * 1000:7.1f} ms   "
          f"ratio {ratio:4.2f}x   ({first})")
    row(label, f"{tool_time * 1000:.1f} ms", f"rg {rg_time * 1000:.1f} ms", ratio, target="<= 1.2x", ok=ratio <= 1.2)
    return ratio


def grep_case(ctx: ToolUseContext, raw: dict[str, Any]) -> tuple[dict[str, Any], list[str], Path]:
    value = GREP.input_model.model_validate(raw)
    target = ctx.options.cwd if value.path is None else Path(value.path)
    return raw, rg_args(value, target), rg_cwd(target)


def glob_case(ctx: ToolUseContext, raw: dict[str, Any]) -> tuple[dict[str, Any], list[str], Path]:
    value = GLOB.input_model.model_validate(raw)
    root, pattern = search_root(value, ctx.options.cwd)
    return raw, glob_args(pattern), root


async def bench_search(root: Path) -> list[float]:
    ctx = ToolUseContext(options=ToolOptions(cwd=root, workspace_roots=(root,)), fs=DiskFileSystem(),
                         file_state=FileStateCache(), prompter=NoPrompts(), tool_use_id="bench")
    ratios = []
    print("Grep and Glob against bare ripgrep (median of", ROUNDS, "runs):")
    cases = [
        ("Grep files_with_matches, rare (~1% of files)", GREP, grep_case(ctx, {"pattern": r"rare_needle_\d+"})),
        ("Grep files_with_matches, common (~10%)", GREP, grep_case(ctx, {"pattern": "TODO: common"})),
        ("Grep content -n, rare", GREP, grep_case(ctx, {"pattern": r"rare_needle_\d+", "output_mode": "content"})),
        ("Grep content -C 2, type py, rare", GREP,
         grep_case(ctx, {"pattern": r"rare_needle_\d+", "output_mode": "content", "-C": 2, "type": "py"})),
        ("Grep count, -i, glob *.md", GREP,
         grep_case(ctx, {"pattern": "todo", "-i": True, "output_mode": "count", "glob": "*.md"})),
        ("Grep no match", GREP, grep_case(ctx, {"pattern": "zzz_absent_zzz"})),
        ("Glob **/*.py (~5,000 files, mtime sort)", GLOB, glob_case(ctx, {"pattern": "**/*.py"})),
        ("Glob src/pkg01*/*.md (~1,200 files)", GLOB, glob_case(ctx, {"pattern": "src/pkg01*/*.md"})),
        ("Glob **/mod_01*.rs (~125 files)", GLOB, glob_case(ctx, {"pattern": "**/mod_01*.rs"})),
        ("Glob **/*.nothing", GLOB, glob_case(ctx, {"pattern": "**/*.nothing"})),
    ]
    for label, tool, (raw, args, cwd) in cases:
        ratios.append(await compare(label, tool, ctx, raw, args=args, cwd=cwd))
    return ratios


async def bench_read(root: Path) -> tuple[float, float]:
    path = root / "big.txt"
    rng = random.Random(3)
    path.write_text("".join(f"{n:06} {' '.join(rng.choice(WORDS) for _ in range(8))}\n" for n in range(100_000)))
    ctx = ToolUseContext(options=ToolOptions(cwd=root, workspace_roots=(root,)), fs=DiskFileSystem(),
                         file_state=FileStateCache(), prompter=NoPrompts(), tool_use_id="bench")
    size = path.stat().st_size
    print(f"Read of a 100,000-line file ({size / 1e6:.1f} MB), limit=100 (median of {ROUNDS} runs):")
    results = []
    for label, offset in (("at the start (offset=1)", 1), ("in the middle (offset=50,000)", 50_000),
                          ("at the end (offset=99,901)", 99_901)):
        raw = {"file_path": str(path), "offset": offset, "limit": 100}
        seconds = await timed(lambda raw=raw: through_tool(READ, ctx, raw))  # type: ignore[misc]
        block = await through_tool(READ, ctx, raw)
        assert str(block["content"]).startswith(f"{offset:>6}\t{offset - 1:06} ")
        print(f"  {label:<32} {seconds * 1000:6.2f} ms")
        results.append(seconds)
    return results[0], results[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--megabytes", type=int, default=200)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="handrail-bench-") as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        count, size = make_tree(root, options.files, options.megabytes)
        print(f"Generated {count:,} files, {size / 1e6:.0f} MB in {time.perf_counter() - start:.1f} s "
              f"({os.cpu_count()} CPUs)\n")
        ratios = asyncio.run(bench_search(root))
        print()
        first, last = asyncio.run(bench_read(root))
    worst = max(ratios)
    print(f"\nSearch: worst ratio {worst:.2f}x, median {statistics.median(ratios):.2f}x (target <= 1.2x)")
    print(f"Read: end/start {last / first:.2f}x, slowest {max(first, last) * 1000:.1f} ms (target < 20 ms)")
    row("Read 100 lines at the end of 100k lines", f"{last * 1000:.1f} ms", f"at the start {first * 1000:.1f} ms",
        last / first, target="< 20 ms", ok=max(first, last) < 0.020)
    ok = worst <= 1.2 and max(first, last) < 0.020
    print("OK" if ok else "MISSED a target")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
