"""Benchmark: from the `exit` notification to the end of the process (not part of the test suite).

Run: .venv/bin/python -m tests.bench.bench_exit [--runs 9]

Editors wait briefly for a server to exit after `exit` and then kill it (Eglot: about 0.1 s, then
"exited with status 9"). Each run starts `handrail lsp`, initializes it, answers `shutdown`, and times
`exit` to the process's end, in two shapes: right after start (the warm-up still importing the model SDK
in a thread) and after one turn against the fake model (the agent, its watcher and model client up);
`jedi-language-server` is timed the same way, alternately. Target: under 50 ms (median).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from handrail.fake_model import FakeModel, Reply, Text
from tests.bench.report import row
from tests.e2e.editor import handrail_command, server_env

TARGET_SECONDS = 0.050


def _send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stdin.flush()


def _read(stdout: IO[bytes]) -> dict[str, Any]:
    length = 0
    while (line := stdout.readline().strip()) != b"":
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    message: dict[str, Any] = json.loads(stdout.read(length))
    return message


def _request(proc: subprocess.Popen[bytes], msg_id: int, method: str, params: Any) -> dict[str, Any]:
    """Send a request and read until its answer, answering the server's own requests with null (nulls)."""
    assert proc.stdin is not None and proc.stdout is not None
    _send(proc.stdin, {"id": msg_id, "method": method, "params": params})
    while True:
        message = _read(proc.stdout)
        if message.get("id") == msg_id and "method" not in message:
            return message
        if "method" in message and "id" in message:  # e.g. workDoneProgress/create, configuration
            items = message.get("params", {}).get("items")
            _send(proc.stdin, {"id": message["id"], "result": [None] * len(items) if items else None})


def time_exit(command: list[str], root: Path, env: dict[str, str], *, turn: bool) -> float:
    """Start the server, initialize it (and run a turn), shut it down; seconds from `exit` to its end."""
    proc = subprocess.Popen(command, cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        caps = {"window": {"workDoneProgress": True}, "workspace": {"applyEdit": True, "configuration": True}}
        _request(proc, 1, "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": caps,
                                         "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}]})
        assert proc.stdin is not None
        _send(proc.stdin, {"method": "initialized", "params": {}})
        if turn:
            answer = _request(proc, 2, "workspace/executeCommand",
                              {"command": "handrail.ask", "arguments": [{"prompt": "hello"}]})
            assert "result" in answer, answer
        _request(proc, 3, "shutdown", None)
        started = time.perf_counter()
        _send(proc.stdin, {"method": "exit"})
        proc.wait(timeout=10)
        return time.perf_counter() - started
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def main() -> None:
    """Time handrail's exit against jedi-language-server's, alternately; print the medians."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    jedi = Path(sys.executable).parent / "jedi-language-server"
    samples: dict[str, list[float]] = {"at start": [], "after a turn": [], "jedi": []}
    with tempfile.TemporaryDirectory() as tmp, FakeModel() as model:
        root = Path(tmp) / "ws"
        root.mkdir()
        (root / "app.py").write_text("print('hi')\n")
        env = server_env(model.base_url, Path(tmp) / "state")
        for _ in range(args.runs):
            samples["at start"].append(time_exit(handrail_command(), root, env, turn=False))
            model.add(Reply.of(Text("hi")))
            samples["after a turn"].append(time_exit(handrail_command(), root, env, turn=True))
            if jedi.exists():
                samples["jedi"].append(time_exit([str(jedi)], root, env, turn=False))
    reference, theirs = "-", None
    if samples["jedi"]:
        theirs = statistics.median(samples["jedi"])
        reference = f"jedi-language-server {theirs * 1000:.1f} ms"
        print(f"exit: jedi-language-server median {theirs * 1000:.1f} ms")
    for shape in ("at start", "after a turn"):
        ours = statistics.median(samples[shape])
        shown = ", ".join(f"{s * 1000:.0f}" for s in samples[shape])
        print(f"exit {shape}: handrail median {ours * 1000:.1f} ms (runs: {shown} ms)")
        row(f"exit to process end, {shape}", f"{ours * 1000:.1f} ms", reference,
            ours / theirs if theirs else None, target="< 50 ms", ok=ours < TARGET_SECONDS)


if __name__ == "__main__":
    main()
