"""The warm start of test servers (tests/warm_server.py) gives the tests the real `handrail lsp`: a process of its
own with the launcher's pipes, environment and folder, ending as a cold one would and never outliving its
launcher; without a zygote the launcher runs the real command and says so."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.editor import handrail_command
from tests.e2e.mcp_support import children
from tests.warm_server import WARM_START

pytestmark = pytest.mark.skipif(os.environ.get("HANDRAIL_TEST_COLD", "") not in ("", "0"), reason="warm start off")


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


INITIALIZE = _frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"processId": None, "rootUri": None, "capabilities": {}}})


def _server_in(folder: Path) -> int:
    """The zygote's child working in `folder`."""
    assert WARM_START.process is not None
    (pid,) = [pid for pid in children(WARM_START.process.pid) if Path(f"/proc/{pid}/cwd").resolve() == folder]
    return pid


@pytest.fixture
def launched(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A warm `handrail lsp` that answered `initialize`: its launcher and the server's pid (the zygote's child
    in `tmp_path`, the folder the launcher ran in)."""
    command = handrail_command()
    assert command != handrail_command(warm=False), "the warm start is not on"
    launcher = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                cwd=tmp_path)
    assert launcher.stdin is not None and launcher.stdout is not None
    launcher.stdin.write(INITIALIZE)
    launcher.stdin.flush()
    assert launcher.stdout.readline().startswith(b"Content-Length")
    yield launcher, _server_in(tmp_path.resolve())
    if launcher.poll() is None:
        launcher.kill()
        launcher.wait()


def _ends(server: int) -> bool:
    """Whether process `server` ends within 30 s (waiting on its pidfd, readable once it has ended)."""
    try:
        pidfd = os.pidfd_open(server)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([pidfd], [], [], 30)[0])
    finally:
        os.close(pidfd)


def _link(pid: int, fd: int) -> str:
    return os.readlink(f"/proc/{pid}/fd/{fd}")


def test_the_server_is_its_own_process_on_the_launchers_pipes(
    launched: tuple[subprocess.Popen[bytes], int], tmp_path: Path
) -> None:
    launcher, server = launched
    assert server != launcher.pid
    # the pipes the test holds lead to the server; the launcher let go of them (or the test would never see EOF)
    assert launcher.stdin is not None and launcher.stdout is not None
    ours = [f"pipe:[{os.fstat(stream.fileno()).st_ino}]" for stream in (launcher.stdin, launcher.stdout)]
    assert _link(server, 0) == ours[0]
    assert ours[1] in {_link(server, int(fd)) for fd in os.listdir(f"/proc/{server}/fd")}  # (a dup of its fd 1)
    assert [_link(launcher.pid, fd) for fd in (0, 1, 2)] == [os.devnull] * 3


def test_a_signal_to_the_launcher_ends_the_server_and_the_launcher_dies_of_it(
    launched: tuple[subprocess.Popen[bytes], int],
) -> None:
    launcher, server = launched
    launcher.send_signal(signal.SIGTERM)
    assert launcher.wait(timeout=30) == -signal.SIGTERM
    assert _ends(server)


def test_the_launcher_exits_with_the_servers_code(launched: tuple[subprocess.Popen[bytes], int]) -> None:
    launcher, server = launched
    assert launcher.stdin is not None and launcher.stdout is not None
    launcher.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))  # without shutdown: 1
    launcher.stdin.flush()
    assert launcher.wait(timeout=30) == 1
    launcher.stdout.read()  # returns: the output ended with the server
    assert _ends(server)


def test_a_killed_launcher_takes_its_server_along(launched: tuple[subprocess.Popen[bytes], int]) -> None:
    launcher, server = launched
    launcher.kill()
    launcher.wait()
    assert launcher.stdout is not None
    launcher.stdout.read()  # returns: the zygote killed the server, the only other holder of the pipe
    assert _ends(server)


def test_without_a_zygote_the_launcher_runs_the_real_command_and_notes_it(tmp_path: Path) -> None:
    command = handrail_command()
    socket_at = command.index("launch") + 1
    command[socket_at] = str(tmp_path / "socket")  # nothing listens there
    launcher = subprocess.run(command, input=b"", capture_output=True, timeout=60, check=False)
    assert launcher.returncode == 0  # the real server, its input closed at once
    (note,) = (tmp_path / "fallbacks.log").read_text().splitlines()
    assert "ran the real command (FileNotFoundError" in note
