"""Test servers started from a warm process: the real `handrail lsp`, without its seconds of imports.

Why: hundreds of tests start `handrail lsp`, and each spent about 3 s importing before its first turn
could run: lsprotocol and pygls at start, then the model SDK (anthropic, aiohttp) in the warm-up after
`initialized`. Those are third-party modules, the same in every server.

How: one process per pytest session (the zygote, `serve`) imports them once, never handrail's own
modules (they may read the environment at import), and listens on a unix socket. The command a test
runs for a server is a small launcher (`launch`, `python -I -S`, standard library only) that hands its
stdin, stdout and stderr over that socket (SCM_RIGHTS) with its argv, environment, folder and umask.
The zygote forks; the child makes those its fds 0/1/2, takes the environment, folder and umask, resets
its signal handlers and runs the `handrail` console script's entry point: the test talks to the real
`handrail lsp` over its own pipes, no byte passes through the launcher. The launcher then lets go of
the pipes (so the test sees the server's output end), forwards SIGTERM/SIGINT/SIGHUP to the server and
exits as the server did (a signal's death by the same signal); if the launcher dies, the zygote kills
its server. A launcher that cannot use the zygote runs the real command instead and notes it in
`fallbacks.log`, which the session's summary reports, so a broken zygote only slows the tests.

What differs from a cold start: the server's pid is not the launcher's and its parent is the zygote
(tests that look at the server's own process, its children or /proc are marked `cold_server` and get
the real command); /proc/<pid>/environ and cmdline show what the zygote was started with (os.environ
is the launcher's); variables that act as an interpreter starts (PYTHON*: PYTHONPATH's sitecustomize)
must match the zygote's, or it refuses and the launcher runs the real command; the preloaded modules
are loaded before `initialize`; all servers share the zygote's hash seed.

HANDRAIL_TEST_COLD=1 turns the warm start off; outside pytest (the benchmarks of tests/bench) it is
never on.
"""

from __future__ import annotations

# Only what the launcher needs is imported here (it starts for every server, so it starts quickly);
# the zygote and the pytest side import the rest where they use it.
import contextlib
import marshal
import os
import signal
import socket
import sys
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    import selectors
    import subprocess
    from collections.abc import Iterator
    from importlib.metadata import EntryPoint
    from pathlib import Path

# The third-party modules a server and its first turn import; handrail's own come after the fork.
PRELOAD = (
    "lsprotocol.types",
    "pygls.lsp.server",
    "pygls.workspace",
    "cattrs",
    "pydantic",
    "anthropic",
    "anthropic.types",
    "aiohttp",
    "httpx2",
    "mcp",
    "jsonschema",
    "tree_sitter",
    "tree_sitter_bash",
    "watchdog.observers",
    "markdownify",
    "pypdf",
    "PIL.Image",
)
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
HANDSHAKE_SECONDS = 30.0  # a zygote that takes longer to start a server is treated as gone


# ---- the launcher: the command pytest-lsp runs ------------------------------------------------------


def launch(socket_path: str, argv: list[str]) -> None:
    """Run `argv` (the real `handrail lsp` command) in a child of the zygote, as if this process ran it."""
    ignored = [int(s) for s in signal.valid_signals() if signal.getsignal(s) is signal.SIG_IGN]  # as inherited
    request = marshal.dumps(
        {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd(), "umask": _umask(), "ignored": ignored}
    )
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)  # held until they can be forwarded
    try:
        sock.settimeout(HANDSHAKE_SECONDS)
        sock.connect(socket_path)
        message = len(request).to_bytes(4, "big") + request
        sent = socket.send_fds(sock, [message], [0, 1, 2])
        if sent < len(message):  # (sendall(b"") would still send, and fail once the zygote has answered)
            sock.sendall(message[sent:])
        replies = sock.makefile("rb")
        started = replies.readline()
        if not started.startswith(b"pid "):
            raise OSError(f"the zygote answered {started!r}")
    except OSError as exc:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        _fall_back(socket_path, argv, f"{type(exc).__name__}: {exc}")
    sock.settimeout(None)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the server holds the pipes now; the test must see its end, not ours
        os.dup2(null, fd)
    os.close(null)

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(OSError):  # the zygote is gone: the readline below finds out
            sock.send(bytes([signum]))

    for signum in FORWARDED:
        signal.signal(signum, forward)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one that came meanwhile is forwarded now
    ended = replies.readline()
    if not ended.startswith(b"exit "):  # the zygote is gone; it killed the server on its way out
        _note(socket_path, f"launcher {os.getpid()}: the zygote went away while the server ran ({ended!r})")
        os._exit(1)
    code = int(ended.split()[1])
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def _fall_back(socket_path: str, argv: list[str], why: str) -> NoReturn:
    _note(socket_path, f"launcher {os.getpid()}: ran the real command ({why})")
    os.execv(argv[0], argv)


