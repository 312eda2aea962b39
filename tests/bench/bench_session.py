"""What a session costs a paying user, side by side with the best it could cost (not part of the test suite).

Run: .venv/bin/python -m tests.bench.bench_session [--only billing first-prompt] [--pause 10]

1. Billed input: a 30-request coding session through `handrail lsp` (three questions, each answered
   with several Reads and Edits, one response reading a dozen files at once, thinking before some
   calls) against a fake model that bills prompt caching as the Messages API does (breakpoints, the
   20-block look-back, the minimum cacheable prefix). Priced in plain-input tokens the way the API
   bills them (cache writes 1.25x, cache reads 0.1x, plain input 1x) against the ideal: every request
   reads from the cache all it shares with an earlier one and writes the rest. Target: <= 1.1x.
2. The first prompt after start-up against later ones: a text-only turn, asked ten seconds after the
   editor started `handrail lsp` (the time a user takes to open the chat and type; the server loads the
   model SDK meanwhile, about a second on an idle machine), against the median of the next five.
   Target: the first no more than 100 ms slower (loading the SDK on the first prompt cost a second
   or more; what is left is the first turn's own set-up: settings, catalogs, the first connection).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from handrail.fake_model import FakeModel, PromptCache, Reply, Text, billed_input, ideal_usage, request_tokens
from tests.bench.report import row
from tests.e2e.coding_session import EDIT_RULES, run_session, write_workspace
from tests.e2e.editor import server_env, start_editor

PARTS = ("billing", "first-prompt")
TARGET_RATIO = 1.1
USER_PAUSE_SECONDS = 10.0  # from the editor starting the server to the first prompt
LATER_PROMPTS = 5
SLOWER_BY_AT_MOST = 0.1  # seconds


def _unmarked(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _unmarked(item) for key, item in value.items() if key != "cache_control"}
    return [_unmarked(item) for item in value] if isinstance(value, list) else value


def _tools_marked_only(request: dict[str, Any]) -> dict[str, Any]:
    """The request as handrail sent it before it marked the system prompt and the messages."""
    system = request["system"]
    system = system[0]["text"] if isinstance(system, list) else system
    return {**request, "system": system, "messages": _unmarked(request["messages"])}


async def bench_billing(root: Path) -> None:
    write_workspace(root)
    with FakeModel(count_usage=True) as model:
        editor = await start_editor(root, server_env(model.base_url, root.parent / "state"), init_options=EDIT_RULES)
        try:
            await run_session(editor, model, root)
        finally:
            await editor.client.shutdown_session()
            await editor.client.stop()
        requests, usages = model.requests, model.usages
    ours = sum(billed_input(usage) for usage in usages)
    ideal = sum(billed_input(usage) for usage in ideal_usage(requests))
    uncached = sum(request_tokens(request) for request in requests)
    before = PromptCache()
    tools_only = sum(billed_input(before.account(_tools_marked_only(request))) for request in requests)
    print(f"billed input of {len(requests)} requests, in plain-input tokens: handrail {ours:,.0f}, ideal {ideal:,.0f}; "
          f"with only the tool definitions marked {tools_only:,.0f} ({tools_only / ideal:.2f}x the ideal), "
          f"without any caching {uncached:,.0f} ({uncached / ideal:.2f}x)")
    row(f"billed input, {len(requests)}-request session (3 questions)", f"{ours:,.0f} tokens",
        f"every prefix cached {ideal:,.0f}", ours / ideal, target=f"<= {TARGET_RATIO}x",
        ok=ours <= TARGET_RATIO * ideal)


async def bench_first_prompt(root: Path, pause: float) -> None:
    with FakeModel() as model:
        editor = await start_editor(root, server_env(model.base_url, root.parent / "state-first"))
        try:
            await asyncio.sleep(pause)
            times = []
            session = None
            for n in range(1 + LATER_PROMPTS):
                model.add(Reply.of(Text("hello")))
                start = time.perf_counter()
                result = await editor.ask(f"say hello ({n})", session)
                times.append(time.perf_counter() - start)
                session = result["sessionId"]
        finally:
            await editor.client.shutdown_session()
            await editor.client.stop()
    first, later = times[0], statistics.median(times[1:])
    print(f"a text-only turn: the first, {pause:g} s after start-up, {first * 1000:.0f} ms, later ones "
          f"{later * 1000:.0f} ms (median of {LATER_PROMPTS})")
    row("first prompt after start-up (text answer)", f"{first * 1000:.0f} ms", f"later prompts {later * 1000:.0f} ms",
        first / later, target=f"< {SLOWER_BY_AT_MOST * 1000:.0f} ms slower", ok=first - later < SLOWER_BY_AT_MOST)


async def bench(root: Path, parts: tuple[str, ...], pause: float) -> None:
    if "billing" in parts:
        await bench_billing(root)
    if "first-prompt" in parts:
        await bench_first_prompt(root, pause)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="+", choices=PARTS, default=PARTS, help="run only these measurements")
    parser.add_argument("--pause", type=float, default=USER_PAUSE_SECONDS,
                        help="seconds from start-up to the first prompt")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="handrail-bench-") as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        asyncio.run(bench(root.resolve(), tuple(options.only), options.pause))


if __name__ == "__main__":
    main()
