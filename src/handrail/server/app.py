"""The handrail language server: LSP features and commands, and the state it keeps across requests."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from handrail import __version__
from handrail.permissions.modes import PermissionMode
from handrail.server.client_features import ClientFeatures
from handrail.server.command_names import (
    APPROVE_COMMAND,
    APPROVE_MCP_COMMAND,
    ASK_COMMAND,
    BACKGROUND_TASKS_COMMAND,
    CANCEL_COMMAND,
    MCP_STATUS_COMMAND,
    PERMISSIONS_COMMAND,
    RESTART_MCP_COMMAND,
    SET_MODE_COMMAND,
)
from handrail.server.document_watch import DocumentWatch
from handrail.server.documents import BlockDocument
from handrail.server.framing import TOO_LARGE_METHOD, BoundedReader, max_message_bytes, refusal_message
from handrail.server.lsp_values import field_of, to_plain
from handrail.server.lsp_values import name_argument as _server_name
from handrail.server.lsp_values import single_argument as _single_argument
from handrail.server.mcp_commands import register_mcp_commands
from handrail.server.protocol import HandrailProtocol

if TYPE_CHECKING:
    from handrail.permissions.workspace import WorkspacePermissions
    from handrail.server.background_events import BackgroundWatch
    from handrail.server.diagnostics_store import DiagnosticsStore
    from handrail.server.mcp_manager import McpManager
    from handrail.server.model_client import ModelClient, ModelSettings
    from handrail.server.permission_state import PermissionState
    from handrail.server.persistence import SessionArchive
    from handrail.server.session import Session, SessionStore
    from handrail.server.settings import AgentSettings
    from handrail.server.skill_host import ProblemReporter
    from handrail.server.subagents import AgentCatalogSource
    from handrail.server.watcher import WorkspaceWatcher

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_SECONDS = 5.0


class HandrailServer(LanguageServer):
    """The language server and the state it keeps across requests.

    Only the LSP side is built before `initialize` is answered; the agent's side (sessions,
    permissions, MCP servers…) is imported and built on first use, so the editor's handshake
    does not wait for pydantic, the tools and the permission engine to load.
    """

    protocol: HandrailProtocol

    def __init__(self) -> None:
        super().__init__(
            "handrail",
            __version__,
            protocol_cls=HandrailProtocol,
            # Incremental sync, applied by server/documents.py rather than pygls (which splits
            # lines like str.splitlines and rebuilds the whole text on every change).
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.document_watch = DocumentWatch()
        self.init_options: dict[str, Any] = {}
        self.pushed_settings: dict[str, Any] = {}
        self.client_trusted: bool | None = None  # the editor's word on workspace trust, when it gives one
        self.features = ClientFeatures()
        self.watcher: WorkspaceWatcher | None = None
        self._model_clients: dict[ModelSettings, ModelClient] = {}
        self.default_mode: PermissionMode | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self.shutting_down = False
        self.message_limit = max_message_bytes()

    def _start_io_async(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio as pygls 2.1.1 does, reading the client's messages through a `BoundedReader`."""
        self._stop_event = threading.Event()
        reader = BoundedReader(stdin or sys.stdin.buffer, self.message_limit, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(run_async(self._stop_event, reader, self.protocol, log, self.report_server_error))
        except BrokenPipeError:
            log.error("the client's end of the connection is gone; stopping")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    @cached_property
    def sessions(self) -> SessionStore:
        """The sessions of this server run."""
        from handrail.server.session import SessionStore

        return SessionStore()

    @cached_property
    def archive(self) -> SessionArchive:
        """Where sessions' transcripts are saved and resumed from."""
        from handrail.server.persistence import SessionArchive

        return SessionArchive()

    @cached_property
    def diagnostics(self) -> DiagnosticsStore:
        """The diagnostics the client forwards (`handrail/diagnostics`)."""
        from handrail.server.diagnostics_store import DiagnosticsStore

        return DiagnosticsStore(self._diagnostic_column)

    @cached_property
    def permission_state(self) -> PermissionState:
        """The workspace's settings files, approvals and trust."""
        from handrail.server.permission_state import PermissionState

        return PermissionState(self.workspace_roots, lambda: self.init_options, lambda: self.client_trusted, self.warn)

    @cached_property
    def mcp(self) -> McpManager:
        """The configured MCP servers and their tools."""
        from handrail.server.mcp_client_ui import LspMcpClient
        from handrail.server.mcp_manager import McpManager

        hooks = LspMcpClient(self, lambda: self.features, self.workspace_roots)
        return McpManager(self, self.permission_state, self.workspace_roots, hooks=hooks)

    @cached_property
    def agent_catalogs(self) -> AgentCatalogSource:
        """The sub-agent definitions of the user and the (trusted) workspace."""
        from handrail.server.subagents import AgentCatalogSource

        return AgentCatalogSource(self.warn)

    @cached_property
    def background_watch(self) -> BackgroundWatch:
        """Tells the client when sessions' background agents and shells start and end."""
        from handrail.server.background_events import BackgroundWatch

        return BackgroundWatch(self)

    @cached_property
    def skill_problems(self) -> ProblemReporter:
        """Reports each broken skill once."""
        from handrail.server.skill_host import ProblemReporter

        return ProblemReporter(self.warn, "skill")

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Answer unreadable input in JSON-RPC terms; other errors as pygls does (a message to the user)."""
        if not self.protocol.answer_unreadable(error):
            super().report_server_error(error, source)

    def _diagnostic_column(self, uri: str, line: int, character: int) -> int | None:
        """A diagnostic's character (counted as the client counts) as an index into the open document's line."""
        document = self.workspace.text_documents.get(uri)
        return document.column(line, character) if isinstance(document, BlockDocument) else None

    def warn(self, message: str) -> None:
        """Tell the user something went wrong that they can fix (and log it)."""
        log.warning("%s", message)
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))

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
            self.warn(f"handrail: mode {mode} is not available ({exc}); using the default mode")
            session.mode = None
            session.set_context(self.permission_state.context_for(rules, None))

    def in_background(self, coroutine: Any) -> None:
        """Run a coroutine without waiting for it, keeping a reference until it ends."""
        task = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def workspace_roots(self) -> tuple[Path, ...]:
        """The workspace folders the client opened (the process's cwd when it named none)."""
        roots: list[Path] = []
        for folder in self.workspace.folders.values():
            path = to_fs_path(folder.uri)
            if path:
                roots.append(Path(path))
        if not roots and self.workspace.root_path:
            roots.append(Path(self.workspace.root_path))
        return tuple(roots) or (Path.cwd(),)

    def model_client(self, settings: ModelSettings) -> ModelClient:
        """One SDK client per distinct model configuration."""
        from handrail.server.model_client import ModelClient

        if settings not in self._model_clients:
            self._model_clients[settings] = ModelClient(settings)
        return self._model_clients[settings]

    async def agent_settings(self) -> AgentSettings:
        """Settings for a turn: asked of the client when it supports workspace/configuration."""
        from handrail.server.settings import load_settings

        client_section: dict[str, Any] = dict(self.pushed_settings)
        workspace_caps = self.client_capabilities.workspace
        if workspace_caps is not None and workspace_caps.configuration:
            try:
                values = await self.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section="handrail")])
                )
                if values and isinstance(values[0], dict):
                    client_section.update(values[0])
            except Exception as exc:
                log.warning("workspace/configuration failed: %s", exc)
        return load_settings(client_section, self.init_options)

    def on_disk_change(self, path: Path, content_hash: str | None) -> None:
        """A file changed on disk: mark it in every session that read it with other content."""
        from handrail.server.permission_state import is_settings_file
        from handrail.tools.mcp.config import MCP_JSON

        if is_settings_file(path) and self.permission_state.current is not None:
            self.in_background(self.refresh_permissions())
        if is_settings_file(path) or path.name == MCP_JSON:  # a changed definition stops until approved again
            self.in_background(self.mcp.sync())
        for session in self.sessions.all():
            record = session.file_state.get(path)
            if record is not None and record.content_hash != content_hash:
                session.file_state.mark_changed(path)


