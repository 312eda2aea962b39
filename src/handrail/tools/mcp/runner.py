"""One MCP server's life: connect in the background, list its tools, restart it with backoff when it crashes.

The runner owns the connection in a task of its own (the SDK's context managers
must be entered and left by the same task). Its tools exist only while it is
connected; calls made through a connection that ended fail with an error the
model can read. When the server says its tools changed (tools/list_changed) the
runner lists them again and replaces `tools`; sessions pick the new tuple up at
their next model request. The server's stderr goes to a file whose tail is kept for reports.

A remote server that needs the user to sign in (OAuth) is not restarted: it waits in
"needsSignIn" until a runner made with an interactive `SignIn` connects it. The server's
instructions are kept while it restarts, so the system prompt stays the same meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, Literal, TextIO

from handrail.tools.mcp.config import McpServerConfig
from handrail.tools.mcp.model import (
    McpClientHooks,
    McpConnection,
    McpConnectionLostError,
    McpRequestError,
    McpSignInRequiredError,
    McpToolSpec,
    innermost_error,
)
from handrail.tools.mcp.sign_in_files import SIGN_IN_SECONDS, SignIn
from handrail.tools.mcp.tool_changes import ToolChanges, ToolsChange
from handrail.tools.mcp.tools import callable_directly, mcp_tool
from handrail.tools.protocol import Tool

log = logging.getLogger(__name__)

RunnerState = Literal["starting", "running", "failed", "restarting", "stopped", "needsSignIn"]
RunnerEvent = Literal["running", "failed", "crashed", "stopped", "toolsChanged", "needsSignIn"]
MAX_CONSECUTIVE_CRASHES = 5
STABLE_AFTER_SECONDS = 30.0
MAX_BACKOFF_SECONDS = 30.0
STDERR_TAIL_BYTES = 2_000
MAX_STDERR_BYTES = 1 << 20


async def load_adapter() -> Any:
    """The SDK adapter, imported in a thread: importing the SDK takes most of a second."""
    return await asyncio.to_thread(importlib.import_module, "handrail.tools.mcp.sdk_adapter")


def describe_error(exc: BaseException) -> str:
    """The innermost useful message of an error (task groups wrap what went wrong)."""
    exc = innermost_error(exc)
    if isinstance(exc, TimeoutError):
        return "the server did not answer in time"
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"command not found: {exc.filename}"
    text = str(exc)
    if isinstance(exc, McpConnectionLostError | McpRequestError | McpSignInRequiredError):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class McpServerRunner:
    """Starts, watches and stops one server; `on_event` hears when it runs, fails, crashes or stops."""

    def __init__(
        self,
        config: McpServerConfig,
        *,
        cwd: Path | None,
        on_event: Callable[[McpServerRunner, RunnerEvent], None],
        restart_delay: float = 1.0,
        connect_timeout: float = 30.0,
        hooks: McpClientHooks | None = None,
        sign_in: SignIn | None = None,
        instructions: str | None = None,
    ) -> None:
        self.config = config
        self.state: RunnerState = "starting"
        self.error: str | None = None
        self.restarts = 0
        self.streak = 0  # consecutive crashes (or failed reconnections) since it last ran stably
        self.tools: tuple[Tool[Any], ...] = ()
        self.connection: McpConnection | None = None
        self.last_change: ToolsChange | None = None  # the latest tools/list_changed that was followed
        self.instructions = instructions  # the latest connection's (kept while it restarts)
        self.sign_in_at: str | None = None  # where the user must sign in ("needsSignIn")
        self._hooks = hooks
        self._sign_in = sign_in
        self._cwd = cwd
        self._on_event = on_event
        self._restart_delay = restart_delay
        self._connect_timeout = connect_timeout
        self._stop = asyncio.Event()
        self._settled = asyncio.Event()  # its first connection attempt is over (running, failed, needs sign-in)
        self._task: asyncio.Task[None] | None = None
        self._connected = False
        self._folder = Path(tempfile.mkdtemp(prefix="handrail-mcp-"))
        self._stderr: TextIO = (self._folder / "stderr.log").open("a+", encoding="utf-8", errors="replace")

    @property
    def name(self) -> str:
        """The server's configured name."""
        return self.config.name

    def start(self) -> None:
        """Connect in the background."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"mcp:{self.name}")

    async def stop(self) -> None:
        """Disconnect (a stdio server is asked to exit, then killed) and wait until it is gone."""
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            if not self._connected:  # still starting (or waiting to restart): nothing to close gracefully
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.state = "stopped"
        self._settled.set()
        self._stderr.close()
        shutil.rmtree(self._folder, ignore_errors=True)

    def stderr_tail(self) -> str:
        """The last lines the server wrote to stderr."""
        if self._stderr.closed:
            return ""
        fd = self._stderr.fileno()
        size = os.fstat(fd).st_size
        start = max(0, size - STDERR_TAIL_BYTES)
        tail = os.pread(fd, size - start, start).decode("utf-8", errors="replace")
        if start:
            tail = tail.split("\n", 1)[-1]
        if size > MAX_STDERR_BYTES:  # writes append (O_APPEND), so emptying the file is safe
            os.ftruncate(fd, 0)
        return tail.strip()

    async def settled(self) -> None:
        """Wait until the first connection attempt is over: running, failed, waiting for a sign-in, or stopped."""
        await self._settled.wait()

    def _emit(self, event: RunnerEvent) -> None:
        if event in ("running", "failed", "needsSignIn", "crashed"):
            self._settled.set()
        try:
            self._on_event(self, event)
        except Exception:
            log.exception("MCP event handler failed")

    async def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            connected = await self._session()
            if self._stop.is_set():
                break
            if self.sign_in_at is not None:
                self.state = "needsSignIn"
                self._emit("needsSignIn")
                return
            if not connected and self.restarts == 0 and self.streak == 0:
                self.state = "failed"
                self._emit("failed")
                return
            stable = connected and time.monotonic() - started >= STABLE_AFTER_SECONDS
            self.streak = 1 if stable else self.streak + 1
            if self.streak > MAX_CONSECUTIVE_CRASHES:
                self.state = "failed"
                self.error = f"{self.error or 'it stopped'}; gave up after {MAX_CONSECUTIVE_CRASHES} restarts"
                self._emit("failed")
                return
            self.state = "restarting"
            self._emit("crashed")
            delay = min(MAX_BACKOFF_SECONDS, self._restart_delay * 2 ** (self.streak - 1))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), delay)
            self.restarts += 1
        self.state = "stopped"

    async def _session(self) -> bool:
        """One connection, held until the server ends or we stop; whether it got as far as running."""
        self._connected = False
        sign_in = self._sign_in
        timeout = self._connect_timeout + (SIGN_IN_SECONDS if sign_in is not None and sign_in.interactive else 0)
        try:
            adapter = await load_adapter()
            changes = ToolChanges(settle_timeout=self._connect_timeout)
            async with AsyncExitStack() as stack:
                stack.callback(changes.close)
                async with asyncio.timeout(timeout):
                    connection, closed = await stack.enter_async_context(
                        adapter.connect(
                            self.config, self._stderr, self._cwd, changes.hear, hooks=self._hooks, sign_in=sign_in
                        )
                    )
                    covered = changes.take()  # a change heard while listing is listed again afterwards
                    specs = await connection.list_tools()
                if sign_in is not None and sign_in.interactive:  # signed in: reconnections never open a browser
                    self._sign_in = SignIn(sign_in.file)
                self.connection = connection
                self.instructions = connection.instructions
                self._set_tools(specs, connection, changes)
                changes.listed(covered)
                self.state, self.error, self._connected = "running", None, True
                self._emit("running")
                await self._follow(connection, closed, changes)
                self.tools, self.connection = (), None
                if not self._stop.is_set():
                    self.error = "the server stopped unexpectedly"
        except asyncio.CancelledError:
            if not self._stop.is_set():
                raise
        except Exception as exc:
            self.error = describe_error(exc)
            leaf = innermost_error(exc)
            if isinstance(leaf, McpSignInRequiredError):
                self.sign_in_at = leaf.where
            log.info("MCP server %s: %s", self.name, self.error)
        finally:
            self.tools, self.connection = (), None
        return self._connected

    def _set_tools(self, specs: tuple[McpToolSpec, ...], connection: McpConnection, changes: ToolChanges) -> None:
        # a call's result waits for the listing its call may have caused (see tool_changes.py)
        self.tools = tuple(
            mcp_tool(self.name, spec, connection, settle=changes.settled) for spec in specs if callable_directly(spec)
        )

    async def _follow(self, connection: McpConnection, closed: Any, changes: ToolChanges) -> None:
        """Until we stop or the server ends: list the tools again each time the server says they changed."""
        while True:
            waiters = [
                asyncio.ensure_future(self._stop.wait()),
                asyncio.ensure_future(closed.wait()),
                asyncio.ensure_future(changes.pending.wait()),
            ]
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()
            if self._stop.is_set() or closed.is_set():
                return
            covered = changes.take()
            try:
                async with asyncio.timeout(self._connect_timeout):
                    specs = await connection.list_tools()
            except McpConnectionLostError:
                return  # `closed` is set too: the session ends as for any lost connection
            except Exception as exc:  # a bad listing (refused, slow, malformed) must not end a working connection
                log.warning("MCP server %s: could not list its changed tools: %s", self.name, describe_error(exc))
                changes.listed(covered)  # keep the old tools rather than hold calls
                continue
            before = [t.name for t in self.tools]
            self._set_tools(specs, connection, changes)
            changes.listed(covered)
            self.last_change = ToolsChange.between(before, [t.name for t in self.tools])
            self._emit("toolsChanged")
