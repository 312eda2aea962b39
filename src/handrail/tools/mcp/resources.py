"""ListMcpResources and ReadMcpResource: the resources of the connected MCP servers.

Both are read-only (plan mode may use them) but, like any MCP access, they ask
unless a rule allows them: the tool's own allow rule, or a server-wide
`mcp__server` / `mcp__server__*` rule for the server they read from (a server-wide
deny rule denies them too).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from handrail.permissions.decision import PermissionCheck
from handrail.permissions.rules import MCP_PREFIX
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.mcp.model import McpConnection, McpConnectionLostError, McpRequestError
from handrail.tools.mcp.names import normalize_server_name
from handrail.tools.mcp.results import content_block
from handrail.tools.protocol import Tool, ToolResult, build_tool

Connections = Callable[[], Mapping[str, McpConnection]]
LIST_NAME = "ListMcpResources"
READ_NAME = "ReadMcpResource"


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListInput(_Input):
    server: str | None = Field(default=None, description="Only list the resources of this server")


class ReadInput(_Input):
    server: str = Field(description="The MCP server's name")
    uri: str = Field(description="The URI of the resource to read")


def server_rule_check(server: str | None, ctx: ToolUseContext) -> PermissionCheck:
    """Allow or deny by a server-wide rule (`mcp__server`, `mcp__server__*`); else the pipeline asks."""
    if server is None:
        return PermissionCheck("passthrough")
    wide = {f"{MCP_PREFIX}{normalize_server_name(server)}", f"{MCP_PREFIX}{normalize_server_name(server)}__*"}
    context = ctx.permission_context
    for behavior in ("deny", "allow"):
        for rule in context.rules(behavior):
            if rule.specifier is None and rule.tool in wide:
                return PermissionCheck(behavior, f"{behavior} by the rule {rule.tool}")
    return PermissionCheck("passthrough")


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


def list_resources_tool(connections: Connections) -> Tool[ListInput]:
    """ListMcpResources over the servers `connections` returns."""

    async def call(value: ListInput, ctx: ToolUseContext) -> ToolResult:
        found = connections()
        names = [value.server] if value.server is not None else sorted(found)
        listed: list[dict[str, Any]] = []
        for name in names:
            connection = _connection(connections, name)
            if not connection.supports_resources:
                continue
            for resource in await _guarded(name, connection.list_resources()):
                item = {"server": name, "uri": resource.uri, "name": resource.name}
                if resource.mime_type:
                    item["mimeType"] = resource.mime_type
                if resource.description:
                    item["description"] = resource.description
                listed.append(item)
        if not listed:
            return ToolResult("No resources found on the connected MCP servers.")
        return ToolResult(json.dumps(listed, ensure_ascii=False, indent=1))

    async def check(value: ListInput, ctx: ToolUseContext) -> PermissionCheck:
        return server_rule_check(value.server, ctx)

    return build_tool(
        name=LIST_NAME,
        input_model=ListInput,
        description="List the resources (files, data, documents) the connected MCP servers offer.",
        prompt=(
            "Lists resources from the connected MCP servers: each with its server, uri, name and type. "
            "Give `server` to list one server only. Read one with ReadMcpResource."
        ),
        call=call,
        check_permissions=check,
        is_read_only=lambda _: True,
        summary=lambda v: v.server or "all servers",
        search_hint="mcp resources list",
    )


def read_resource_tool(connections: Connections) -> Tool[ReadInput]:
    """ReadMcpResource over the servers `connections` returns."""

    async def call(value: ReadInput, ctx: ToolUseContext) -> ToolResult:
        connection = _connection(connections, value.server)
        contents = await _guarded(value.server, connection.read_resource(value.uri))
        return ToolResult([content_block({"type": "resource", "resource": item}) for item in contents])

    async def check(value: ReadInput, ctx: ToolUseContext) -> PermissionCheck:
        return server_rule_check(value.server, ctx)

    def to_block(blocks: Any, tool_use_id: str) -> dict[str, Any]:
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
