"""The handrail language server: LSP features, commands, and the wiring of sessions to the editor."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from handrail import __version__
from handrail.permissions.context import PermissionContext
from handrail.permissions.settings import PERMISSION_MODES, PermissionMode
from handrail.permissions.trust import Approvals
from handrail.permissions.workspace import WorkspacePermissions
from handrail.server.agent_loop import TurnConfig, TurnResult, run_turn
from handrail.server.ask_user import LspQuestions
from handrail.server.audit import AuditFile
from handrail.server.background_events import BackgroundWatch, background_listing
from handrail.server.chat import ChatChannel, begin_progress, end_progress
from handrail.server.client_features import ClientFeatures
from handrail.server.diagnostics_store import DiagnosticsStore, EditorDiagnosticsView
from handrail.server.documents import BlockDocument
from handrail.server.editor_fs import DocumentWatch, EditorFileSystem
from handrail.server.framing import TOO_LARGE_METHOD, refusal_message
from handrail.server.lsp_values import field_of, to_plain
from handrail.server.mcp_manager import McpManager, ask_with_message_request
from handrail.server.model_client import ModelClient, ModelSettings
from handrail.server.permission_state import PermissionState, is_settings_file
from handrail.server.persistence import SessionArchive
from handrail.server.project_instructions import NestedInstructions, root_instructions
from handrail.server.prompter import LspPrompter
from handrail.server.protocol import HandrailProtocol
from handrail.server.retention import remove_old_session_files
from handrail.server.session import Session, SessionCatalog, SessionStore
from handrail.server.session_modes import SessionModes, set_session_mode
from handrail.server.session_todos import SessionTodos
from handrail.server.settings import AgentSettings, load_settings
from handrail.server.skill_host import (
    ProblemReporter,
    SessionSkills,
    load_skills,
    pending_skill_approvals,
    skill_pool_tools,
)
from handrail.server.small_model import ClientSmallModel
from handrail.server.storage import TOOL_RESULTS_DIR, session_storage, sessions_dir
from handrail.server.subagents import AgentCatalogSource, SubAgents, agent_pool_tools
from handrail.server.system_prompt import system_prompt
from handrail.server.usage import TurnUsage
from handrail.server.watcher import WorkspaceWatcher
from handrail.server.web_search import server_tools
from handrail.tools.context import ToolOptions, ToolUseContext
from handrail.tools.live_pool import LiveToolPool
from handrail.tools.mcp.config import MCP_JSON
from handrail.tools.registry import assemble_tool_pool, simple_mode
from handrail.tools.skills import SkillCatalog

log = logging.getLogger(__name__)

ASK_COMMAND = "handrail.ask"
CANCEL_COMMAND = "handrail.cancel"
SET_MODE_COMMAND = "handrail.setMode"
PERMISSIONS_COMMAND = "handrail.permissions"
APPROVE_COMMAND = "handrail.approveProjectSettings"
MCP_STATUS_COMMAND = "handrail.mcpStatus"
APPROVE_MCP_COMMAND = "handrail.approveMcpServer"
RESTART_MCP_COMMAND = "handrail.restartMcpServer"
BACKGROUND_TASKS_COMMAND = "handrail.backgroundTasks"
SHUTDOWN_GRACE_SECONDS = 5.0


class AskParams(BaseModel):
    """Arguments of `handrail.ask`."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")
    prompt: str = Field(min_length=1)
    session_id: str | None = Field(default=None, alias="sessionId")


