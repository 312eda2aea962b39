"""A raw LSP client for hostile-input tests: hand-framed bytes to `handrail lsp`, parsed frames back.

pytest-lsp cannot send garbage, so these tests talk to the server process
directly. Requests the server sends are answered with plain defaults (the first
action of a prompt, empty settings) so a turn can run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from tests.e2e.editor import handrail_command

WAIT = 60.0  # generous: only a broken server ever makes a test wait this long


class RawClient:
    """`handrail lsp` in a subprocess, with every message it sent kept in order."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.messages: list[dict[str, Any]] = []
        self._arrived = asyncio.Condition()
        self._next_id = 0
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, env: dict[str, str], cwd: Path) -> RawClient:
        """Launch the server."""
        process = await asyncio.create_subprocess_exec(
            *handrail_command(),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            limit=1 << 20,
        )
        return cls(process)

    def send_body(self, body: bytes) -> None:
        """Frame `body` with a Content-Length header and send it, whatever it holds."""
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def send_raw(self, data: bytes) -> None:
        """Send bytes exactly as given (no framing)."""
        assert self.process.stdin is not None
        self.process.stdin.write(data)

    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification."""
        self.send_body(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode())

    def send_request(self, method: str, params: Any = None) -> int:
        """Send a request and return its id."""
        self._next_id += 1
        self.send_body(json.dumps({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params}).encode())
        return self._next_id

    async def request(self, method: str, params: Any = None) -> dict[str, Any]:
        """Send a request and wait for its response message (result or error)."""
        msg_id = self.send_request(method, params)
        return await self.wait_for(lambda m: m.get("id") == msg_id and "method" not in m)

    async def wait_for(self, predicate: Any) -> dict[str, Any]:
        """The first message (already received or still to come) matching `predicate` (within WAIT seconds)."""
        async with asyncio.timeout(WAIT), self._arrived:
            while True:
                for message in self.messages:
                    if predicate(message):
                        return message
                if self._reader.done():
                    raise EOFError("the server closed its output")
                await self._arrived.wait()

    async def initialize(self, root: Path, **options: Any) -> None:
        """The LSP handshake."""
        response = await self.request(
            "initialize",
            {"processId": None, "rootUri": root.as_uri(), "capabilities": {}, "initializationOptions": options},
        )
        assert "result" in response, response
        self.notify("initialized", {})

    async def close_input(self) -> int:
        """Close the server's stdin (the editor vanished) and wait for it to exit."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        return await asyncio.wait_for(self.process.wait(), WAIT)

    async def stop(self) -> None:
        """Make sure the process is gone."""
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        self._reader.cancel()
        with contextlib.suppress(BaseException):
            await self._reader

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                length = 0
                while (line := await stdout.readline()) not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                if not line:
                    return
                message = json.loads(await stdout.readexactly(length))
                self._answer(message)
                async with self._arrived:
                    self.messages.append(message)
                    self._arrived.notify_all()
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            async with self._arrived:
                self._arrived.notify_all()

    def _answer(self, message: dict[str, Any]) -> None:
        if "id" not in message or "method" not in message:
            return
        result: Any = None
        if message["method"] == "workspace/configuration":
            result = [None for _ in message["params"]["items"]]
        elif message["method"] == "window/showMessageRequest":
            actions = message["params"].get("actions") or []  # approve: Deny comes first, Allow once next
            result = next((a for a in actions if a.get("title") == "Allow once"), actions[0] if actions else None)
        self.send_body(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode())
