"""The handrail language server's handlers: each LSP method and command, registered and handed on.

Registering them loads only the LSP side (names come from `handrail.wire.names`); a handler imports
what it hands on to (the agent host, the command table) when it first runs, after `initialize`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.uris import to_fs_path

from handrail.lsp.client_features import ClientFeatures
from handrail.lsp.framing import TOO_LARGE_METHOD, refusal_message
from handrail.lsp.lsp_values import field_of, to_plain
from handrail.lsp.server import HandrailServer
from handrail.wire import names

SHUTDOWN_GRACE_SECONDS = 5.0


def create_server() -> HandrailServer:
    """Build the server with every feature and command registered."""
    server = HandrailServer()

    @server.feature(types.INITIALIZE)
    def on_initialize(ls: HandrailServer, params: types.InitializeParams) -> None:
        ls.protocol.adopt_block_documents()
        options = to_plain(params.initialization_options)
        ls.options = options if isinstance(options, dict) else {}
        ls.features = ClientFeatures.from_capabilities(params.capabilities)
        trusted = ls.options.get("workspaceTrusted")
        ls.trusted = trusted if isinstance(trusted, bool) else None

    @server.feature(types.INITIALIZED)
    def on_initialized(ls: HandrailServer, params: types.InitializedParams) -> None:
        ls.agent.start()
        if ls.options.get("watchFiles", True) is not False:
            from handrail.lsp.settings_watch import follow_settings_files

            ls.agent.in_background(follow_settings_files(ls))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def on_configuration(ls: HandrailServer, params: types.DidChangeConfigurationParams) -> None:
        settings = to_plain(params.settings)
        if isinstance(settings, dict) and isinstance(settings.get("handrail"), dict):
            ls.pushed_settings = settings["handrail"]

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def on_watched_files(ls: HandrailServer, params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            path = to_fs_path(change.uri)
            if path:
                ls.agent.on_watched_change(Path(path))

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def on_folders(ls: HandrailServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        await ls.agent.roots_changed()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def on_open(ls: HandrailServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.document_watch.changed()

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def on_change(ls: HandrailServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.document_watch.changed()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def on_close(ls: HandrailServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.document_watch.changed()

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
    def on_code_action(ls: HandrailServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        from handrail.lsp.code_actions import ask_actions

        document = ls.workspace.text_documents.get(params.text_document.uri)
        return ask_actions(document, params.range) if document is not None else []

    @server.feature(TOO_LARGE_METHOD)
    def on_too_large(ls: HandrailServer, params: Any) -> None:
        message = refusal_message(to_plain(params))
        if ls.protocol.msg_id is None:  # a notification: nobody gets an answer, so tell the user
            ls.warn(message)
            return
        raise JsonRpcInvalidRequest(message)

    @server.feature(types.SHUTDOWN)
    async def on_shutdown(ls: HandrailServer, params: Any = None) -> None:
        await ls.agent.stop_turns()  # no new turn starts from here on
        # let the commands whose turns just stopped send their answers before pygls stops answering;
        # one still waiting on the client (a prompt, configuration) is cancelled after a grace period
        commands = [t for t in ls.protocol.running_commands.values() if not t.done()]
        if commands:
            _, pending = await asyncio.wait(commands, timeout=SHUTDOWN_GRACE_SECONDS)
            for command in pending:
                command.cancel()
            if pending:
                await asyncio.wait(pending)
        await ls.agent.close()

    @server.feature(types.EXIT)
    def on_exit(ls: HandrailServer, params: Any = None) -> None:
        if ls.exit_at_once:
            from handrail.lsp.process_exit import exit_now

            exit_now(0 if ls.protocol._shutdown else 1)  # pygls's exit codes (its own handler runs otherwise)

    @server.feature(names.DIAGNOSTICS_METHOD)
    def on_diagnostics(ls: HandrailServer, params: Any) -> None:
        ls.diagnostics.update(to_plain(params))

    @server.feature(names.DID_CHANGE_TRUST_METHOD)
    async def on_trust(ls: HandrailServer, params: Any) -> None:
        trusted = field_of(params, "trusted")
        ls.trusted = trusted if isinstance(trusted, bool) else None
        await ls.agent.trust_changed()

    for command in names.COMMANDS:
        _register_command(server, command)
    return server


def _register_command(server: HandrailServer, command: str) -> None:
    """Register `command`: its arguments are checked against its parameter model, the agent host runs it."""

    @server.command(command)
    async def run(ls: HandrailServer, *args: Any) -> Any:
        from handrail.lsp.commands import run_command

        return await run_command(ls, command, args)