def _note(socket_path: str, line: str) -> None:
    with contextlib.suppress(OSError), open(os.path.join(os.path.dirname(socket_path), "fallbacks.log"), "a") as log:
        log.write(line + "\n")


# ---- the zygote ----------------------------------------------------------------------------------------


class _Server:
    def __init__(self, pid: int, conn: socket.socket) -> None:
        self.pid = pid
        self.pidfd = os.pidfd_open(pid)  # readable once it ended; signals it and nothing else
        self.conn: socket.socket | None = conn  # to its launcher

    def signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):  # ended, not yet reaped
            signal.pidfd_send_signal(self.pidfd, signum)


class _Request:
    def __init__(self, fields: dict[str, Any], fds: list[int]) -> None:
        self.argv: list[str] = fields["argv"]
        self.env: dict[str, str] = fields["env"]
        self.cwd: str = fields["cwd"]
        self.umask: int = fields["umask"]
        self.ignored: set[int] = set(fields["ignored"])  # signals the launcher's parent ignores (exec keeps them so)
        self.fds = fds  # the launcher's stdin, stdout, stderr


class _Zygote:
    def __init__(self, listener: socket.socket, control: int) -> None:
        import selectors

        self.listener = listener
        self.control = control  # pytest's end of this pipe closes when the session ends (or pytest dies)
        self.selector: selectors.BaseSelector = selectors.DefaultSelector()
        self.servers: dict[int, _Server] = {}  # by pid

    def serve(self) -> _Request:
        """Start servers until the session ends; returns only in a forked child, with its request."""
        self._watch(self.listener)
        self._watch(self.control)
        while True:
            for key, _ in self.selector.select():
                if key.fileobj is self.listener:
                    request = self._start_server()
                    if request is not None:
                        return request
                elif key.fileobj == self.control:
                    if not os.read(self.control, 512):
                        self._end()
                elif isinstance(key.data, _Server) and key.data.pid in self.servers:  # not ended in this batch
                    if key.fileobj is key.data.conn:
                        self._from_launcher(key.data)
                    else:
                        self._ended(key.data)

    def _start_server(self) -> _Request | None:
        conn, _ = self.listener.accept()
        try:
            request = _receive(conn)
        except (OSError, ValueError) as exc:
            print(f"zygote: a bad request: {exc!r}", file=sys.stderr, flush=True)
            conn.close()
            return None
        if differ := _startup_variables(request.env) ^ _startup_variables(dict(os.environ)):
            # PYTHONPATH (a sitecustomize, say) and the like act as an interpreter starts: this one has started
            conn.sendall(b"refused: the interpreter's start-up variables differ: %s\n" % repr(differ).encode())
            conn.close()
            for fd in request.fds:
                os.close(fd)
            return None
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            self._leave(conn)
            return request
        for fd in request.fds:  # only the server holds the pipes now
            os.close(fd)
        try:
            server = _Server(pid, conn)
            conn.sendall(b"pid %d\n" % pid)
        except OSError as exc:  # the launcher is gone, say: so goes its server
            print(f"zygote: server {pid} not started: {exc!r}", file=sys.stderr, flush=True)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            conn.close()
            return None
        self.servers[pid] = server
        self._watch(conn, server)
        self._watch(server.pidfd, server)
        return None

    def _watch(self, source: socket.socket | int, server: _Server | None = None) -> None:
        from selectors import EVENT_READ

        self.selector.register(source, EVENT_READ, server)

    def _from_launcher(self, server: _Server) -> None:
        assert server.conn is not None
        try:
            signals = server.conn.recv(64)
        except OSError:
            signals = b""
        if not signals:  # the launcher is gone (killed, say): so is its server
            self.selector.unregister(server.conn)
            server.conn.close()
            server.conn = None
            signals = bytes([signal.SIGKILL])
        for signum in signals:
            server.signal(signum)

    def _ended(self, server: _Server) -> None:
        _, status = os.waitpid(server.pid, 0)
        self.selector.unregister(server.pidfd)
        os.close(server.pidfd)
        del self.servers[server.pid]
        if server.conn is not None:
            with contextlib.suppress(OSError):  # the launcher is gone as well
                server.conn.sendall(b"exit %d\n" % os.waitstatus_to_exitcode(status))
            self.selector.unregister(server.conn)
            server.conn.close()

    def _end(self) -> None:
        for server in self.servers.values():
            server.signal(signal.SIGKILL)
        for server in list(self.servers.values()):
            os.waitpid(server.pid, 0)
        sys.exit(0)

    def _leave(self, conn: socket.socket) -> None:
        """In the child: let go of everything that is the zygote's."""
        self.selector.close()
        self.listener.close()
        conn.close()
        for server in self.servers.values():
            os.close(server.pidfd)
            if server.conn is not None:
                server.conn.close()


