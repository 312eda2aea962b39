"""ListMcpResources and ReadMcpResource: the resources of the connected MCP servers.

Both are read-only (plan mode may use them) but they go through the same rules as
the server's tools: they ask unless a server-wide rule (`mcp__server`, `mcp__server__*`)
or the tool's own allow rule allows them, and a server-wide deny rule denies them.
Listing every server skips the denied ones and asks unless all the others are allowed.
The listing includes resource templates (`uriTemplate`: the model fills in the variables
and reads the URI). What a server marks for the user's audience only is not shown to the model.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from handrail.permissions.context import PermissionContext
from handrail.permissions.decision import PermissionCheck
from handrail.permissions.rules import MCP_PREFIX
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.mcp.model import (
    McpConnection,
    McpConnectionLostError,
    McpRequestError,
    McpResource,
    McpResourceTemplate,
    for_the_user_only,
)
from handrail.tools.mcp.names import normalize_server_name
from handrail.tools.mcp.results import content_block, for_the_model
from handrail.tools.messages import ToolResultBlock, ToolResultContent
from handrail.tools.protocol import Tool, ToolResult, build_tool

Connections = Callable[[], Mapping[str, McpConnection]]
LIST_NAME = "ListMcpResources"
READ_NAME = "ReadMcpResource"
ServerRule = Literal["deny", "ask", "allow"] | None


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListInput(_Input):
    server: str | None = Field(default=None, description="Only list the resources of this server")


class ReadInput(_Input):
    server: str = Field(description="The MCP server's name")
    uri: str = Field(description="The URI of the resource to read")


def server_rule(server: str, context: PermissionContext) -> ServerRule:
    """What a server-wide rule (`mcp__server`, `mcp__server__*`) says of `server`: deny first, then ask, then allow."""
    name = normalize_server_name(server)
    wide = {f"{MCP_PREFIX}{name}", f"{MCP_PREFIX}{name}__*"}
    for behavior in ("deny", "ask", "allow"):
        if any(rule.specifier is None and rule.tool in wide for rule in context.rules(behavior)):
            return behavior
    return None


def servers_check(servers: Iterable[str], ctx: ToolUseContext) -> PermissionCheck:
    """The check for reading these servers' resources: any denied server denies, all allowed allows, else ask."""
    verdicts = {server: server_rule(server, ctx.permission_context) for server in servers}
    denied = sorted(s for s, v in verdicts.items() if v == "deny")
    if denied:
        return PermissionCheck("deny", f"the MCP server {denied[0]!r} is denied by a rule")
    if not verdicts:
        return PermissionCheck("allow", "no MCP server's resources would be read")
    if all(v == "allow" for v in verdicts.values()):
        return PermissionCheck("allow", f"allowed by the rule {MCP_PREFIX}<server> for {', '.join(sorted(verdicts))}")
    return PermissionCheck("ask", "reading an MCP server's resources needs approval unless a rule allows that server")


def _listable(connections: Connections, ctx: ToolUseContext) -> list[str]:
    """The servers a listing of every server reads: connected, offering resources, not denied."""
    found = connections()
    return sorted(
        name
        for name, connection in found.items()
        if connection.supports_resources and server_rule(name, ctx.permission_context) != "deny"
    )


def _connection(connections: Connections, server: str) -> McpConnection:
    found = connections()
    if server not in found:
        names = ", ".join(sorted(found)) or "none"
        raise ToolError(f"No connected MCP server named {server!r} (connected: {names}).")
    return found[server]


async def _guarded(server: str, request: Any) -> Any:
    try:
        return await request
    except (McpConnectionLostError, McpRequestError) as exc:
        raise ToolError(f"The MCP server {server!r} could not answer: {exc}") from exc


