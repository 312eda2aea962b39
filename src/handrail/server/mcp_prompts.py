"""MCP prompts for the user: `handrail.mcpPrompts` lists them, `handrail.runMcpPrompt` runs one as the user's
turn, and `/mcp__<server>__<prompt> args` typed as the prompt of `handrail.ask` does the same (as in Claude Code).

A prompt is the user's own choice, so running it asks no permission; what it renders
becomes the content of the user's turn. A wrong call (unknown prompt, a missing or
unknown argument) is answered with an InvalidParams error that says how to call it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams

from handrail.server.lsp_values import field_of
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

if TYPE_CHECKING:
    from handrail.server.app import HandrailServer

MAX_LISTED_IN_ERRORS = 20


async def list_prompts(ls: HandrailServer) -> dict[str, Any]:
    """`handrail.mcpPrompts`: every prompt of the connected servers, with the command that runs it."""
    listed = []
    for server, spec in await ls.mcp.prompts():
        command = prompt_command(server, spec.name)
        listed.append({
            "server": server,
            "name": spec.name,
            "title": spec.title,
            "description": spec.description,
            "command": f"/{command}",
            "usage": usage(spec, command),
            "arguments": [
                {"name": a.name, "description": a.description, "required": a.required} for a in spec.arguments
            ],
        })
    return {"prompts": listed}


async def _find(ls: HandrailServer, *, command: str | None = None, server: str | None = None,
                name: str | None = None) -> tuple[str, McpPromptSpec]:
    found = await ls.mcp.prompts()
    for candidate_server, spec in found:
        if command is not None and prompt_command(candidate_server, spec.name) == command:
            return candidate_server, spec
        if command is None and candidate_server == server and spec.name == name:
            return candidate_server, spec
    wanted = f"/{command}" if command is not None else f"{name!r} of the MCP server {server!r}"
    known = [f"/{prompt_command(s, p.name)}" for s, p in found][:MAX_LISTED_IN_ERRORS]
    raise JsonRpcInvalidParams(
        f"no MCP prompt {wanted} (connected servers' prompts: {', '.join(known) or 'none'})"
    )


async def _render(ls: HandrailServer, server: str, spec: McpPromptSpec, arguments: dict[str, str]) -> list[Any]:
    connection = ls.mcp.connections().get(server)
    if connection is None:
        raise JsonRpcInvalidParams(f"the MCP server {server!r} is not connected")
    try:
        messages = await connection.get_prompt(spec.name, arguments)
    except (McpRequestError, McpConnectionLostError) as exc:
        failure = f"the MCP server {server!r} could not render the prompt {spec.name!r}: {exc}"
        raise JsonRpcInternalError(failure) from exc
    content = prompt_content(messages)
    if not content:
        raise JsonRpcInternalError(f"the MCP server {server!r} rendered the prompt {spec.name!r} as nothing")
    return content


async def slash_content(ls: HandrailServer, text: str) -> list[Any] | None:
    """The content of the user's turn when `text` is an MCP prompt command (None when it is not one)."""
    slash = parse_slash(text)
    if slash is None:
        return None
    server, spec = await _find(ls, command=slash.name)
    try:
        arguments = bind_words(spec, slash.name, slash.rest)
    except PromptUsageError as exc:
        raise JsonRpcInvalidParams(str(exc)) from exc
    return await _render(ls, server, spec, arguments)


async def run_prompt(ls: HandrailServer, argument: Any) -> dict[str, Any]:
    """`handrail.runMcpPrompt` `[{server, prompt, arguments?, sessionId?}]`: the prompt as the user's turn."""
    from handrail.server.ask import ask

    server, name, given = field_of(argument, "server"), field_of(argument, "prompt"), field_of(argument, "arguments")
    if not isinstance(server, str) or not isinstance(name, str):
        raise JsonRpcInvalidParams("handrail.runMcpPrompt: expected [{server, prompt, arguments?, sessionId?}]")
    if given is not None and not isinstance(given, dict):
        raise JsonRpcInvalidParams("handrail.runMcpPrompt: 'arguments' must be an object of strings")
    server, spec = await _find(ls, server=server, name=name)
    command = prompt_command(server, spec.name)
    try:
        arguments = check_arguments(spec, command, given or {})
    except PromptUsageError as exc:
        raise JsonRpcInvalidParams(str(exc)) from exc
    content = await _render(ls, server, spec, arguments)
    shown = " ".join([f"/{command}", *(arguments[a.name] for a in spec.arguments if a.name in arguments)])
    ask_argument = {"prompt": shown, "sessionId": field_of(argument, "sessionId")}
    return await ask(ls, {k: v for k, v in ask_argument.items() if v is not None}, content=content)
