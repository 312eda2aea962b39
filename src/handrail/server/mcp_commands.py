"""The MCP commands beyond status, approval and restart: prompts, resources to mention, sign-in and sign-out;
and the workspace-folder changes the MCP servers are told about (their roots)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from handrail.server.command_names import (
    MCP_PROMPTS_COMMAND,
    MCP_RESOURCES_COMMAND,
    RUN_MCP_PROMPT_COMMAND,
    SIGN_IN_MCP_COMMAND,
    SIGN_OUT_MCP_COMMAND,
)
from handrail.server.lsp_values import name_argument, single_argument

if TYPE_CHECKING:
    from handrail.server.app import HandrailServer


def register_mcp_commands(server: HandrailServer) -> None:
    """Register the commands and the workspace-folder handler on `server`.

    The handlers use `server` itself: pygls resolves a handler's annotations at run time, and
    `HandrailServer` is only imported for type checking here (app.py imports this module).
    """

    @server.command(MCP_PROMPTS_COMMAND)
    async def mcp_prompts(ls: LanguageServer, *args: Any) -> dict[str, Any]:
        from handrail.server.mcp_prompts import list_prompts

        return await list_prompts(server)

    @server.command(MCP_RESOURCES_COMMAND)
    async def mcp_resources(ls: LanguageServer, *args: Any) -> dict[str, Any]:
        from handrail.tools.mcp.mentions import mentionable

        return {"resources": await mentionable(server.mcp.connections())}

    @server.command(RUN_MCP_PROMPT_COMMAND)
    async def run_mcp_prompt(ls: LanguageServer, *args: Any) -> dict[str, Any]:
        server.protocol.track_current_request()  # a turn: $/cancelRequest stops it, as for handrail.ask
        from handrail.server.mcp_prompts import run_prompt

        return await run_prompt(server, single_argument(args))

    @server.command(SIGN_IN_MCP_COMMAND)
    async def sign_in(ls: LanguageServer, *args: Any) -> dict[str, Any]:
        return await server.mcp.sign_in(name_argument(SIGN_IN_MCP_COMMAND, args))

    @server.command(SIGN_OUT_MCP_COMMAND)
    async def sign_out(ls: LanguageServer, *args: Any) -> dict[str, Any]:
        return await server.mcp.sign_out(name_argument(SIGN_OUT_MCP_COMMAND, args))

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def on_folders(ls: LanguageServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        server.mcp.roots_changed()  # pygls has updated the workspace already
