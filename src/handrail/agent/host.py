"""`AgentHost`: the agent's side of the server behind typed operations, one per command and lifecycle event.

It owns the sessions and their transcripts, the workspace's permission state, the MCP servers, the model
clients and the turns. It reaches the editor only through ports (agent/ports.py): `Workspace` and
`Notices` for the connection, an `EditorPorts` bundle for the operations that work with the editor.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handrail.agent.background_events import BackgroundWatch, background_listing
from handrail.agent.mcp_manager import McpManager
from handrail.agent.model_client import ModelClient, ModelSettings
from handrail.agent.permission_state import PermissionState
from handrail.agent.permissions_report import describe_context
from handrail.agent.persistence import SessionArchive
from handrail.agent.ports import Dialogs, EditorPorts, Notices, Workspace
from handrail.agent.project_approval import approve_project_skills
from handrail.agent.retention import remove_old_session_files
from handrail.agent.session import Session, SessionStore
from handrail.agent.session_modes import set_session_mode
from handrail.agent.settings import AgentSettings, load_settings
from handrail.agent.skill_host import ProblemReporter
from handrail.agent.storage import sessions_dir
from handrail.agent.watcher import Coalesced, SettingsWatcher, watched_files
from handrail.permissions.context import PermissionContext
from handrail.permissions.modes import PermissionMode
from handrail.permissions.workspace import WorkspacePermissions
from handrail.tools.mcp.model import McpClientHooks
from handrail.wire.errors import InvalidParams, InvalidRequest
from handrail.wire.models import (
    ApproveProjectParams,
    ApproveProjectResult,
    AskParams,
    AskResult,
    AskStarted,
    BackgroundTaskList,
    BackgroundTasksParams,
    CancelParams,
    CancelResult,
    McpApproveResult,
    McpPromptList,
    McpResourceList,
    McpRestartResult,
    McpServerParams,
    McpSignInResult,
    McpSignOutResult,
    McpStatus,
    PermissionsParams,
    PermissionsReport,
    RunMcpPromptParams,
    SetModeParams,
    SetModeResult,
)
from handrail.wire.names import SET_MODE_COMMAND

if TYPE_CHECKING:
    from handrail.agent.ask import AskServices
    from handrail.agent.subagents import AgentCatalogSource

log = logging.getLogger(__name__)


class AgentHost:
    """The sessions, permissions, MCP servers and model clients of one editor connection.

    Made once the editor said `initialized`; the turn's own modules (the agent loop, sub-agents, the tools)
    load with the first turn or in the warm-up thread, not on the event loop here.
    """

    def __init__(
        self,
        workspace: Workspace,
        notices: Notices,
        *,
        mcp_client: McpClientHooks | None = None,
        dialogs: Dialogs | None = None,
    ) -> None:
        """`mcp_client` answers what MCP servers ask of the editor (forms, roots, log, the browser); `dialogs`
        asks the user outside any request (signing in to an MCP server)."""
        self._workspace = workspace
        self._notices = notices
        self.sessions = SessionStore()
        self.archive = SessionArchive()
        self.permission_state = PermissionState(
            workspace.roots, workspace.init_options, workspace.client_trusted, notices.warn, notices.held_back
        )
        self.mcp = McpManager(notices, self.permission_state, workspace.roots, hooks=mcp_client, dialogs=dialogs)
        self._skill_problems = ProblemReporter(notices.warn, "skill")
        self._background_watch = BackgroundWatch()
        self._model_clients: dict[ModelSettings, ModelClient] = {}
        self._watcher: SettingsWatcher | None = None  # only when the client cannot watch the files for us
        self._settings_reload: Coalesced | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.default_mode: PermissionMode | None = None
        self.shutting_down = False

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Once the editor said `initialized`: remove old session files, start the MCP servers and load what
        the first turn needs, all in the background (the editor side follows the settings files)."""
        from handrail.agent.warm_up import warm_up

        options = self._workspace.init_options()
        retention = load_settings(None, options).retention_days
        self.in_background(asyncio.to_thread(remove_old_session_files, sessions_dir(), retention))
        self.in_background(self.mcp.sync())  # servers connect in the background; no turn waits for them
        first_model = load_settings(None, options).model
        self.in_background(warm_up(self._workspace.roots()[0], lambda: self.model_client(first_model)))

    async def stop_turns(self) -> None:
        """No turn starts from now on; the running ones are cancelled and have ended when this returns."""
        self.shutting_down = True
        turns = [s.turn for s in self.sessions.all() if s.turn is not None and not s.turn.done()]
        for turn in turns:
            turn.cancel()
        if turns:
            await asyncio.gather(*turns, return_exceptions=True)

    async def close(self) -> None:
        """Stop the sessions' background agents and shells, the watcher, the MCP servers and the model clients."""
        # background agents and shells belong to their sessions: none outlives the server
        # (agents first: a stopping agent's calls may still start shells)
        await asyncio.gather(*(s.background_agents.close() for s in self.sessions.all()), return_exceptions=True)
        await asyncio.gather(*(s.shell.close() for s in self.sessions.all()), return_exceptions=True)
        if self._watcher is not None:
            self._watcher.stop()
        await self.mcp.stop_all()
        for client in self._model_clients.values():
            with contextlib.suppress(Exception):
                await client.close()

    async def trust_changed(self) -> None:
        """The editor's word on workspace trust changed: reload the rules, start or stop MCP servers."""
        await self.refresh_permissions()
        await self.mcp.sync(reload=False)

    async def watch_settings_files(self) -> None:
        """Watch the roots' settings files and `.mcp.json` here (the client cannot watch them for us)."""
        self._watcher = SettingsWatcher(asyncio.get_running_loop(), self.on_watched_change, self._notices.warn)
        await asyncio.to_thread(self._watcher.watch, self._workspace.roots())

    async def roots_changed(self) -> None:
        """The workspace folders changed: tell the MCP servers (their roots), and watch the new roots' files (when
        watching here)."""
        self.mcp.roots_changed()
        if self._watcher is not None:
            await asyncio.to_thread(self._watcher.watch, self._workspace.roots())

    def on_watched_change(self, path: Path) -> None:
        """A file changed: when it is a settings file or `.mcp.json` of a root, reload (once for a burst)."""
        if path not in watched_files(self._workspace.roots()):
            return
        if self._settings_reload is None:
            self._settings_reload = Coalesced(self._reload_settings, self.in_background)
        self._settings_reload.poke()

    async def _reload_settings(self) -> None:
        await self.refresh_permissions()  # every session gets the new rules; an open prompt is decided again
        await self.mcp.sync(reload=False)  # a changed definition stops until approved again

    def in_background(self, coroutine: Awaitable[Any]) -> None:
        """Run a coroutine without waiting for it, keeping a reference until it ends."""
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ the turn

    async def ask(self, params: AskParams, editor: EditorPorts, content: list[Any] | None = None) -> AskResult:
        """`handrail.ask`: run a turn of the agent in a session (a new one unless the arguments name one).

        `content` is the turn's content when it is not the prompt's text (an MCP prompt's); a prompt that is
        an MCP prompt command (`/mcp__server__prompt args`) is rendered by its server first.
        """
        if content is None:
            from handrail.agent.mcp_prompts import slash_content

            content = await slash_content(self.mcp, params.prompt)
        session, waits = self._claim(params)
        return await self._run_claimed(session, params, editor, content, waits)

    def start_ask(
        self, params: AskParams, editor: EditorPorts, finished: Callable[[AskResult | Exception], None]
    ) -> AskStarted:
        """`handrail.startAsk`: start a turn as `handrail.ask` does and answer at once with its session.

        For editors whose requests time out while a turn runs: the turn reports itself to the editor as it
        goes, and `finished` gets its result (or what stopped it from running).
        """
        session, waits = self._claim(params)  # a busy session is refused now, not after the answer

        async def run() -> None:
            try:
                from handrail.agent.mcp_prompts import slash_content

                content = await slash_content(self.mcp, params.prompt)
            except Exception as exc:
                self._release(session, waits, took_over=False)
                finished(exc)
                return
            try:
                result: AskResult | Exception = await self._run_claimed(session, params, editor, content, waits)
            except Exception as exc:
                result = exc
            finished(result)

        self.in_background(run())
        return AskStarted(session_id=session.id)

    def _claim(self, params: AskParams) -> tuple[Session, bool]:
        """The session a turn runs in (made now unless the arguments name one this server holds), marked busy
        before anything awaits, so that a second ask sees it busy; and whether the ask must wait first.

        A session whose turn was cancelled takes one new ask, which waits for that turn to wind down (the
        user pressed Stop and asked again); any other ask while a turn runs is refused.
        """
        session = self.sessions.get(params.session_id) if params.session_id else None
        if session is None:
            roots = self._workspace.roots()
            session = self.sessions.create(PermissionContext(workspace_roots=roots), params.session_id)
        if session.busy:
            if not session.stopping or session.next_ask is not None:
                raise InvalidRequest(f"session {session.id} is still running a turn; cancel it or wait")
            session.next_ask = asyncio.Event()
            return session, True
        session.starting = True
        return session, False

    def _release(self, session: Session, waits: bool, *, took_over: bool) -> None:
        """An ask lets the session go: the one waiting for it (if any) may start."""
        if waits and not took_over:  # it gave up while waiting: the running ask still holds the session
            session.next_ask = None
            return
        session.starting = False
        session.stopping = False
        if session.next_ask is not None:
            session.next_ask.set()

    async def _run_claimed(
        self, session: Session, params: AskParams, editor: EditorPorts, content: list[Any] | None, waits: bool
    ) -> AskResult:
        took_over = not waits
        try:
            if waits:
                assert session.next_ask is not None  # `_claim` made it for this ask
                await session.next_ask.wait()
                session.next_ask = None
                session.starting = took_over = True
            if params.session_id:  # a session from before a restart continues from its transcript
                await self.archive.resume(session)
            from handrail.agent.ask import run_ask

            roots = self._workspace.roots()
            return await run_ask(self._services(), session, params.prompt, roots, editor, content=content)
        finally:
            self._release(session, waits, took_over=took_over)
            if took_over and session.turn_rules:  # what skills granted ends with the turn (not kept by background work)
                session.turn_rules.clear()
                self.update_session_context(session)

    @cached_property
    def _agent_catalogs(self) -> AgentCatalogSource:
        from handrail.agent.subagents import AgentCatalogSource

        return AgentCatalogSource(self._notices.warn)

    def _services(self) -> AskServices:
        from handrail.agent.ask import AskServices

        return AskServices(
            permission_state=self.permission_state,
            mcp=self.mcp,
            archive=self.archive,
            agent_catalogs=self._agent_catalogs,
            skill_problems=self._skill_problems,
            background_watch=self._background_watch,
            models=self.model_client,
            apply_context=self.update_session_context,
            settings=self.settings,
            shutting_down=lambda: self.shutting_down,
        )

    async def settings(self, editor: EditorPorts) -> AgentSettings:
        """Settings for a turn: the client's section, then the initialization options, then the environment."""
        return load_settings(await editor.settings.section(), self._workspace.init_options())

    def model_client(self, settings: ModelSettings) -> ModelClient:
        """One SDK client per distinct model configuration."""
        if settings not in self._model_clients:
            self._model_clients[settings] = ModelClient(settings)
        return self._model_clients[settings]

    def cancel(self, params: CancelParams) -> CancelResult:
        """`handrail.cancel`: stop a session's running turn."""
        session = self.sessions.get(params.session_id)
        if session is None or not session.busy:
            return CancelResult(cancelled=False)
        session.stopping = True  # a turn still being set up does not start; the next ask waits for this one to end
        if session.turn is not None:
            session.turn.cancel()  # (a turn of an earlier ask is done: this does nothing)
        return CancelResult(cancelled=True)

    def background_tasks(self, params: BackgroundTasksParams) -> BackgroundTaskList:
        """`handrail.backgroundTasks`: a session's background agents and shells."""
        session = self.sessions.get(params.session_id)  # a session not started yet has no background work
        return BackgroundTaskList(background_listing(session) if session is not None else [])

    # ------------------------------------------------------------------ permissions

    async def refresh_permissions(self) -> WorkspacePermissions:
        """Reload the settings files and give every session its new context."""
        loaded = await self.permission_state.refresh()
        for session in self.sessions.all():
            self.update_session_context(session)
        return loaded

    def update_session_context(self, session: Session) -> None:
        """Recompute a session's context from the workspace's, its rules and its mode."""
        mode = session.mode if session.mode is not None else self.default_mode
        rules = [*session.rules, *session.turn_rules]
        try:
            session.set_context(self.permission_state.context_for(rules, mode))
        except ValueError as exc:  # e.g. bypassPermissions disabled by policy since the mode was chosen
            self._notices.warn(f"handrail: mode {mode} is not available ({exc}); using the default mode")
            session.mode = None
            session.set_context(self.permission_state.context_for(rules, None))

    async def set_mode(self, params: SetModeParams, editor: EditorPorts) -> SetModeResult:
        """`handrail.setMode`: a session's permission mode, or the server's default for every session."""
        await self.permission_state.refresh()
        try:
            self.permission_state.context_for((), params.mode)
        except ValueError as exc:
            raise InvalidParams(f"{SET_MODE_COMMAND}: {exc}") from exc
        session = self.sessions.get(params.session_id) if params.session_id else None
        if session is None and params.session_id:  # a client may name its session before the first ask
            session = self.sessions.create(self.permission_state.context_for((), None), params.session_id)
        if session is None:
            self.default_mode = params.mode
            for existing in self.sessions.all():
                self.update_session_context(existing)
                editor.chats.session(existing.id).mode(existing.permission_context.mode)
            return SetModeResult(mode=params.mode, scope="server")
        set_session_mode(session, params.mode, self.update_session_context)
        editor.chats.session(session.id).mode(session.permission_context.mode)
        return SetModeResult(mode=params.mode, scope="session", session_id=session.id)

    async def permissions(self, params: PermissionsParams) -> PermissionsReport:
        """`handrail.permissions`: the rules in force for a session (or the workspace) and those that are not."""
        # the sessions' contexts too: a session's context from before a change (of trust, say) that another
        # refresh is still loading must not be what this answer shows
        current = await self.refresh_permissions()
        session = self.sessions.get(params.session_id) if params.session_id is not None else None
        context = session.permission_context if session is not None else current.context
        return describe_context(context, current)

    async def approve_project_settings(self, params: ApproveProjectParams) -> ApproveProjectResult:
        """`handrail.approveProjectSettings`: what waits in the workspace's settings files, and its skills.

        With `items` (the `digest`s of `handrail.permissions`' inactive entries the user was shown) exactly
        those items; without, everything that waits now.
        """
        items = await self.permission_state.approve_project_files(params.items)
        skills = 0
        if params.items is None:
            skills = await approve_project_skills(self.permission_state, self._workspace.roots(), self._skill_problems)
        for session in self.sessions.all():
            self.update_session_context(session)
        await self.mcp.sync(reload=False)  # an approved server definition starts
        return ApproveProjectResult(approved=len(items) + skills, items=items)

    # ------------------------------------------------------------------ MCP servers

    async def mcp_status(self) -> McpStatus:
        """`handrail.mcpStatus`: every configured server, its state and tools (after reading the definitions)."""
        await self.mcp.sync()
        return self.mcp.status()

    async def approve_mcp_server(self, params: McpServerParams) -> McpApproveResult:
        """`handrail.approveMcpServer`: approve the workspace's server definition as it is now, and start it."""
        return await self.mcp.approve(params.name, params.digest)

    async def restart_mcp_server(self, params: McpServerParams) -> McpRestartResult:
        """`handrail.restartMcpServer`: stop the server if it runs and start it afresh."""
        return await self.mcp.restart(params.name)

    async def sign_in_mcp_server(self, params: McpServerParams) -> McpSignInResult:
        """`handrail.signInMcpServer`: connect a remote server again, letting it send the user to sign in."""
        return await self.mcp.sign_in(params.name)

    async def sign_out_mcp_server(self, params: McpServerParams) -> McpSignOutResult:
        """`handrail.signOutMcpServer`: revoke and forget a remote server's sign-in."""
        return await self.mcp.sign_out(params.name)

    async def mcp_prompts(self) -> McpPromptList:
        """`handrail.mcpPrompts`: the connected servers' prompts, with the commands that run them."""
        from handrail.agent.mcp_prompts import list_prompts

        return await list_prompts(self.mcp)

    async def run_mcp_prompt(self, params: RunMcpPromptParams, editor: EditorPorts) -> AskResult:
        """`handrail.runMcpPrompt`: a server's prompt, rendered, as the user's turn."""
        from handrail.agent.mcp_prompts import prompt_turn

        shown, content = await prompt_turn(self.mcp, params)
        return await self.ask(AskParams(prompt=shown, session_id=params.session_id), editor, content)

    async def mcp_resources(self) -> McpResourceList:
        """`handrail.mcpResources`: what the connected servers' resources offer to mention (`@server:uri`)."""
        from handrail.tools.mcp.mentions import mentionable

        return McpResourceList.model_validate({"resources": await mentionable(self.mcp.connections())})
