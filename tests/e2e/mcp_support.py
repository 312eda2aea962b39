"""What the MCP end-to-end tests share: server definitions, settings files, status polling, a free port."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.e2e.editor import Editor

FIXTURE = Path(__file__).with_name("mcp_fixture_server.py")
TIME_SERVER = {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}
DEADLINE = 60.0


def fixture_server(*args: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FIXTURE), *args]}


def user_settings(workspace: Path, settings: dict[str, Any]) -> None:
    path = workspace.parent / "state" / "xdg-config" / "handrail" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))


def mcp_json(workspace: Path, servers: dict[str, Any]) -> None:
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


async def command(editor: Editor, name: str, argument: dict[str, Any] | None = None) -> Any:
    return await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=[argument or {}])
    )


async def server_status(editor: Editor, name: str) -> dict[str, Any]:
    status = await command(editor, "handrail.mcpStatus")
    found = [s for s in status["servers"] if s["name"] == name]
    assert found, f"{name} not in {status}"
    entry: dict[str, Any] = found[0]
    return entry


async def until(condition: Callable[[], bool], failure: str) -> None:
    """Wait until `condition` holds (what it watches happens in other processes)."""
    end = asyncio.get_running_loop().time() + DEADLINE
    while not condition():
        assert asyncio.get_running_loop().time() < end, failure
        await asyncio.sleep(0.05)


async def wait_state(editor: Editor, name: str, state: str) -> dict[str, Any]:
    """Poll handrail.mcpStatus until the server reaches `state` (servers connect in the background)."""
    end = asyncio.get_running_loop().time() + DEADLINE
    while (entry := await server_status(editor, name))["state"] != state:
        assert asyncio.get_running_loop().time() < end, f"{name} never became {state}: {entry}"
        await asyncio.sleep(0.1)
    return entry


def read_text(path: Path) -> str:
    """The file's text ('' while it does not exist)."""
    return path.read_text() if path.exists() else ""


def tool_names(request: dict[str, Any]) -> list[str]:
    """The names of the tools a model request offers."""
    return [t["name"] for t in request.get("tools", [])]


def free_port() -> int:
    """A port free on 127.0.0.1 just now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def listening(argv: list[str], port: int) -> Iterator[subprocess.Popen[bytes]]:
    """Run a server process until the block ends, entering once it accepts connections on 127.0.0.1:`port`."""
    process = subprocess.Popen(argv, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        end = time.monotonic() + DEADLINE
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                assert process.poll() is None, f"{argv} died"
                assert time.monotonic() < end, f"{argv} never listened"
                time.sleep(0.05)
        yield process
    finally:
        process.terminate()
        process.wait(10)


def children(pid: int) -> set[int]:
    """The live processes whose parent is `pid`."""
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
