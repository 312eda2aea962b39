"""The editor ports over LSP: what the agent's operations reach the editor through (agent/ports.py)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from handrail.agent.mcp_manager import APPROVE, NOT_NOW
from handrail.agent.ports import EditorPorts, RulePersister, TurnView
from handrail.lsp.ask_user import LspQuestions
from handrail.lsp.chat import ChatChannel, begin_progress
from handrail.lsp.diagnostics_store import EditorDiagnosticsView
from handrail.lsp.editor_fs import EditorFileSystem
from handrail.lsp.lsp_values import field_of
from handrail.lsp.plain_prompts import send_cancellable
from handrail.lsp.prompter import LspPrompter
from handrail.wire.models import McpApprovalParams, to_wire
from handrail.wire.names import MCP_APPROVAL_METHOD

if TYPE_CHECKING:
    from handrail.lsp.server import HandrailServer

log = logging.getLogger(__name__)
TURN_PROGRESS_TITLE = "handrail"


class LspDialogs:
    """Plain questions as `window/showMessageRequest`; a workspace MCP server's approval as
    `handrail/mcpApproval` where the client declared it."""

    def __init__(self, server: HandrailServer) -> None:
        self._server = server

    async def choose(self, message: str, actions: Sequence[str]) -> str | None:
        """The chosen action's title (None when dismissed, or when the editor could not ask)."""
        answer = await self._server.plain_prompts.ask(
            types.ShowMessageRequestParams(
                type=types.MessageType.Warning,
                message=message,
                actions=[types.MessageActionItem(title=title) for title in actions],
            )
        )
        return answer.title

    async def approve_server(self, session_id: str, server: str, question: str) -> bool:
        """A card in the session's chat (`handrail/mcpApproval`) where the client declared it, else
        `window/showMessageRequest` with Approve / Not now."""
        if not self._server.features.mcp_approval:
            return await self.choose(question, [NOT_NOW, APPROVE]) == APPROVE  # the safe action first
        params = McpApprovalParams(session_id=session_id, server=server, question=question)
        answer = await send_cancellable(self._server, MCP_APPROVAL_METHOD, to_wire(params))
        return field_of(answer, "approved") is True


class LspChats:
    """Sessions' chats as `handrail/chat` notifications; a turn's progress as work-done progress."""

    def __init__(self, server: HandrailServer) -> None:
        self._server = server

    async def begin_turn(self, session_id: str, persist: RulePersister) -> TurnView:
        """Start the turn's progress (where the client shows it) and its chat; its prompts go through both."""
        server = self._server
        token = await begin_progress(server, TURN_PROGRESS_TITLE)
        chat = ChatChannel(server, session_id, token)
        return TurnView(
            chat=chat,
            prompter=LspPrompter(server, server.features, chat, persist, server.plain_prompts),
            questions=LspQuestions(server, server.features, chat, server.plain_prompts),
        )

    def session(self, session_id: str) -> ChatChannel:
        """A session's chat outside a turn."""
        return ChatChannel(self._server, session_id, None)


class LspClientSettings:
    """The `handrail` section: pushed by `workspace/didChangeConfiguration`, then asked with
    `workspace/configuration` where the client supports it."""

    def __init__(self, server: HandrailServer) -> None:
        self._server = server

    async def section(self) -> Mapping[str, Any]:
        """The section as the client has it now (what it pushed, updated by what it answers)."""
        server = self._server
        section: dict[str, Any] = dict(server.pushed_settings)
        workspace_caps = server.client_capabilities.workspace
        if workspace_caps is not None and workspace_caps.configuration:
            try:
                values = await server.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section="handrail")])
                )
                if values and isinstance(values[0], dict):
                    section.update(values[0])
            except Exception as exc:
                log.warning("workspace/configuration failed: %s", exc)
        return section


def editor_ports(server: HandrailServer) -> EditorPorts:
    """The ports of one operation: a fresh view of the editor's files, the rest over the connection."""
    files = EditorFileSystem(
        server,
        server.document_watch,
        lambda: server.features.save_document,
        lambda: server.features.create_files,
        lambda: server.features.share_document,
    )
    return EditorPorts(
        files=files,
        diagnostics=EditorDiagnosticsView(server.diagnostics, files, lambda: server.features.diagnostics),
        dialogs=LspDialogs(server),
        chats=LspChats(server),
        settings=LspClientSettings(server),
    )
