"""MCP prompts for the user: `handrail.mcpPrompts` lists them, `handrail.runMcpPrompt` runs one as the user's
turn, and `/mcp__<server>__<prompt> args` typed as the prompt of `handrail.ask` does the same (as in Claude Code).

A prompt is the user's own choice, so running it asks no permission; what it renders
becomes the content of the user's turn. A wrong call (unknown prompt, a missing or
unknown argument) is answered with an InvalidParams error that says how to call it.
"""

from __future__ import annotations

from typing import Any

from handrail.agent.mcp_manager import McpManager
from handrail.tools.mcp.model import McpConnectionLostError, McpPromptSpec, McpRequestError
from handrail.tools.mcp.prompts import (
    PromptUsageError,
    bind_words,
    check_arguments,
    parse_slash,
    prompt_command,
    prompt_content,
    usage,
)
from handrail.tools.messages import ToolResultContent
from handrail.wire.errors import InvalidParams, RequestRefused
from handrail.wire.models import McpPrompt, McpPromptArgument, McpPromptList, RunMcpPromptParams

MAX_LISTED_IN_ERRORS = 20


class PromptFailed(RequestRefused):
    """The server could not render the prompt (an internal error, as JSON-RPC counts it)."""

    code = -32603


async def list_prompts(mcp: McpManager) -> McpPromptList:
    """`handrail.mcpPrompts`: every prompt of the connected servers, with the command that runs it."""
    listed = []
    for server, spec in await mcp.prompts():
        command = prompt_command(server, spec.name)
        arguments = [McpPromptArgument(name=a.name, description=a.description, required=a.required)
                     for a in spec.arguments]
        listed.append(McpPrompt(
            server=server, name=spec.name, title=spec.title, description=spec.description,
            command=f"/{command}", usage=usage(spec, command), arguments=arguments,
        ))
    return McpPromptList(prompts=listed)


async def _find(mcp: McpManager, *, command: str | None = None, server: str | None = None,
                name: str | None = None) -> tuple[str, McpPromptSpec]:
    found = await mcp.prompts()
    for candidate_server, spec in found:
        if command is not None and prompt_command(candidate_server, spec.name) == command:
            return candidate_server, spec
        if command is None and candidate_server == server and spec.name == name:
            return candidate_server, spec
    wanted = f"/{command}" if command is not None else f"{name!r} of the MCP server {server!r}"
    known = [f"/{prompt_command(s, p.name)}" for s, p in found][:MAX_LISTED_IN_ERRORS]
    raise InvalidParams(
        f"no MCP prompt {wanted} (connected servers' prompts: {', '.join(known) or 'none'})"
    )


async def _render(
    mcp: McpManager, server: str, spec: McpPromptSpec, arguments: dict[str, str]
) -> list[ToolResultContent]:
    connection = mcp.connections().get(server)
    if connection is None:
        raise InvalidParams(f"the MCP server {server!r} is not connected")
    try:
        messages = await connection.get_prompt(spec.name, arguments)
    except (McpRequestError, McpConnectionLostError) as exc:
        failure = f"the MCP server {server!r} could not render the prompt {spec.name!r}: {exc}"
        raise PromptFailed(failure) from exc
    content = prompt_content(messages)
    if not content:
        raise PromptFailed(f"the MCP server {server!r} rendered the prompt {spec.name!r} as nothing")
    return content


async def slash_content(mcp: McpManager, text: str) -> list[ToolResultContent] | None:
    """The content of the user's turn when `text` is an MCP prompt command (None when it is not one)."""
    slash = parse_slash(text)
    if slash is None:
        return None
    server, spec = await _find(mcp, command=slash.name)
    try:
        arguments = bind_words(spec, slash.name, slash.rest)
    except PromptUsageError as exc:
        raise InvalidParams(str(exc)) from exc
    return await _render(mcp, server, spec, arguments)


async def prompt_turn(mcp: McpManager, params: RunMcpPromptParams) -> tuple[str, list[Any]]:
    """`handrail.runMcpPrompt`: the turn's prompt as shown (`/command args`) and its rendered content."""
    server, spec = await _find(mcp, server=params.server, name=params.prompt)
    command = prompt_command(server, spec.name)
    try:
        arguments = check_arguments(spec, command, params.arguments or {})
    except PromptUsageError as exc:
        raise InvalidParams(str(exc)) from exc
    content = await _render(mcp, server, spec, arguments)
    shown = " ".join([f"/{command}", *(arguments[a.name] for a in spec.arguments if a.name in arguments)])
    return shown, content
