"""The model SDK is imported in the background once the client said `initialized`, so the first prompt does
not wait for it; `initialize` itself is answered before (see test_startup_imports for what it loads)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

import pytest

from tests.e2e.editor import handrail_command


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read_message(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


@pytest.mark.cold_server("the SDK import of a cold process's warm-up is what it tests")
def test_the_sdk_is_loaded_after_initialized_without_a_prompt(tmp_path: Path) -> None:
    env = {**os.environ, "HANDRAIL_LOG_LEVEL": "INFO", "HANDRAIL_STATE_DIR": str(tmp_path / "state"),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    proc = subprocess.Popen(handrail_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, cwd=tmp_path)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    lines: queue.Queue[str] = queue.Queue()
    stderr = proc.stderr
    threading.Thread(target=lambda: [lines.put(line.decode()) for line in stderr], daemon=True).start()
    try:
        params = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
        proc.stdin.flush()
        while _read_message(proc.stdout).get("id") != 1:
            pass
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        proc.stdin.flush()
        while "model SDK loaded" not in (line := lines.get(timeout=60)):
            assert "Traceback" not in line, line
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
