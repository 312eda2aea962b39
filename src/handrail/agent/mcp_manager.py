"""The MCP servers of this LSP session: which may start, starting them in the background, telling the user.

The user's own servers (user settings) start at once. Servers that came with the
workspace start only in a trusted workspace and once the user approved that exact
definition (`permissions/mcp_approval.py`): approval is offered when a session starts
and through `handrail.approveMcpServer`. A slow server never delays a turn: its tools
join the pool of the requests that start after it connected (only a server the user has
just approved, for the turn that asked, is waited for). A server that failed (or one the
user wants fresh) starts again through `handrail.restartMcpServer`.

Telling the user stays quiet: one outage (a crash, the restarts that follow, giving up)
gives one pop-up; the rest goes to the log, and `handrail.mcpStatus` has the state. A
remote server that needs an OAuth sign-in asks once ("Sign in" opens the browser), and
`handrail.signInMcpServer` / `handrail.signOutMcpServer` do it on demand.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handrail.agent.permission_state import PermissionState
from handrail.agent.ports import Dialogs, Notices
from handrail.permissions.mcp_approval import server_trust, with_server_approved
from handrail.permissions.visible import visible
from handrail.state import state_dir
from handrail.tools.mcp.config import McpServerConfig, collect_servers
from handrail.tools.mcp.model import McpClientHooks, McpConnection, McpPromptSpec
from handrail.tools.mcp.resources import list_resources_tool, read_resource_tool
from handrail.tools.mcp.runner import McpServerRunner, RunnerEvent
from handrail.tools.mcp.sign_in_files import SignIn, SignInFile, sign_in_path
from handrail.tools.protocol import Tool
from handrail.wire.models import (
    McpApprovalQuestion,
    McpApproveResult,
    McpCommands,
    McpRestartResult,
    McpServerStatus,
    McpSignInResult,
    McpSignOutResult,
    McpState,
    McpStatus,
)
from handrail.wire.names import APPROVE_MCP_COMMAND, RESTART_MCP_COMMAND, SIGN_IN_MCP_COMMAND, SIGN_OUT_MCP_COMMAND

log = logging.getLogger(__name__)

APPROVE = "Approve"
NOT_NOW = "Not now"
SIGN_IN = "Sign in"
_SOURCE_LABELS = {
    "project": ".handrail/settings.json",
    "local": ".handrail/settings.local.json",
    "mcp.json": ".mcp.json",
}


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    try:
        return max(0.0, float(env.get(name, default)))
    except ValueError:
        return default


@dataclass(frozen=True)
class Blocked:
    """A configured server that is not started, and why."""

    config: McpServerConfig
    state: McpState
    reason: str


class McpManager:
    """Starts, reconciles, reports and stops the MCP servers."""

    def __init__(
        self,
        notices: Notices,
        permissions: PermissionState,
        roots: Callable[[], Sequence[Path]],
        *,
        env: Mapping[str, str] | None = None,
        hooks: McpClientHooks | None = None,
        dialogs: Dialogs | None = None,
    ) -> None:
        self._notices = notices
        self._dialogs = dialogs  # asks about signing in (outside any request)
        self._permissions = permissions
        self._roots = roots
        self._env = os.environ if env is None else env
        self._hooks = hooks
        self._signing_in: set[str] = set()  # servers connecting with the user signing in
        self._background: set[asyncio.Task[None]] = set()
        self._runners: dict[str, McpServerRunner] = {}
        self._blocked: dict[str, Blocked] = {}
        self._asked: set[tuple[str, str]] = set()
        self._lock = asyncio.Lock()
        self._stopped = False
        self._resource_tools: tuple[Tool[Any], ...] = (
            list_resources_tool(self.connections),
            read_resource_tool(self.connections),
        )

    # ------------------------------------------------------------------ what sessions use

    def connections(self) -> dict[str, McpConnection]:
        """The connected servers by name."""
        return {n: r.connection for n, r in self._runners.items() if r.connection is not None}

    def tools(self) -> tuple[Tool[Any], ...]:
        """The tools of every connected server."""
        return tuple(tool for runner in self._runners.values() for tool in runner.tools)

    def resource_tools(self) -> tuple[Tool[Any], ...]:
        """ListMcpResources and ReadMcpResource when a connected server offers resources."""
        if any(c.supports_resources for c in self.connections().values()):
            return self._resource_tools
        return ()

    def instructions(self) -> dict[str, str]:
        """Each started server's instructions for the model, by name (kept while a server restarts, so the
        system prompt changes only when the set of servers does)."""
        return {
            name: runner.instructions
            for name, runner in sorted(self._runners.items())
            if runner.instructions and runner.state != "stopped"
        }

    async def prompts(self) -> list[tuple[str, McpPromptSpec]]:
        """(server, prompt) for every prompt of the connected servers; a server that cannot list them is skipped."""
        found: list[tuple[str, McpPromptSpec]] = []
        for name, connection in sorted(self.connections().items()):
            if not connection.supports_prompts:
                continue
            try:
                found.extend((name, spec) for spec in await connection.list_prompts())
            except Exception as exc:
                self._log(f"MCP server '{name}' could not list its prompts: {exc}", warning=True)
        return found

    def roots_changed(self) -> None:
        """The workspace folders changed: tell the servers that ask to be told (in the background)."""
        for name, connection in self.connections().items():
            self._in_background(self._tell_roots(name, connection))

    async def _tell_roots(self, name: str, connection: McpConnection) -> None:
        try:
            await connection.roots_changed()
        except Exception as exc:
            log.info("MCP server %s: could not tell it the roots changed: %s", name, exc)

    # ------------------------------------------------------------------ reconciling

    async def sync(self, *, reload: bool = True) -> None:
        """Read the definitions again (`reload=False`: the settings the permission state has just read);
        start what may start, stop what was removed or changed. Never waits for a server to connect."""
        async with self._lock:
            if self._stopped:
                return
            current = self._permissions.current
            if reload or current is None:
                current = await self._permissions.refresh()
            roots = tuple(self._roots())
            configs = await asyncio.to_thread(collect_servers, current.loaded, roots, self._env)
            wanted: dict[str, McpServerConfig] = {}
            blocked: dict[str, Blocked] = {}
            for config in configs:
                if config.error is not None:
                    blocked[config.name] = Blocked(config, "failed", config.error)
                    continue
                trust = server_trust(
                    name=config.name,
                    file=config.file,
                    root=config.root,
                    digest=config.digest,
                    project_supplied=config.project_supplied,
                    approvals=current.approvals,
                )
                if trust in ("trusted", "approved"):
                    wanted[config.name] = config
                elif trust == "untrusted":
                    blocked[config.name] = Blocked(config, "untrusted", "the workspace is not trusted")
                else:
                    why = "its definition changed since you approved it" if trust == "changed" else "not approved yet"
                    blocked[config.name] = Blocked(config, "needsApproval", why)
            self._blocked = blocked
            stale = [r for n, r in self._runners.items() if wanted.get(n) != r.config]
            for runner in stale:
                del self._runners[runner.name]
            await asyncio.gather(*(runner.stop() for runner in stale))
            for name, config in wanted.items():
                if name not in self._runners:
                    self._start(config)

    def _sign_in_file(self, config: McpServerConfig) -> SignInFile | None:
        if config.url is None:
            return None
        return SignInFile(sign_in_path(state_dir(self._env), config.name, config.url))

    def _start(
        self, config: McpServerConfig, *, previous: McpServerRunner | None = None, sign_in: bool = False
    ) -> None:
        roots = tuple(self._roots())
        file = self._sign_in_file(config)
        runner = McpServerRunner(
            config,
            cwd=config.root or (roots[0] if roots else None),
            on_event=self._on_event,
            restart_delay=_seconds(self._env, "HANDRAIL_MCP_RESTART_DELAY", 1.0),
            connect_timeout=_seconds(self._env, "HANDRAIL_MCP_TIMEOUT", 30.0),
            hooks=self._hooks,
            sign_in=SignIn(file, interactive=sign_in) if file is not None else None,
            instructions=previous.instructions if previous is not None and previous.config == config else None,
        )
        self._runners[config.name] = runner
        runner.start()

    async def _replace(self, name: str, *, sign_in: bool = False) -> McpServerRunner | None:
        """Stop the runner of `name` and start a fresh one (under the lock); the old runner, None if there was none."""
        runner = self._runners.pop(name, None)
        if runner is None:
            return None
        await runner.stop()
        self._start(runner.config, previous=runner, sign_in=sign_in)
        return runner

    async def restart(self, name: str) -> McpRestartResult:
        """Stop the server `name` if it runs and start it afresh (a failed one too: its command may exist now).

        The definition is read again first, so a fixed one is what starts. Returns at once;
        the server connects in the background (watch `handrail.mcpStatus` or the log).
        """
        await self.sync()
        async with self._lock:
            if self._stopped:
                return McpRestartResult(restarted=False, name=name, reason="handrail is shutting down")
            if await self._replace(name) is None:
                return McpRestartResult(restarted=False, name=name, reason=self._why_not_running(name))
        self._log(f"MCP server '{name}' is restarting at your request")
        return McpRestartResult(restarted=True, name=name)

    def _why_not_running(self, name: str) -> str:
        blocked = self._blocked.get(name)
        return blocked.reason if blocked else f"no MCP server named {name!r} is configured"

    async def sign_in(self, name: str) -> McpSignInResult:
        """Connect the remote server `name` again, letting it send the user to the browser to sign in.

        Returns at once; the server is running once the user has signed in (watch `handrail.mcpStatus`).
        """
        await self.sync()
        async with self._lock:
            runner = self._runners.get(name)
            if runner is None:
                return McpSignInResult(signing_in=False, name=name, reason=self._why_not_running(name))
            if runner.config.url is None:
                reason = "it is a local (stdio) server: there is nothing to sign in to"
                return McpSignInResult(signing_in=False, name=name, reason=reason)
            self._signing_in.add(name)
            await self._replace(name, sign_in=True)
        self._log(f"MCP server '{name}': signing in (your browser opens if it asks you to)")
        return McpSignInResult(signing_in=True, name=name)

    async def sign_out(self, name: str) -> McpSignOutResult:
        """Revoke and forget the sign-in of the remote server `name`, then reconnect it (it will ask again)."""
        await self.sync()
        async with self._lock:
            runner = self._runners.get(name)
            config = runner.config if runner is not None else None
            blocked = self._blocked.get(name)
            config = config or (blocked.config if blocked is not None else None)
            file = self._sign_in_file(config) if config is not None else None
            if file is None:
                reason = f"no remote MCP server named {name!r} is configured"
                return McpSignOutResult(signed_out=False, name=name, reason=reason)
            from handrail.tools.mcp.sdk_oauth import revoke  # the SDK loads when first needed

            # stopped first: a connection still at work (a refresh, a restart's sign-in) would save tokens again
            # after they were removed, and the user would stay signed in
            stopped = self._runners.pop(name, None)
            if stopped is not None:
                await stopped.stop()
            detail = await revoke(file)
            removed = await asyncio.to_thread(file.remove)
            if stopped is not None:
                self._start(stopped.config, previous=stopped)
        if not removed:
            detail = "it was not signed in"
        self._log(f"MCP server '{name}': signed out ({detail})")
        return McpSignOutResult(signed_out=removed, name=name, detail=detail)

    def awaiting_approval(self) -> set[str]:
        """The servers that wait for the user's approval (as of the last sync)."""
        return {name for name, b in self._blocked.items() if b.state == "needsApproval"}

    async def wait_started(self, names: set[str]) -> None:
        """Wait until those of `names` that are starting have connected or failed (at most the connect timeout):
        a server the user approved just now serves the turn that asked."""
        starting = [r for n, r in self._runners.items() if n in names]
        if not starting:
            return
        timeout = _seconds(self._env, "HANDRAIL_MCP_TIMEOUT", 30.0)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await asyncio.gather(*(runner.settled() for runner in starting))

    async def stop_all(self) -> None:
        """Stop every server and wait until their processes are gone."""
        self._stopped = True
        async with self._lock:  # a sync in progress finishes first, so nothing starts after this
            runners = list(self._runners.values())
            self._runners.clear()
            await asyncio.gather(*(runner.stop() for runner in runners), return_exceptions=True)

    # ------------------------------------------------------------------ approval

    def pending_approvals(self) -> list[McpServerConfig]:
        """Servers waiting for the user's approval that were not offered yet in this run (a definition shown
        in the workspace settings' own question counts as offered)."""
        return [
            b.config
            for b in self._blocked.values()
            if b.state == "needsApproval"
            and (b.config.name, b.config.digest) not in self._asked
            and not self._permissions.was_asked(b.config.digest)
        ]

    async def offer_approvals(self, dialogs: Dialogs, session_id: str) -> None:
        """Ask about each server waiting for approval (once per definition and run), before the turn of
        `session_id` (a client with a chat asks there).

        Approving approves the definition shown; one that changed while the question was
        open is a new definition, asked about in turn.
        """
        while pending := self.pending_approvals():
            for config in pending:
                self._asked.add((config.name, config.digest))
                try:
                    approved = await dialogs.approve_server(session_id, config.name, approval_text(config))
                except Exception as exc:
                    log.warning("could not ask about MCP server %s: %s", config.name, exc)
                    return
                if approved:
                    await self.approve(config.name, config.digest)

    async def approve(self, name: str, digest: str | None = None) -> McpApproveResult:
        """Approve the workspace's server `name` and start it: the definition with `digest` (the one the user
        was shown), or without one the current definition."""
        await self.sync()
        blocked = self._blocked.get(name)
        if blocked is None:
            running = name in self._runners
            reason = "it is already allowed to run" if running else f"no MCP server named {name!r} is configured"
            return McpApproveResult(approved=running, name=name, reason=reason)
        if blocked.state != "needsApproval" or blocked.config.file is None:
            return McpApproveResult(approved=False, name=name, reason=blocked.reason)
        if digest is not None and blocked.config.digest != digest:
            reason = "its definition changed while you were asked; the new one needs your approval"
            return McpApproveResult(approved=False, name=name, reason=reason)
        current = self._permissions.current
        assert current is not None
        approvals = with_server_approved(
            current.approvals, name=name, file=blocked.config.file, digest=blocked.config.digest
        )
        await self._permissions.store_approvals(current, approvals)
        await self.sync(reload=False)
        return McpApproveResult(approved=True, name=name)

    # ------------------------------------------------------------------ reporting

    def status(self) -> McpStatus:
        """The `handrail.mcpStatus` answer: every configured server, its state and tools."""
        servers: list[McpServerStatus] = []
        for runner in self._runners.values():
            entry: dict[str, Any] = {}
            if runner.error:
                entry["error"] = runner.error
            if runner.state == "needsSignIn" and runner.sign_in_at:
                entry["sign_in_at"] = runner.sign_in_at
            if runner.restarts:
                entry["restarts"] = runner.restarts
            if (change := runner.last_change) is not None:  # the latest tools/list_changed followed
                entry["tools_changed"] = {"added": list(change.added), "removed": list(change.removed)}
            if runner.state in ("failed", "restarting") and (tail := runner.stderr_tail()):
                entry["stderr_tail"] = tail
            tools = [t.name for t in runner.tools]
            servers.append(McpServerStatus(
                name=runner.name, source=runner.config.source, state=runner.state, tools=tools,
                remote=runner.config.transport != "stdio", **entry
            ))
        for blocked in self._blocked.values():
            config = blocked.config
            approval = (
                McpApprovalQuestion(question=approval_text(config), digest=config.digest)
                if blocked.state == "needsApproval" and config.file is not None
                else None
            )
            servers.append(McpServerStatus(
                name=config.name, source=config.source, state=blocked.state, tools=[], error=blocked.reason,
                remote=config.transport != "stdio", approval=approval,
            ))
        return McpStatus(
            servers=sorted(servers, key=lambda s: s.name),
            # how to act on an entry: each takes [{name}]
            commands=McpCommands(
                restart=RESTART_MCP_COMMAND,
                approve=APPROVE_MCP_COMMAND,
                sign_in=SIGN_IN_MCP_COMMAND,
                sign_out=SIGN_OUT_MCP_COMMAND,
            ),
        )

    def _on_event(self, runner: McpServerRunner, event: RunnerEvent) -> None:
        name = runner.name
        if event == "running":
            again = " again" if runner.restarts else ""
            self._log(f"MCP server '{name}' connected{again} ({len(runner.tools)} tools)")
            if name in self._signing_in:
                self._signing_in.discard(name)
                self._log(f"Signed in to the MCP server '{name}'.")
            return
        if event == "toolsChanged":
            change = runner.last_change.describe() if runner.last_change else "updated"
            self._log(f"MCP server '{name}' changed its tools: {change} (now {len(runner.tools)} tools)")
            return
        if event == "needsSignIn":
            self._signing_in.discard(name)
            self._log(f"MCP server '{name}' {runner.error}", warning=True)
            self._in_background(self._offer_sign_in(runner))
            return
        tail = runner.stderr_tail()
        details = f"\n{tail}" if tail else ""
        if event == "crashed":
            message = (
                f"MCP server '{name}' stopped ({runner.error}); restarting it. "
                "Its tools are unavailable meanwhile."
            )
            first = runner.streak == 1  # the outage's first crash: later ones go to the log only
        elif event == "failed":
            message = f"MCP server '{name}' failed: {runner.error} (run {RESTART_MCP_COMMAND} to try again)"
            first = runner.streak == 0  # it never ran; giving up after restarts was announced with the crash
            self._signing_in.discard(name)
        else:
            return
        self._log(message + details, warning=True)
        if first:
            self._notices.warn(message + details)

    async def _offer_sign_in(self, runner: McpServerRunner) -> None:
        """One question for a server that needs the user to sign in; "Sign in" starts it."""
        if self._dialogs is None:
            return
        where = visible(runner.sign_in_at or "its authorization server")
        question = f"The MCP server '{visible(runner.name)}' needs you to sign in at {where}."
        try:
            choice = await self._dialogs.choose(question, [SIGN_IN, NOT_NOW])
        except Exception as exc:
            log.warning("could not ask about signing in to MCP server %s: %s", runner.name, exc)
            return
        if choice == SIGN_IN and self._runners.get(runner.name) is runner:
            await self.sign_in(runner.name)

    def _in_background(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _log(self, message: str, *, warning: bool = False) -> None:
        log.info("%s", message)
        self._notices.log(message, warning=warning)


def approval_text(config: McpServerConfig) -> str:
    """The question for a workspace server: the definition as written, and what of the user's environment it gets."""
    where = _SOURCE_LABELS.get(config.source, config.source)
    risk = (
        "It can run any code with your permissions."
        if config.transport == "stdio"
        else "It receives what the agent sends it, and what it is sent from your environment."
    )
    return (
        f"The workspace's {where} defines the MCP server '{visible(config.name)}', which "
        f"{visible(config.describe())}. {risk} Start it?"
    )