def create_server() -> HandrailServer:
    """Build the server with every feature and command registered.

    The handlers import the agent's modules when they first run, not before `initialize` is answered.
    """
    server = HandrailServer()

    @server.feature(types.INITIALIZE)
    def on_initialize(ls: HandrailServer, params: types.InitializeParams) -> None:
        ls.protocol.adopt_block_documents()
        options = to_plain(params.initialization_options)
        ls.init_options = options if isinstance(options, dict) else {}
        ls.features = ClientFeatures.from_capabilities(params.capabilities)
        trusted = ls.init_options.get("workspaceTrusted")
        ls.client_trusted = trusted if isinstance(trusted, bool) else None

    @server.feature(types.INITIALIZED)
    def on_initialized(ls: HandrailServer, params: types.InitializedParams) -> None:
        from handrail.server.retention import remove_old_session_files
        from handrail.server.settings import load_settings
        from handrail.server.storage import sessions_dir
        from handrail.server.watcher import WorkspaceWatcher

        retention = load_settings(None, ls.init_options).retention_days
        ls.in_background(asyncio.to_thread(remove_old_session_files, sessions_dir(), retention))
        if ls.init_options.get("watchFiles", True) is not False:
            ls.watcher = WorkspaceWatcher(asyncio.get_running_loop(), ls.on_disk_change)
            try:
                ls.watcher.start(ls.workspace_roots())
            except Exception as exc:  # e.g. out of inotify watches: work on without the watcher
                log.warning("file watcher not started: %s", exc)
                ls.watcher = None
        ls.in_background(ls.mcp.sync())  # servers connect in the background; no turn waits for them
        from handrail.server.warm_up import warm_up

        ls.in_background(warm_up(ls))  # the first prompt would otherwise wait for the SDK's import

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def on_configuration(ls: HandrailServer, params: types.DidChangeConfigurationParams) -> None:
        settings = to_plain(params.settings)
        if isinstance(settings, dict) and isinstance(settings.get("handrail"), dict):
            ls.pushed_settings = settings["handrail"]

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def on_open(ls: HandrailServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.document_watch.changed()

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def on_change(ls: HandrailServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.document_watch.changed()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def on_close(ls: HandrailServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.document_watch.changed()

    @server.feature(TOO_LARGE_METHOD)
    def on_too_large(ls: HandrailServer, params: Any) -> None:
        message = refusal_message(to_plain(params))
        if ls.protocol.msg_id is None:  # a notification: nobody gets an answer, so tell the user
            ls.warn(message)
            return
        raise JsonRpcInvalidRequest(message)

    @server.feature(types.SHUTDOWN)
    async def on_shutdown(ls: HandrailServer, params: Any = None) -> None:
        ls.shutting_down = True  # no new turn starts from here on
        turns = [s.turn for s in ls.sessions.all() if s.turn is not None and not s.turn.done()]
        for turn in turns:
            turn.cancel()
        if turns:
            await asyncio.gather(*turns, return_exceptions=True)
        # let the commands whose turns just stopped send their answers before pygls stops answering;
        # one still waiting on the client (a prompt, configuration) is cancelled after a grace period
        commands = [t for t in ls.protocol.running_commands.values() if not t.done()]
        if commands:
            _, pending = await asyncio.wait(commands, timeout=SHUTDOWN_GRACE_SECONDS)
            for command in pending:
                command.cancel()
            if pending:
                await asyncio.wait(pending)
        # background agents and shells belong to their sessions: none outlives the server
        # (agents first: a stopping agent's calls may still start shells)
        await asyncio.gather(*(s.background_agents.close() for s in ls.sessions.all()), return_exceptions=True)
        await asyncio.gather(*(s.shell.close() for s in ls.sessions.all()), return_exceptions=True)
        if ls.watcher is not None:
            ls.watcher.stop()
        await ls.mcp.stop_all()
        for client in ls._model_clients.values():
            with contextlib.suppress(Exception):
                await client.close()

    @server.command(ASK_COMMAND)
    async def on_ask(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        ls.protocol.track_current_request()
        from handrail.server.ask import ask

        return await ask(ls, _single_argument(args))

    @server.feature("handrail/diagnostics")
    def on_diagnostics(ls: HandrailServer, params: Any) -> None:
        ls.diagnostics.update(to_plain(params))

    @server.feature("handrail/didChangeTrust")
    async def on_trust(ls: HandrailServer, params: Any) -> None:
        trusted = field_of(params, "trusted")
        ls.client_trusted = trusted if isinstance(trusted, bool) else None
        await ls.refresh_permissions()
        await ls.mcp.sync(reload=False)

    @server.command(SET_MODE_COMMAND)
    async def set_mode(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        from handrail.server import commands

        return await commands.set_mode(ls, _single_argument(args))

    @server.command(PERMISSIONS_COMMAND)
    async def permissions(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        from handrail.server import commands

        return await commands.permissions(ls, field_of(to_plain(args[0]), "sessionId") if args else None)

    @server.command(APPROVE_COMMAND)
    async def approve(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        from handrail.server import commands

        return await commands.approve(ls, to_plain(args[0]) if args else None)

    @server.command(MCP_STATUS_COMMAND)
    async def mcp_status(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        await ls.mcp.sync()
        return ls.mcp.status()

    @server.command(APPROVE_MCP_COMMAND)
    async def approve_mcp(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        return await ls.mcp.approve(_server_name(APPROVE_MCP_COMMAND, args))

    @server.command(RESTART_MCP_COMMAND)
    async def restart_mcp(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        return await ls.mcp.restart(_server_name(RESTART_MCP_COMMAND, args))

    @server.command(BACKGROUND_TASKS_COMMAND)
    def list_background(ls: HandrailServer, *args: Any) -> list[dict[str, str]]:
        from handrail.server import commands

        return commands.background_tasks(ls, _single_argument(args))

    @server.command(CANCEL_COMMAND)
    def cancel(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        from handrail.server import commands

        return commands.cancel(ls, _single_argument(args))

    register_mcp_commands(server)
    return server
