"""Benchmarks of the server as editors see it, each side by side in one run (not part of the test suite).

Run: .venv/bin/python -m tests.bench.bench_server [--turns 1000] [--context-window 200000] [--only memory ...]

1. Start-up: spawn to the `initialize` result, `handrail lsp` against `jedi-language-server`
   started the same way, alternately (median of 7). Target: not slower.
2. A scripted turn of 20 Read calls against the zero-latency fake model: handrail's overhead per
   call above the tools' own time (the turn minus a text-only turn minus 20 Reads run directly).
   The fake model's own time answering each request (parsing and checking the request, writing the
   events; it measures it itself) is a model's latency, which a zero-latency model has none of, so it
   is left out of every turn. Target: under 5 ms per call. Both shapes: one call per model response
   (21 requests) and 20 calls in one response.
3. didChange on a 10 MB document, one-character incremental edits, through the real server
   against the same edits on a 1 KB document; and handrail's document store alone against
   pygls's, in-process. Target: under 1 ms per edit.
4. The server's RSS over 1,000 one-Read turns in one session, in a fresh server. The fake model reports
   each request's estimated size as its input tokens (as the real API reports usage), so the server
   compacts (clears old tool results, then summarizes older turns) when a real conversation would,
   in a 50,000-token window (the contextWindow setting; at the default 200,000 the first summary comes
   at about turn 500, so 1,000 turns would see one cycle). Target: flat after compaction (RSS growth
   fitted over the second half of the run, several compaction cycles, under 2 KB per turn).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO, Any

from lsprotocol import types
from pygls.workspace import Workspace

from handrail.agent.compaction import CLEARED, COMPACT_AT, SUMMARY_REQUEST
from handrail.fake_model import FakeModel, Reply, Text, ToolUse, request_tokens
from handrail.lsp.documents import BlockWorkspace
from handrail.tools.builtin import READ
from handrail.tools.context import ToolOptions, ToolUseContext
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import DiskFileSystem
from tests.bench.bench_file_tools import NoPrompts, through_tool
from tests.bench.report import row
from tests.e2e.editor import Editor, handrail_command, server_env, start_editor

STARTS = 7
TURN_ROUNDS = 7
CALLS = 20


# ---------------------------------------------------------------- 1. start-up


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read_message(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    if not length:
        raise RuntimeError("the server closed its output before answering initialize")
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def time_to_initialize(command: list[str], root: Path, env: dict[str, str]) -> float:
    """Seconds from spawning `command` to reading its `initialize` result."""
    params = {
        "processId": os.getpid(),
        "rootUri": root.as_uri(),
        "capabilities": {},
        "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
    }
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env, cwd=root)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
    proc.stdin.flush()
    while _read_message(proc.stdout).get("id") != 1:
        pass
    elapsed = time.perf_counter() - start
    proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
    proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return elapsed


def bench_startup(root: Path, env: dict[str, str]) -> None:
    jedi = Path(sys.executable).parent / "jedi-language-server"
    if not jedi.exists():
        print("start-up: jedi-language-server is not installed (pip install -e '.[bench]'); skipped")
        return
    commands = {"handrail": handrail_command(), "jedi": [str(jedi)]}
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # warm the page cache
        time_to_initialize(command, root, env)
    for _ in range(STARTS):
        for name, command in commands.items():
            samples[name].append(time_to_initialize(command, root, env))
    ours, theirs = statistics.median(samples["handrail"]), statistics.median(samples["jedi"])
    print(f"start-up to initialize (median of {STARTS}): handrail {ours * 1000:.0f} ms, "
          f"jedi-language-server {theirs * 1000:.0f} ms")
    row("start-up to initialize", f"{ours * 1000:.0f} ms", f"jedi-language-server {theirs * 1000:.0f} ms",
        ours / theirs, target="not slower (<= 1.0x)", ok=ours <= theirs)


# ---------------------------------------------------------------- 2. a 20-call turn


async def _timed(action: Callable[[], Awaitable[Any]]) -> float:
    start = time.perf_counter()
    await action()
    return time.perf_counter() - start


async def _handrail_time(model: FakeModel, action: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
    """(seconds `action` took less the fake model's time answering, the fake model's time answering)."""
    answering = model.answering_seconds
    elapsed = await _timed(action)
    model_time = model.answering_seconds - answering
    return elapsed - model_time, model_time


async def _ask_ok(editor: Editor, prompt: str, session_id: str | None = None) -> dict[str, Any]:
    result = await editor.ask(prompt, session_id)
    assert result["stopReason"] == "end_turn", result
    return result


async def tools_own_time(root: Path, files: list[Path]) -> float:
    """Seconds for the 20 Reads run directly (parse, validate, call, result block), median of rounds."""
    ctx = ToolUseContext(options=ToolOptions(cwd=root, workspace_roots=(root,)), fs=DiskFileSystem(),
                         file_state=FileStateCache(), prompter=NoPrompts(), tool_use_id="bench")

    async def all_reads() -> None:
        for path in files:
            await through_tool(READ, ctx, {"file_path": str(path)})

    await all_reads()
    return statistics.median([await _timed(all_reads) for _ in range(TURN_ROUNDS)])


async def bench_turn(editor: Editor, model: FakeModel, root: Path) -> None:
    files = []
    for n in range(CALLS):
        path = root / "src" / f"module_{n}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(f"def function_{i}(x):\n    return x + {i}\n" for i in range(40)))
        files.append(path)
    reads = [ToolUse("Read", {"file_path": str(p)}) for p in files]
    model.add(Reply.of(Text("warm")))
    await _ask_ok(editor, "warm up (the SDK is imported on the first turn)")
    empty: list[float] = []
    one_by_one: list[float] = []
    together: list[float] = []
    model_time = {"one call per response": 0.0, "20 calls in one response": 0.0}
    for _ in range(TURN_ROUNDS):
        model.add(Reply.of(Text("done")))
        empty.append((await _handrail_time(model, lambda: _ask_ok(editor, "nothing to do")))[0])
        model.add(*(Reply.of(read) for read in reads), Reply.of(Text("done")))
        turn, answering = await _handrail_time(model, lambda: _ask_ok(editor, "read them one by one"))
        one_by_one.append(turn)
        model_time["one call per response"] += answering / TURN_ROUNDS
        model.add(Reply.of(*reads), Reply.of(Text("done")))
        turn, answering = await _handrail_time(model, lambda: _ask_ok(editor, "read them together"))
        together.append(turn)
        model_time["20 calls in one response"] += answering / TURN_ROUNDS
    own = await tools_own_time(root, files)
    base = statistics.median(empty)
    for label, samples in (("one call per response", one_by_one), ("20 calls in one response", together)):
        turn = statistics.median(samples)
        per_call = (turn - base - own) / CALLS
        print(f"20-Read turn, {label}: turn {turn * 1000:.0f} ms (the fake model's answering, "
              f"{model_time[label] * 1000:.0f} ms, left out), text-only turn {base * 1000:.0f} ms, "
              f"the Reads alone {own * 1000:.1f} ms -> overhead {per_call * 1000:.2f} ms per call")
        row(f"turn overhead per tool call ({label})", f"{per_call * 1000:.2f} ms",
            f"Read alone {own / CALLS * 1000:.2f} ms", (turn - base) / own,
            target="< 5 ms per call", ok=per_call < 0.005)


# ---------------------------------------------------------------- 3. didChange


def _document(megabytes: float) -> str:
    line = "    value = compute(alpha, beta, gamma) + offset  # a typical line\n"
    return line * max(1, int(megabytes * 1024 * 1024) // len(line))


def _edit(uri: str, version: int, line: int) -> types.DidChangeTextDocumentParams:
    at = types.Position(line=line, character=4)
    return types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text="x")],
    )


async def _server_edits(editor: Editor, path: Path, text: str, edits: int) -> float:
    """Seconds per one-character incremental edit in the real server (a request after the last waits for all)."""
    async def round_trip() -> None:
        await editor.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="handrail.permissions", arguments=[{}])
        )

    uri = path.as_uri()
    editor.client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
    )
    await round_trip()
    lines = text.count("\n")
    start = time.perf_counter()
    for n in range(edits):
        editor.client.text_document_did_change(_edit(uri, n + 2, (n * 7919) % lines))
    await round_trip()
    elapsed = time.perf_counter() - start
    editor.client.text_document_did_close(
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=uri))
    )
    return elapsed / edits


def _store_edits(workspace: Workspace, text: str, edits: int) -> float:
    """Seconds per incremental edit in a document store alone (in-process)."""
    uri = "file:///bench/doc.py"
    workspace.put_text_document(types.TextDocumentItem(uri, "python", 1, text))
    lines = text.count("\n")
    start = time.perf_counter()
    for n in range(edits):
        params = _edit(uri, n + 2, (n * 7919) % lines)
        workspace.update_text_document(params.text_document, params.content_changes[0])
    return (time.perf_counter() - start) / edits


async def bench_did_change(editor: Editor, root: Path) -> None:
    big, small = _document(10), _document(0.001)
    server_big = await _server_edits(editor, root / "big.py", big, 200)
    server_small = await _server_edits(editor, root / "small.py", small, 200)
    ours = _store_edits(BlockWorkspace(None), big, 200)
    pygls = _store_edits(Workspace(None), big, 10)
    print(f"didChange, one-character incremental edits through the server: 10 MB document "
          f"{server_big * 1000:.3f} ms per edit, 1 KB document {server_small * 1000:.3f} ms. Document stores "
          f"alone on 10 MB: handrail's {ours * 1000:.3f} ms, pygls's {pygls * 1000:.1f} ms (pygls rebuilds the "
          f"whole text per edit)")
    row("didChange 10 MB, through the server", f"{server_big * 1000:.3f} ms/edit",
        f"1 KB doc {server_small * 1000:.3f} ms", server_big / server_small, target="< 1 ms per edit",
        ok=server_big < 0.001)
    row("didChange 10 MB, document store alone", f"{ours * 1000:.3f} ms/edit", f"pygls's {pygls * 1000:.1f} ms",
        ours / pygls, target="< 1 ms per edit", ok=ours < 0.001)


# ---------------------------------------------------------------- 4. memory


# The server's contextWindow setting for the run. Its default, Claude's 200,000 tokens, holds about 500
# of these small turns before the first summary; a quarter of it gives 1,000 turns several cycles.
CONTEXT_WINDOW = 50_000
FLAT_KB_PER_TURN = 2.0  # RSS growth over the second half of the run below this counts as flat
SAMPLES = 100  # RSS readings over the run (enough for several in every compaction cycle)
STEPS_AHEAD = 3  # a turn takes two requests, three when the history is summarized first


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [str(b.get("text", "")) for b in content or [] if b.get("type") == "text"]


def _cleared(body: dict[str, Any]) -> int:
    """How many tool results of the request were cleared by compaction."""
    return sum(
        1
        for m in body["messages"] if isinstance(m.get("content"), list)
        for b in m["content"] if b.get("type") == "tool_result" and b.get("content") == CLEARED
    )


class MemoryModel:
    """The model's side of the memory run, answering by what each request is (the order of requests
    changes when the server compacts): a new prompt gets a Read of the module, a tool result gets an
    answer, the summary request gets a summary. Every reply reports the request's estimated input
    tokens as its usage, as the real API would, so the server compacts when a real conversation of
    this size would. Counts the compactions it sees."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.turn = 0
        self.clearings: list[int] = []  # turns in which old tool results were cleared
        self.summaries: list[int] = []  # turns in which older turns were summarized
        self.largest = 0  # input tokens of the largest request
        self._cleared = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        tokens = request_tokens(body)
        self.largest = max(self.largest, tokens)
        cleared = _cleared(body)
        if cleared > self._cleared:
            self.clearings.append(self.turn)
        self._cleared = cleared
        last = body["messages"][-1]
        if any(SUMMARY_REQUEST in text for text in _texts(last)):
            self.summaries.append(self.turn)
            return Reply.of(Text(f"The user asked {self.turn} times to read {self.path.name}; it was read each "
                                 "time and answered. Nothing remains to be done."), usage_in=tokens)
        if any(b.get("type") == "tool_result" for b in last["content"] if isinstance(b, dict)):
            return Reply.of(Text(f"answer {self.turn} " * 20), usage_in=tokens)
        return Reply.of(ToolUse("Read", {"file_path": str(self.path)}), usage_in=tokens)


