"""What the server remembers per request or turn is forgotten when it ends, so a long session stays flat.

pygls files the task of a command (run on behalf of its `workspace/executeCommand` generator) under a
made-up id it never removes, and keeps every work-done progress token's future; each held a turn and
its result for the server's life. These count entries, in-process, after many requests.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from lsprotocol import types

from handrail.lsp.app import HandrailServer, create_server
from handrail.lsp.chat import end_progress

REQUESTS = 20


class _Answers:
    """The server's output: counts the answers to requests and wakes a waiter when enough arrived."""

    def __init__(self) -> None:
        self.answers: list[dict[str, Any]] = []
        self.wanted = 0
        self.arrived = asyncio.Event()

    def write(self, data: bytes) -> None:
        body = json.loads(data.split(b"\r\n\r\n", 1)[1])
        if "id" in body and "method" not in body:
            self.answers.append(body)
            if len(self.answers) >= self.wanted:
                self.arrived.set()

    def close(self) -> None:
        return None


def _send(server: HandrailServer, message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message})
    server.protocol.handle_message(json.loads(body, object_hook=server.protocol.structure_message))


async def _initialized_server() -> tuple[HandrailServer, _Answers]:
    server = create_server()
    answers = _Answers()
    server.protocol.set_writer(answers)
    answers.wanted = 1
    capabilities = {"window": {"workDoneProgress": True}}
    _send(server, {"id": 0, "method": "initialize",
                   "params": {"processId": None, "rootUri": "file:///ws", "capabilities": capabilities}})
    await answers.arrived.wait()
    return server, answers


async def test_finished_commands_leave_no_task_behind() -> None:
    server, answers = await _initialized_server()

    @server.command("test.turn")
    async def turn(ls: HandrailServer, *args: Any) -> dict[str, str]:  # async: pygls runs it as a task
        return {"text": "a result the server should not keep"}

    answers.arrived.clear()
    answers.wanted = 1 + REQUESTS
    for n in range(REQUESTS):
        _send(server, {"id": n + 1, "method": "workspace/executeCommand", "params": {"command": "test.turn"}})
    await answers.arrived.wait()
    assert all(a.get("result") == {"text": "a result the server should not keep"} for a in answers.answers[1:])
    assert server.protocol._request_futures == {}


async def test_an_ended_progress_token_is_forgotten() -> None:
    server, _ = await _initialized_server()
    tokens = [f"handrail-test-{n}" for n in range(REQUESTS)]
    for token in tokens:
        server.work_done_progress.begin(token, types.WorkDoneProgressBegin(title="handrail"))
        end_progress(server, token, "end_turn")
    assert server.work_done_progress.tokens == {}
    # a cancel from the client for an ended token is ignored
    _send(server, {"method": "window/workDoneProgress/cancel", "params": {"token": tokens[0]}})