async def _templates(server: str, connection: McpConnection) -> list[dict[str, Any]]:
    """The server's resource templates as listed items (none when it does not list templates)."""
    try:
        templates = await connection.list_resource_templates()
    except McpRequestError:  # e.g. "method not found": a server with resources but no templates
        return []
    except McpConnectionLostError as exc:
        raise ToolError(f"The MCP server {server!r} could not answer: {exc}") from exc
    listed: list[dict[str, Any]] = []
    for template in templates:
        if for_the_user_only(template.audience):
            continue
        listed.append(_entry(server, "uriTemplate", template.uri_template, template))
    return listed


def _entry(server: str, key: str, address: str, listed: McpResource | McpResourceTemplate) -> dict[str, Any]:
    """One line of ListMcpResources: the server, the resource's address under `key`, its name, and its MIME type
    and description when it has them."""
    item: dict[str, Any] = {"server": server, key: address, "name": listed.name}
    if listed.mime_type:
        item["mimeType"] = listed.mime_type
    if listed.description:
        item["description"] = listed.description
    return item


def list_resources_tool(connections: Connections) -> Tool[ListInput]:
    """ListMcpResources over the servers `connections` returns."""

    async def call(value: ListInput, ctx: ToolUseContext) -> ToolResult:
        names = [value.server] if value.server is not None else _listable(connections, ctx)
        listed: list[dict[str, Any]] = []
        for name in names:
            connection = _connection(connections, name)
            if not connection.supports_resources:
                continue
            for resource in await _guarded(name, connection.list_resources()):
                if for_the_user_only(resource.audience):
                    continue
                listed.append(_entry(name, "uri", resource.uri, resource))
            listed.extend(await _templates(name, connection))
        if not listed:
            return ToolResult("No resources found on the connected MCP servers.")
        return ToolResult(json.dumps(listed, ensure_ascii=False, indent=1))

    async def check(value: ListInput, ctx: ToolUseContext) -> PermissionCheck:
        if value.server is not None:
            return servers_check([value.server], ctx)
        return servers_check(_listable(connections, ctx), ctx)

    return build_tool(
        name=LIST_NAME,
        input_model=ListInput,
        description="List the resources (files, data, documents) the connected MCP servers offer.",
        prompt=(
            "Lists resources from the connected MCP servers: each with its server, uri, name and type. "
            "Resource templates have a `uriTemplate` instead of a `uri`: replace each {variable} in it to get "
            "the uri of a resource. Give `server` to list one server only. Read one with ReadMcpResource."
        ),
        call=call,
        check_permissions=check,
        is_read_only=lambda _: True,
        summary=lambda v: v.server or "all servers",
        search_hint="mcp resources list",
    )


def resource_blocks(contents: Sequence[Mapping[str, Any]]) -> list[ToolResultContent]:
    """A read resource's contents as content blocks for the model (text blobs decoded; the user's parts left out)."""
    kept, left_out = for_the_model(contents)
    blocks = [content_block({"type": "resource", "resource": item}) for item in kept]
    if left_out:
        blocks.append({"type": "text", "text": f"[{left_out} part(s) meant for the user only were not shown]"})
    return blocks


def read_resource_tool(connections: Connections) -> Tool[ReadInput]:
    """ReadMcpResource over the servers `connections` returns."""

    async def call(value: ReadInput, ctx: ToolUseContext) -> ToolResult:
        connection = _connection(connections, value.server)
        contents = await _guarded(value.server, connection.read_resource(value.uri))
        return ToolResult(resource_blocks(contents))

    async def check(value: ReadInput, ctx: ToolUseContext) -> PermissionCheck:
        return servers_check([value.server], ctx)

    def to_block(blocks: Any, tool_use_id: str) -> ToolResultBlock:
        content = blocks or [{"type": "text", "text": "(the resource is empty)"}]
        return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}

    return build_tool(
        name=READ_NAME,
        input_model=ReadInput,
        description="Read a resource from a connected MCP server by its URI.",
        prompt="Reads one resource from an MCP server, given the server's name and the resource's uri.",
        call=call,
        check_permissions=check,
        is_read_only=lambda _: True,
        summary=lambda v: f"{v.server}: {v.uri}",
        map_result_to_block=to_block,
        search_hint="mcp resource read",
    )