def _startup_variables(env: dict[str, str]) -> set[tuple[str, str]]:
    return {(name, value) for name, value in env.items() if name.startswith("PYTHON")}


def _receive(conn: socket.socket) -> _Request:
    conn.settimeout(HANDSHAKE_SECONDS)
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise ValueError(f"{len(fds)} file descriptors instead of 3")
    while len(data) < 4 or len(data) < 4 + int.from_bytes(data[:4], "big"):
        more = conn.recv(1 << 16)
        if not more:
            raise ValueError("the request ended early")
        data += more
    conn.settimeout(None)
    return _Request(marshal.loads(data[4:]), fds)


def _become_server(request: _Request, script: EntryPoint) -> None:
    """In the child: take the launcher's pipes, environment, folder and umask, and run `handrail`."""
    for target, fd in enumerate(request.fds):
        os.dup2(fd, target)
    for fd in request.fds:
        os.close(fd)
    os.environ.clear()
    os.environ.update(request.env)
    os.chdir(request.cwd)
    os.umask(request.umask)
    for signum in signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP}:  # as exec and a fresh Python leave them
        with contextlib.suppress(OSError, ValueError):  # those Python may not set
            signal.signal(signum, signal.SIG_IGN if signum in request.ignored else signal.SIG_DFL)
    if signal.SIGINT not in request.ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    import random

    random.seed()
    sys.argv = request.argv
    sys.exit(script.load()())


def _zygote_main(socket_path: str, script_dir: str) -> None:
    sys.path[0] = script_dir  # as for the console script: its own folder, not tests/
    import importlib
    import threading

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            print(f"zygote: not preloaded: {exc}", file=sys.stderr, flush=True)
    os.close(os.pidfd_open(os.getpid()))  # (Linux 5.3) how the zygote learns that a server ended
    import anthropic

    anthropic.DefaultAioHttpClient  # noqa: B018  (the SDK's aiohttp transport, imported on first use)
    threads = len(os.listdir("/proc/self/task"))  # native threads too, not only Python's
    if threading.active_count() != 1 or threads != 1:  # a fork would copy a thread's state without the thread
        sys.exit(f"zygote: {threads} threads after the imports; not forking")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(64)
    zygote = _Zygote(listener, control=0)
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="handrail")  # what the `handrail` script runs
    os.write(1, b"ready\n")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    _become_server(zygote.serve(), script)


# ---- the pytest side -----------------------------------------------------------------------------------