async def bench_memory(root: Path, env: dict[str, str], model: FakeModel, turns: int, window: int) -> None:
    """RSS of a fresh server over `turns` one-Read turns in one session, with `window` as its context window."""
    editor = await start_editor(root, env, init_options={"contextWindow": window})
    try:
        await _memory_turns(editor, model, root, turns, window)
    finally:
        await editor.client.shutdown_session()
        await editor.client.stop()


async def _memory_turns(editor: Editor, model: FakeModel, root: Path, turns: int, window: int) -> None:
    server = editor.client._server  # pygls keeps the server process here
    assert server is not None
    path = root / "src" / "module_0.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(f"def function_{i}(x):\n    return x + {i}\n" for i in range(40)))
    fake = MemoryModel(path)
    model.add(Reply.of(Text("first")))
    session = (await _ask_ok(editor, "first turn"))["sessionId"]
    points = [(0, _rss_mb(server.pid))]
    every = max(1, turns // SAMPLES)
    for n in range(1, turns + 1):
        fake.turn = n
        model.add(*[fake] * max(0, STEPS_AHEAD - model.remaining))
        model.forget_requests()  # the fake would keep every request body of the run
        await _ask_ok(editor, f"turn {n}: read the module again", session)
        if n % every == 0 or n == turns:
            points.append((n, _rss_mb(server.pid)))
    assert not model.errors, model.errors[:3]
    shown = points[:: max(1, len(points) // 10)]
    shown += [] if shown[-1] == points[-1] else points[-1:]
    print(f"server RSS (MB) by turn, {turns} one-Read turns in one session, context window {window} tokens: "
          + ", ".join(f"{n}: {mb:.0f}" for n, mb in shown))
    print(f"compaction: old tool results cleared {len(fake.clearings)} times (turns {_listed(fake.clearings)}), "
          f"older turns summarized {len(fake.summaries)} times (turns {_listed(fake.summaries)}); "
          f"largest request {fake.largest} tokens")
    name = f"RSS after {turns} turns in one session"
    measured, start = f"{points[-1][1]:.0f} MB", f"after 1 turn {points[0][1]:.0f} MB"
    if not fake.summaries or fake.summaries[0] >= turns:
        # until the first summary the history only grows (clearing keeps a stub of every turn)
        print(f"no compaction cycle completed (none reached {COMPACT_AT:.0%} of the window and was summarized): "
              "run more turns or give a smaller --context-window")
        row(name, measured, start, points[-1][1] / points[0][1], target="flat after compaction (no cycle)", ok=False)
        return
    # From the first summary on the history grows and shrinks in cycles, never past the size it had
    # then. The RSS still climbs for a few cycles (the allocator's high-water mark: the Python objects
    # alive at the same point of later cycles are the same), so the slope is fitted over the run's
    # second half, several cycles, whose ups and downs cancel out.
    first = fake.summaries[0]
    since = max(first, turns // 2)
    slope = _slope_kb_per_turn([(n, mb) for n, mb in points if n >= since])
    at_first = min(points, key=lambda p: abs(p[0] - first))
    print(f"RSS at the first summary (turn {first}) {at_first[1]:.1f} MB; growth from turn {since} on: "
          f"{slope:.2f} KB per turn (flat: under {FLAT_KB_PER_TURN:g})")
    row(name, measured, start, points[-1][1] / points[0][1],
        target=f"flat after compaction ({slope:+.2f} KB/turn from turn {since}; < {FLAT_KB_PER_TURN:g})",
        ok=slope < FLAT_KB_PER_TURN)


def _slope_kb_per_turn(points: list[tuple[int, float]]) -> float:
    """Least-squares RSS growth in KB per turn over (turn, MB) readings."""
    if len(points) < 2:
        return float("nan")
    return statistics.linear_regression([float(n) for n, _ in points], [mb for _, mb in points]).slope * 1024


def _listed(turns: list[int], most: int = 8) -> str:
    shown = ", ".join(map(str, turns[:most]))
    return shown + (", …" if len(turns) > most else "") if turns else "-"


# ---------------------------------------------------------------- main


PARTS = ("startup", "turn", "didChange", "memory")


async def bench_live(root: Path, turns: int, window: int, parts: tuple[str, ...] = PARTS) -> None:
    with FakeModel() as model:
        env = server_env(model.base_url, root.parent / "state")
        if "startup" in parts:
            bench_startup(root, env)
        if "turn" in parts or "didChange" in parts:
            editor = await start_editor(root, env)
            try:
                if "turn" in parts:
                    await bench_turn(editor, model, root)
                if "didChange" in parts:
                    await bench_did_change(editor, root)
            finally:
                await editor.client.shutdown_session()
                await editor.client.stop()
        if "memory" in parts:  # its own server, so the other measurements leave nothing in its RSS
            await bench_memory(root, env, model, turns, window)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=1000, help="turns for the memory measurement")
    parser.add_argument("--context-window", type=int, default=CONTEXT_WINDOW,
                        help="the server's contextWindow setting for the memory measurement (tokens)")
    parser.add_argument("--only", nargs="+", choices=PARTS, default=PARTS, help="run only these measurements")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="handrail-bench-") as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        asyncio.run(bench_live(root.resolve(), options.turns, options.context_window, tuple(options.only)))


if __name__ == "__main__":
    main()