class CancelParams(BaseModel):
    """Arguments of `handrail.cancel`."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")
    session_id: str = Field(alias="sessionId")


class SetModeParams(BaseModel):
    """Arguments of `handrail.setMode` (without a session: the server's default for every session)."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")
    mode: PermissionMode
    session_id: str | None = Field(default=None, alias="sessionId")


class HandrailServer(LanguageServer):
    """The language server and the state it keeps across requests."""

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
        self.sessions = SessionStore()
        self.archive = SessionArchive()
        self.document_watch = DocumentWatch()
        self.diagnostics = DiagnosticsStore(self._diagnostic_column)
        self.init_options: dict[str, Any] = {}
        self.pushed_settings: dict[str, Any] = {}
        self.features = ClientFeatures()
        self.watcher: WorkspaceWatcher | None = None
        self._model_clients: dict[ModelSettings, ModelClient] = {}
        self.permission_state = PermissionState(self.workspace_roots, lambda: self.init_options, self.warn)
        self.mcp = McpManager(self, self.permission_state, self.workspace_roots)
        self.default_mode: PermissionMode | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self.shutting_down = False
        self.agent_catalogs = AgentCatalogSource(self.warn)
        self.background_watch = BackgroundWatch(self)
        self.skill_problems = ProblemReporter(self.warn, "skill")

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

    async def refresh_permissions(self) -> None:
        """Reload the settings files and give every session its new context."""
        await self.permission_state.refresh()
        for session in self.sessions.all():
            self.update_session_context(session)

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
        if settings not in self._model_clients:
            self._model_clients[settings] = ModelClient(settings)
        return self._model_clients[settings]

    async def agent_settings(self) -> AgentSettings:
        """Settings for a turn: asked of the client when it supports workspace/configuration."""
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
        if is_settings_file(path) and self.permission_state.current is not None:
            self.in_background(self.refresh_permissions())
        if is_settings_file(path) or path.name == MCP_JSON:  # a changed definition stops until approved again
            self.in_background(self.mcp.sync())
        for session in self.sessions.all():
            record = session.file_state.get(path)
            if record is not None and record.content_hash != content_hash:
                session.file_state.mark_changed(path)


def _single_argument(args: tuple[Any, ...]) -> Any:
    if len(args) != 1:
        raise JsonRpcInvalidParams(f"expected one argument object, got {len(args)}")
    return to_plain(args[0])


def _server_name(command: str, args: tuple[Any, ...]) -> str:
    """The MCP server a command's single `{name}` argument names."""
    name = field_of(_single_argument(args), "name")
    if not isinstance(name, str) or not name:
        raise JsonRpcInvalidParams(f"{command}: expected [{{name}}]")
    return name


def create_server() -> HandrailServer:
    """Build the server with every feature and command registered."""
    server = HandrailServer()

    @server.feature(types.INITIALIZE)
    def on_initialize(ls: HandrailServer, params: types.InitializeParams) -> None:
        ls.protocol.adopt_block_documents()
        options = to_plain(params.initialization_options)
        ls.init_options = options if isinstance(options, dict) else {}
        ls.features = ClientFeatures.from_capabilities(params.capabilities)
        trusted = ls.init_options.get("workspaceTrusted")
        ls.permission_state.client_trusted = trusted if isinstance(trusted, bool) else None

    @server.feature(types.INITIALIZED)
    def on_initialized(ls: HandrailServer, params: types.InitializedParams) -> None:
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
    async def ask(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        ls.protocol.track_current_request()
        try:
            params = AskParams.model_validate(_single_argument(args))
        except ValidationError as exc:
            raise JsonRpcInvalidParams(f"handrail.ask: {exc}") from exc
        return await _ask(ls, params)

    @server.feature("handrail/diagnostics")
    def on_diagnostics(ls: HandrailServer, params: Any) -> None:
        ls.diagnostics.update(to_plain(params))

    @server.feature("handrail/didChangeTrust")
    async def on_trust(ls: HandrailServer, params: Any) -> None:
        trusted = field_of(params, "trusted")
        ls.permission_state.client_trusted = trusted if isinstance(trusted, bool) else None
        await ls.refresh_permissions()
        await ls.mcp.sync(reload=False)

    @server.command(SET_MODE_COMMAND)
    async def set_mode(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        argument = _single_argument(args)
        try:
            params = SetModeParams.model_validate(argument)
        except ValidationError as exc:
            given = field_of(argument, "mode")
            modes = ", ".join(PERMISSION_MODES)
            raise JsonRpcInvalidParams(f"handrail.setMode: unknown mode {given!r}; choose one of: {modes}") from exc
        await ls.permission_state.refresh()
        try:
            ls.permission_state.context_for((), params.mode)
        except ValueError as exc:
            raise JsonRpcInvalidParams(f"handrail.setMode: {exc}") from exc
        session = ls.sessions.get(params.session_id) if params.session_id else None
        if session is None and params.session_id:  # a client may name its session before the first ask
            session = ls.sessions.create(ls.permission_state.context_for((), None), params.session_id)
        if session is None:
            ls.default_mode = params.mode
            for existing in ls.sessions.all():
                ls.update_session_context(existing)
                ChatChannel(ls, existing.id, None).mode(existing.permission_context.mode)
            return {"mode": params.mode, "scope": "server"}
        set_session_mode(session, params.mode, ls.update_session_context)
        ChatChannel(ls, session.id, None).mode(session.permission_context.mode)
        return {"mode": params.mode, "scope": "session", "sessionId": session.id}

    @server.command(PERMISSIONS_COMMAND)
    async def permissions(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        current = await ls.permission_state.refresh()
        session_id = field_of(to_plain(args[0]), "sessionId") if args else None
        session = ls.sessions.get(session_id) if isinstance(session_id, str) else None
        context = session.permission_context if session is not None else current.context
        return describe_context(context, current)

    @server.command(APPROVE_COMMAND)
    async def approve(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        approved = await ls.permission_state.approve_project_files()
        approved += await _approve_project_skills(ls)
        for session in ls.sessions.all():
            ls.update_session_context(session)
        return {"approved": approved}

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
        session_id = field_of(_single_argument(args), "sessionId")
        if not isinstance(session_id, str):
            raise JsonRpcInvalidParams("handrail.backgroundTasks: expected [{sessionId}]")
        session = ls.sessions.get(session_id)  # a session not started yet has no background work
        return background_listing(session) if session is not None else []

    @server.command(CANCEL_COMMAND)
    def cancel(ls: HandrailServer, *args: Any) -> dict[str, Any]:
        try:
            params = CancelParams.model_validate(_single_argument(args))
        except ValidationError as exc:
            raise JsonRpcInvalidParams(f"handrail.cancel: {exc}") from exc
        session = ls.sessions.get(params.session_id)
        if session is None or not session.busy or session.turn is None:
            return {"cancelled": False}
        session.turn.cancel()
        return {"cancelled": True}

    return server


def _approvals(ls: HandrailServer) -> Approvals:
    current = ls.permission_state.current
    return current.approvals if current is not None else Approvals()


async def _approve_project_skills(ls: HandrailServer) -> int:
    """Approve the current content of the trusted project skills whose allowed-tools wait for it."""
    skills = await load_skills(ls.workspace_roots(), _approvals(ls), ls.skill_problems)
    pending = pending_skill_approvals(skills, _approvals(ls))
    await ls.permission_state.approve_digests([(skill.path, skill.digest) for skill in pending])
    return len(pending)


APPROVE = "Approve"
NOT_NOW = "Not now"


async def _offer_project_approval(ls: HandrailServer, skills: SkillCatalog) -> None:
    """Ask once per content whether the project's settings (allow rules, hooks…) and skills' allowed-tools apply."""
    state = ls.permission_state
    files = state.pending_approvals()
    waiting = [s for s in pending_skill_approvals(skills, _approvals(ls)) if not state.was_asked(s.digest)]
    if not files and not waiting:
        return
    state.mark_asked(skill.digest for skill in waiting)
    what = []
    if files:
        what.append(f"settings ({', '.join(str(path) for path in files)}) allow tools or run hooks")
    if waiting:
        what.append(f"skills ({', '.join(skill.name for skill in waiting)}) allow tools while they are active")
    message = (
        f"This workspace's {' and its '.join(what)}. They stay inactive (only deny and ask rules apply) until you "
        "approve this exact content. Approve?"
    )
    try:
        choice = await ls.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Warning,
                message=message,
                actions=[types.MessageActionItem(title=APPROVE), types.MessageActionItem(title=NOT_NOW)],
            )
        )
    except Exception as exc:
        log.warning("could not ask about project settings: %s", exc)
        return
    if field_of(choice, "title") != APPROVE:
        return
    if files:
        await state.approve_project_files()
    await state.approve_digests([(skill.path, skill.digest) for skill in waiting])


def describe_context(context: PermissionContext, current: WorkspacePermissions) -> dict[str, Any]:
    """The rules in force and those that are not (with why), for users debugging their settings."""

    def rules(behavior: Any) -> list[dict[str, str]]:
        return [{"rule": str(r), "source": r.source} for r in context.rules(behavior)]

    return {
        "mode": context.mode,
        "workingDirectories": [str(p) for p in context.working_directories],
        "allow": rules("allow"),
        "deny": rules("deny"),
        "ask": rules("ask"),
        "inactive": [
            {"rule": str(r.rule), "behavior": r.behavior, "source": r.rule.source, "reason": r.reason}
            for r in context.inactive_rules
        ]
        + [{"setting": s.key, "source": s.source, "reason": s.reason} for s in context.inactive_settings],
        "problems": [{"file": str(p.file), "message": p.message, "rule": p.rule} for p in current.problems],
    }


async def _ask(ls: HandrailServer, params: AskParams) -> dict[str, Any]:
    roots = ls.workspace_roots()
    session = ls.sessions.get(params.session_id) if params.session_id else None
    if session is None:
        session = ls.sessions.create(PermissionContext(workspace_roots=roots), params.session_id)
    if session.busy:
        raise JsonRpcInvalidRequest(f"session {session.id} is still running a turn; cancel it or wait")
    session.starting = True  # claimed before the first await, so a second ask sees it busy
    try:
        if params.session_id:  # a session from before a restart continues from its transcript
            await ls.archive.resume(session)
        return await _run_ask(ls, session, params, roots)
    finally:
        session.starting = False
        if session.turn_rules:  # what skills granted ends with the turn (background work must not keep it)
            session.turn_rules.clear()
            ls.update_session_context(session)


async def _run_ask(ls: HandrailServer, session: Session, params: AskParams, roots: tuple[Path, ...]) -> dict[str, Any]:
    await ls.permission_state.refresh()
    skills = await load_skills(roots, _approvals(ls), ls.skill_problems)
    await _offer_project_approval(ls, skills)
    await ls.mcp.sync(reload=False)
    await ls.mcp.offer_approvals(lambda message, actions: ask_with_message_request(ls, message, actions))
    ls.update_session_context(session)
    settings = await ls.agent_settings()
    token = await begin_progress(ls, "handrail")
    chat = ChatChannel(ls, session.id, token)
    simple = simple_mode(setting=settings.simple_tools)
    agents_catalog = await ls.agent_catalogs.load(roots, _approvals(ls))
    extra_builtins = (
        *agent_pool_tools(agents_catalog, session.permission_context, simple=simple),
        *skill_pool_tools(skills, session.permission_context, simple=simple),
        *ls.mcp.resource_tools(),
    )
    context = session.permission_context  # as at the turn's start, like the built-ins: the cached prefix holds
    pool = LiveToolPool(  # MCP servers' tools/list_changed reach the turn's next request
        ls.mcp.tools,
        lambda mcp_tools: assemble_tool_pool(context, mcp_tools, simple=simple, extra_builtins=extra_builtins),
    )
    catalog = SessionCatalog(session, pool)
    deferred = tuple(t.name for t in pool.deferred())
    sent_names = tuple(t.name for t in pool.tools if t.name not in deferred)
    fs = EditorFileSystem(
        ls, ls.document_watch, lambda: ls.features.save_document, lambda: ls.features.create_files
    )
    prompter = LspPrompter(ls, ls.features, chat, ls.permission_state.persist_rule)
    questions = LspQuestions(ls, ls.features, chat)
    small_model = ClientSmallModel(ls.model_client(settings.small_model)) if settings.small_model else None
    diagnostics = EditorDiagnosticsView(ls.diagnostics, fs, lambda: ls.features.diagnostics)
    options = ToolOptions(
        cwd=roots[0],
        workspace_roots=roots,
        tool_names=tuple(t.name for t in pool.tools),
        results_dir=session_storage(session.id) / TOOL_RESULTS_DIR,
        session_id=session.id,
    )
    audit = AuditFile(session_storage(session.id) / "audit.jsonl")
    instructions = await asyncio.to_thread(root_instructions, roots)
    usage = TurnUsage()
    agents = SubAgents(
        parent=session,
        tools=pool.tools,
        catalog=agents_catalog,
        model_settings=settings.model,
        models=ls.model_client,
        roots=roots,
        instructions=instructions,
        max_turns=settings.max_turns,
        usage=usage,
        chat=chat,
        prompter=prompter,
    )
    todos = SessionTodos(session, chat)
    ls.background_watch.watch(session)

    def make_context(current: Session) -> ToolUseContext:
        return ToolUseContext(
            options=options,
            fs=fs,
            file_state=current.file_state,
            prompter=prompter,
            progress=chat,
            permission_context=current.permission_context,
            messages=current.messages,
            catalog=catalog,
            audit=audit,
            permission_updates=current.updates,
            shell=current.shell,
            agents=agents,
            todos=todos,
            questions=questions,
            modes=SessionModes(current, ls.update_session_context, chat),
            small_model=small_model,
            diagnostics=diagnostics,
            background_agents=current.background_agents,
            skills=SessionSkills(session, skills, lambda: _approvals(ls), ls.update_session_context),
        )

    config = TurnConfig(
        model=ls.model_client(settings.model),
        tools=pool.tools,
        system=system_prompt(roots[0], roots, sent_names, deferred, instructions, skills=skills.descriptions()),
        definitions=lambda: [
            *pool.definitions(session.loaded_tools),
            *server_tools(settings.web_search, settings.model.model, session.permission_context),
        ],
        max_turns=settings.max_turns,
        on_history=lambda: ls.archive.save_soon(session),
        usage=usage,
        reminders=NestedInstructions(roots, roots[0], pool.tools, session.instruction_files).reminders,
    )
    if ls.shutting_down:
        end_progress(ls, token, "cancelled")
        return {"sessionId": session.id, "stopReason": "cancelled", "text": ""}
    chat.turn_started(params.prompt)
    turn = asyncio.create_task(run_turn(session, params.prompt, config, chat, make_context))
    session.turn = turn
    if token is not None:
        ls.work_done_progress.tokens[token].add_done_callback(lambda _: turn.cancel())
    try:
        result = await asyncio.shield(turn)
    except asyncio.CancelledError:
        if not turn.done():  # our request was cancelled ($/cancelRequest): stop the turn, then give up
            turn.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await turn
            await ls.archive.save(session)
            chat.turn_ended("cancelled", chat.streamed_text, usage.as_json())
            end_progress(ls, token, "cancelled")
            raise
        result = TurnResult("cancelled", chat.streamed_text)
    except Exception as exc:
        log.exception("turn failed")
        result = TurnResult("error", f"handrail failed: {type(exc).__name__}: {exc}")
    await asyncio.to_thread(audit.flush)
    await ls.archive.save(session)
    chat.turn_ended(result.stop_reason, result.text, usage.as_json())
    end_progress(ls, token, result.stop_reason)
    return {"sessionId": session.id, "stopReason": result.stop_reason, "text": result.text}
