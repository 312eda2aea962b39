"""Hostile and broken clients, driven through raw JSON-RPC bytes: the server answers errors and carries on,
or, when the client vanishes, exits cleanly and leaves no process behind."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from tests.e2e.editor import server_env
from tests.faults.raw_lsp import RawClient

SERVER_NOT_INITIALIZED, PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = (
    -32002, -32700, -32600, -32601, -32602)


@pytest.fixture
def env(tmp_path: Path, model: FakeModel) -> dict[str, str]:
    return server_env(model.base_url, tmp_path / "state")


@pytest_asyncio.fixture
async def raw(env: dict[str, str], workspace: Path) -> AsyncIterator[RawClient]:
    client = await RawClient.start(env, workspace)
    yield client
    await client.stop()


async def _still_serving(raw: RawClient) -> None:
    response = await raw.request("workspace/executeCommand", {"command": "handrail.permissions", "arguments": [{}]})
    assert "mode" in response["result"]


def _error_code(message: dict[str, Any]) -> int:
    return int(message["error"]["code"])


async def test_requests_before_initialize_are_refused_and_notifications_dropped(
    raw: RawClient, workspace: Path
) -> None:
    early = await raw.request("workspace/executeCommand", {"command": "handrail.permissions", "arguments": [{}]})
    assert _error_code(early) == SERVER_NOT_INITIALIZED
    raw.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///x.txt", "languageId": "plaintext",
                                                          "version": 1, "text": "x"}})
    await raw.initialize(workspace)
    await _still_serving(raw)
    assert not any(m.get("method") == "window/showMessage" for m in raw.messages)


async def test_garbage_is_answered_and_the_server_carries_on(raw: RawClient, workspace: Path) -> None:
    await raw.initialize(workspace)
    raw.send_body(b"{not json")
    raw.send_body(b"\xff\xfe not even text")
    parse_errors = [await raw.wait_for(lambda m: m.get("error", {}).get("code") == PARSE_ERROR)]
    raw.send_body(b"[1, 2, 3]")
    not_rpc = await raw.wait_for(lambda m: m.get("error", {}).get("code") == INVALID_REQUEST)
    assert not_rpc["id"] is None and parse_errors[0]["id"] is None
    raw.send_body(b'{"jsonrpc": "2.0", "id": 4242, "result": "an answer to nothing"}')
    raw.send_raw(b"Content-Type: nonsense\r\nX-Junk: " + b"j" * 20000 + b"\r\n\r\n")  # a header block, no length
    await _still_serving(raw)
    assert not any(m.get("method") == "window/showMessage" for m in raw.messages)  # no pop-ups for garbage


async def test_unknown_methods_and_bad_params(raw: RawClient, workspace: Path) -> None:
    await raw.initialize(workspace)
    unknown = await raw.request("handrail/noSuchThing", {"a": 1})
    assert _error_code(unknown) == METHOD_NOT_FOUND
    raw.notify("handrail/noSuchNotification", {"a": 1})
    raw.notify("$/setTrace", {"value": "verbose"})
    bad = await raw.request("textDocument/hover", {"position": "nowhere"})
    assert _error_code(bad) == INVALID_PARAMS
    bad_ask = await raw.request("workspace/executeCommand", {"command": "handrail.ask", "arguments": [{"prompt": 7}]})
    assert _error_code(bad_ask) == INVALID_PARAMS
    await _still_serving(raw)


async def test_a_50_mb_document_is_taken(raw: RawClient, workspace: Path) -> None:
    await raw.initialize(workspace)
    text = ("x" * 79 + "\n") * (50 * 1024 * 1024 // 80)
    raw.notify("textDocument/didOpen", {"textDocument": {"uri": (workspace / "huge.txt").as_uri(),
                                                          "languageId": "plaintext", "version": 1, "text": text}})
    await _still_serving(raw)
    assert not any(m.get("method") == "window/showMessage" for m in raw.messages)


async def test_a_message_over_the_limit_is_refused(env: dict[str, str], workspace: Path) -> None:
    raw = await RawClient.start({**env, "HANDRAIL_MAX_MESSAGE_BYTES": "100000"}, workspace)
    try:
        await raw.initialize(workspace)
        raw.notify("textDocument/didOpen", {"textDocument": {"uri": (workspace / "big.txt").as_uri(),
                                                              "languageId": "plaintext", "version": 1,
                                                              "text": "y" * 200_000}})
        told = await raw.wait_for(lambda m: m.get("method") == "window/showMessage")
        assert "textDocument/didOpen" in told["params"]["message"] and "limit" in told["params"]["message"]
        refused = await raw.request("workspace/executeCommand",
                                    {"command": "handrail.ask", "arguments": [{"prompt": "z" * 200_000}]})
        assert _error_code(refused) == INVALID_REQUEST and "limit" in refused["error"]["message"]
        await _still_serving(raw)
    finally:
        await raw.stop()


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended; only its exit status is left


def _marked_processes(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes() and _alive(int(entry.name)):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


async def test_a_client_vanishing_mid_turn_leaves_nothing_running(
    raw: RawClient, model: FakeModel, workspace: Path
) -> None:
    marker = f"handrail-vanish-{os.getpid()}"
    command = f"(exec -a {marker} sleep 300) & echo started $$ $!; wait"
    model.add(Reply.of(ToolUse("Bash", {"command": command})), Reply.of(Text("never reached")))
    await raw.initialize(workspace)
    raw.send_request("workspace/executeCommand", {"command": "handrail.ask", "arguments": [{"prompt": "run"}]})
    # the command's first line comes back as tool progress once the prompt was answered and it runs
    progress = await raw.wait_for(
        lambda m: m.get("method") == "handrail/chat" and m["params"].get("kind") == "toolProgress")
    pids = [int(word) for word in progress["params"]["message"].split()[1:]]
    assert all(_alive(pid) for pid in pids)
    assert _marked_processes(marker)

    code = await raw.close_input()  # the editor is gone
    assert code == 0
    assert not [pid for pid in pids if _alive(pid)]
    assert _marked_processes(marker) == []
    assert len(model.requests) == 1  # the turn did not go on after the client left


async def test_a_client_vanishing_during_a_search_leaves_no_ripgrep(
    raw: RawClient, model: FakeModel, workspace: Path
) -> None:
    fifo = workspace / f"handrail-fifo-{os.getpid()}"
    os.mkfifo(fifo)  # ripgrep blocks reading it until a writer comes: a search that never ends
    model.add(Reply.of(ToolUse("Grep", {"pattern": "needle", "path": str(fifo)})), Reply.of(Text("never reached")))
    await raw.initialize(workspace)
    raw.send_request("workspace/executeCommand", {"command": "handrail.ask", "arguments": [{"prompt": "search"}]})
    await raw.wait_for(lambda m: m.get("method") == "handrail/chat" and m["params"].get("kind") == "toolStart")
    for _ in range(2000):  # the tool started; ripgrep shows up in the process table moments later
        if _marked_processes(fifo.name):
            break
        await asyncio.sleep(0.01)
    assert _marked_processes(fifo.name)

    assert await raw.close_input() == 0
    assert _marked_processes(fifo.name) == []
    assert len(model.requests) == 1


async def test_exit_without_shutdown_ends_the_process(raw: RawClient, workspace: Path) -> None:
    await raw.initialize(workspace)
    raw.notify("exit")
    assert await asyncio.wait_for(raw.process.wait(), 30) is not None
    assert json.dumps(raw.messages)  # nothing odd was sent before it went
