"""Benchmark: does configuring MCP servers slow down `handrail lsp` start-up or the first turn? (not in the suite)

Run: .venv/bin/python -m tests.bench.bench_mcp_startup

Side by side, with no MCP server configured and with two (`mcp-server-time` and the fixture
server), it measures over several rounds:

1. spawn → `initialize` result;
2. `initialized` → the answer to the first `handrail.ask` (one scripted text reply), sent at once,
   so the servers are still connecting while the turn runs.

It prints the medians and the ratio with/without servers.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from handrail.fake_model import FakeModel, Reply, Text
from tests.e2e.editor import server_env, start_editor

ROUNDS = 5
FIXTURE = Path(__file__).resolve().parents[1] / "e2e" / "mcp_fixture_server.py"
SERVERS = {
    "time": {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]},
    "fx": {"command": sys.executable, "args": [str(FIXTURE)]},
}


async def _round(with_servers: bool) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp, FakeModel() as model:
        root = Path(tmp) / "ws"
        root.mkdir()
        state = Path(tmp) / "state"
        if with_servers:
            user = state / "xdg-config" / "handrail" / "settings.json"
            user.parent.mkdir(parents=True)
            user.write_text(json.dumps({"mcpServers": SERVERS}))
        model.add(Reply.of(Text("hello")))
        start = time.perf_counter()
        editor = await start_editor(root, server_env(model.base_url, state))
        initialized = time.perf_counter()
        await editor.ask("hi")
        answered = time.perf_counter()
        await editor.client.shutdown_session()
        await editor.client.stop()
        return initialized - start, answered - initialized


async def main() -> None:
    results: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    for _ in range(ROUNDS):
        for with_servers in (False, True):  # interleaved, so both see the same machine load
            results[with_servers].append(await _round(with_servers))
    for index, label in enumerate(("initialize", "first answer")):
        without = statistics.median(r[index] for r in results[False])
        with_mcp = statistics.median(r[index] for r in results[True])
        print(f"{label:<14} no MCP {without * 1e3:7.0f} ms   2 servers {with_mcp * 1e3:7.0f} ms   "
              f"ratio {with_mcp / without:4.2f}")


if __name__ == "__main__":
    asyncio.run(main())