class WarmStart:
    """The session's zygote, started on the first server start; `command` is what a test runs."""

    def __init__(self) -> None:
        self.enabled = False  # set by the session fixture (tests/conftest.py)
        self.environment: dict[str, str] | None = None  # the zygote's (None: this process's at its start)
        self.cold_reason: str | None = None  # the running test's `cold_server` reason
        self.folder: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.failure: str | None = None
        self.ready_after: float | None = None  # seconds from starting the zygote to its socket listening
        self.warm = 0
        self.cold = 0
        self.on_paths = 0  # tests given a warm `handrail` on PATH
        self.fallbacks: list[str] = []
        self.said: list[str] = []  # what the zygote wrote to its stderr (a module it could not preload, say)

    def command(self, real: list[str], *, warm: bool = True) -> list[str]:
        """`real` (the `handrail lsp` command), through the launcher when the warm start is on (and `warm`)."""
        launcher = self._launcher(real) if warm else None
        if self.enabled:
            self.warm += launcher is not None
            self.cold += launcher is None
        return launcher or real

    def _launcher(self, real: list[str]) -> list[str] | None:
        if not self.enabled or self.cold_reason is not None:
            return None
        if self.process is None and self.failure is None:
            self._start(os.path.dirname(real[0]))
        if self.failure is not None or self.folder is None:
            return None
        return [sys.executable, "-I", "-S", __file__, "launch", str(self.folder / "socket"), *real]

    def on_path(self, real: str) -> str | None:
        """A folder whose `handrail` runs `real` (the console script) through the launcher, for a test whose
        editor finds `handrail` on PATH (Neovim's); None when the warm start is off."""
        import shlex

        command = self._launcher([real])
        if command is None:
            return None
        assert self.folder is not None
        self.on_paths += 1
        script = self.folder / "bin" / "handrail"
        if not script.exists():
            script.parent.mkdir()
            script.write_text(f'#!/bin/sh\nexec {shlex.join(command)} "$@"\n')
            script.chmod(0o755)
        return str(script.parent)

    @contextlib.contextmanager
    def cold_for(self, reason: str | None) -> Iterator[None]:
        """Servers started meanwhile get the real command when `reason` is given (a test's `cold_server`)."""
        self.cold_reason = reason
        try:
            yield
        finally:
            self.cold_reason = None

    def _start(self, script_dir: str) -> None:
        import subprocess
        import tempfile
        import time
        from pathlib import Path

        folder = Path(tempfile.mkdtemp(prefix="handrail-warm-"))
        with open(folder / "zygote.log", "wb") as log:  # the zygote's stderr, for the summary
            self.process = subprocess.Popen(
                [sys.executable, __file__, "serve", str(folder / "socket"), script_dir],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, cwd=folder, env=self.environment,
                start_new_session=True,  # a Ctrl-C reaches the launchers, which pass it on, not the zygote
            )
        assert self.process.stdout is not None
        started = time.perf_counter()
        ready = self.process.stdout.readline()  # written once the socket listens: no polling
        self.process.stdout.close()
        self.ready_after = time.perf_counter() - started
        self.folder = folder
        if ready != b"ready\n":
            self.failure = f"the zygote did not start: {self._log_tail()}"

    def stop(self) -> None:
        """End the zygote (it kills any server still running) and keep what the summary reports."""
        import shutil
        import subprocess

        if self.process is not None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            if self.process.returncode != 0 and self.failure is None:
                self.failure = f"the zygote ended with {self.process.returncode}: {self._log_tail()}"
        if self.folder is not None:
            if (self.folder / "fallbacks.log").exists():
                self.fallbacks = (self.folder / "fallbacks.log").read_text().splitlines()
            if self.failure is None and (self.folder / "zygote.log").stat().st_size:
                self.said = self._log_tail().splitlines()
            shutil.rmtree(self.folder)
        self.process = self.folder = None

    def summary(self) -> tuple[list[str], bool]:
        """Lines for the session's summary, and whether they report a problem."""
        lines = [
            f"{self.warm} servers started through the launcher, {self.cold} with the real command, "
            f"{self.on_paths} tests with the launcher as `handrail` on PATH (Neovim's)"
        ]
        if self.ready_after is not None:
            lines.append(f"the zygote was ready {self.ready_after:.1f} s after it started")
        if self.failure:
            lines.append(f"THE ZYGOTE FAILED: {self.failure}")
        lines.extend(f"the zygote said: {line}" for line in self.said[-10:])
        if self.fallbacks:
            lines.append(f"{len(self.fallbacks)} launchers FELL BACK to the real command:")
            lines.extend(self.fallbacks[:20])
        return lines, bool(self.failure or self.fallbacks)

    def _log_tail(self) -> str:
        assert self.folder is not None
        return (self.folder / "zygote.log").read_text(errors="replace")[-2000:] or "(no output)"


WARM_START = WarmStart()

if __name__ == "__main__":
    if sys.argv[1] == "launch":
        launch(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "serve":
        _zygote_main(sys.argv[2], sys.argv[3])
