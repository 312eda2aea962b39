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
from handrail.server.agent_loop import TurnConfig, TurnResult, run_turn
from handrail.server.chat import ChatChannel, begin_progress, end_progress
from handrail.server.client_features import ClientFeatures
from handrail.server.editor_fs import DocumentWatch, EditorFileSystem
from handrail.server.lsp_values import to_plain
from handrail.server.model_client import ModelClient, ModelSettings
from handrail.server.prompter import LspPrompter
from handrail.server.protocol import HandrailProtocol
from handrail.server.session import Session, SessionCatalog, SessionStore
from handrail.server.settings import AgentSettings, load_settings
from handrail.server.storage import session_storage
from handrail.server.system_prompt import system_prompt
from handrail.server.watcher import WorkspaceWatcher
from handrail.tools.context import ToolOptions, ToolUseContext
from handrail.tools.registry import assemble_tool_pool, simple_mode

log = logging.getLogger(__name__)

ASK_COMMAND = "handrail.ask"
CANCEL_COMMAND = "handrail.cancel"


class AskParams(BaseModel):
    """Arguments of `handrail.ask`."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")
    prompt: str = Field(min_length=1)
    session_id: str | None = Field(default=None, alias="sessionId")


class CancelParams(BaseModel):
    """Arguments of `handrail.cancel`."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")
    session_id: str = Field(alias="sessionId")


class HandrailServer(LanguageServer):
    """The language server and the state it keeps across requests."""

    protocol: HandrailProtocol

    def __init__(self) -> None:
        super().__init__(
            "handrail",
            __version__,
            protocol_cls=HandrailProtocol,
            # Full sync: pygls's incremental sync splits lines like str.splitlines and
            # corrupts documents holding form feeds or U+2028 (see shared notes).
            text_document_sync_kind=types.TextDocumentSyncKind.Full,
        )
        self.sessions = SessionStore()
        self.document_watch = DocumentWatch()
        self.init_options: dict[str, Any] = {}
        self.pushed_settings: dict[str, Any] = {}
        self.features = ClientFeatures()
        self.watcher: WorkspaceWatcher | None = None
        self._model_clients: dict[ModelSettings, ModelClient] = {}

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
        for session in self.sessions.all():
            record = session.file_state.get(path)
            if record is not None and record.content_hash != content_hash:
                session.file_state.mark_changed(path)


def _single_argument(args: tuple[Any, ...]) -> Any:
    if len(args) != 1:
        raise JsonRpcInvalidParams(f"expected one argument object, got {len(args)}")
    return to_plain(args[0])


def create_server() -> HandrailServer:
    """Build the server with every feature and command registered."""
    server = HandrailServer()

    @server.feature(types.INITIALIZE)
    def on_initialize(ls: HandrailServer, params: types.InitializeParams) -> None:
        options = to_plain(params.initialization_options)
        ls.init_options = options if isinstance(options, dict) else {}
        ls.features = ClientFeatures.from_capabilities(params.capabilities)

    @server.feature(types.INITIALIZED)
    def on_initialized(ls: HandrailServer, params: types.InitializedParams) -> None:
        if ls.init_options.get("watchFiles", True) is not False:
            ls.watcher = WorkspaceWatcher(asyncio.get_running_loop(), ls.on_disk_change)
            try:
                ls.watcher.start(ls.workspace_roots())
            except Exception as exc:  # e.g. out of inotify watches: work on without the watcher
                log.warning("file watcher not started: %s", exc)
                ls.watcher = None

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

    @server.feature(types.SHUTDOWN)
    async def on_shutdown(ls: HandrailServer, params: Any = None) -> None:
        turns = [s.turn for s in ls.sessions.all() if s.turn is not None and not s.turn.done()]
        for turn in turns:
            turn.cancel()
        if turns:
            await asyncio.gather(*turns, return_exceptions=True)
        if ls.watcher is not None:
            ls.watcher.stop()
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


async def _ask(ls: HandrailServer, params: AskParams) -> dict[str, Any]:
    roots = ls.workspace_roots()
    session = ls.sessions.get(params.session_id) if params.session_id else None
    if session is None:
        session = ls.sessions.create(PermissionContext(workspace_roots=roots), params.session_id)
    if session.busy:
        raise JsonRpcInvalidRequest(f"session {session.id} is still running a turn; cancel it or wait")
    settings = await ls.agent_settings()
    token = await begin_progress(ls, "handrail")
    chat = ChatChannel(ls, session.id, token)
    pool = assemble_tool_pool(session.permission_context, simple=simple_mode(setting=settings.simple_tools))
    catalog = SessionCatalog(session, pool)
    deferred = tuple(t.name for t in pool.deferred())
    sent_names = tuple(t.name for t in pool.tools if t.name not in deferred)
    fs = EditorFileSystem(
        ls, ls.document_watch, lambda: ls.features.save_document, lambda: ls.features.create_files
    )
    prompter = LspPrompter(ls, ls.features, chat)
    options = ToolOptions(
        cwd=roots[0],
        workspace_roots=roots,
        tool_names=tuple(t.name for t in pool.tools),
        results_dir=session_storage(session.id) / "tool-results",
    )

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
        )

    config = TurnConfig(
        model=ls.model_client(settings.model),
        tools=pool.tools,
        system=system_prompt(roots[0], roots, sent_names, deferred),
        definitions=lambda: pool.definitions(session.loaded_tools),
        max_turns=settings.max_turns,
    )
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
            chat.turn_ended("cancelled", chat.streamed_text)
            end_progress(ls, token, "cancelled")
            raise
        result = TurnResult("cancelled", chat.streamed_text)
    except Exception as exc:
        log.exception("turn failed")
        result = TurnResult("error", f"handrail failed: {type(exc).__name__}: {exc}")
    chat.turn_ended(result.stop_reason, result.text)
    end_progress(ls, token, result.stop_reason)
    return {"sessionId": session.id, "stopReason": result.stop_reason, "text": result.text}
