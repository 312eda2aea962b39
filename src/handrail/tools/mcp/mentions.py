"""`@server:uri` in the user's prompt (as in Claude Code): MCP resources the user attaches to a turn.

A mention names a connected server and a resource URI (`@docs:file:///guide.md`,
`@everything:demo://resource/dynamic/text/3`); text that only looks like one (an e-mail
address, a server that is not connected) is left alone. The user chose the resource, so
reading it asks nothing, but a rule that denies the server (`mcp__server`) still denies it.
Each resource is attached after the prompt, introduced by a line that names it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from handrail.errors import HandrailError
from handrail.permissions.context import PermissionContext
from handrail.permissions.visible import visible
from handrail.tools.mcp.model import McpConnection, McpConnectionLostError, McpRequestError
from handrail.tools.mcp.resources import resource_blocks, server_rule
from handrail.tools.messages import ToolResultContent

MAX_MENTIONS = 10  # resources one prompt may attach
_MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_.-]+):([A-Za-z][A-Za-z0-9+.-]*:\S+)")
_TRAILING = ".,;:!?)]}'\""


class MentionError(HandrailError, ValueError):
    """A mentioned resource that cannot be attached; the message says which and why."""


@dataclass(frozen=True)
class ResourceMention:
    """`@server:uri` as typed."""

    server: str
    uri: str


def find_mentions(text: str, servers: Collection[str]) -> list[ResourceMention]:
    """The resources `text` mentions on the servers named in `servers`, each once, in order."""
    found: list[ResourceMention] = []
    for match in _MENTION.finditer(text):
        mention = ResourceMention(match.group(1), match.group(2).rstrip(_TRAILING))
        if mention.server in servers and mention not in found:
            found.append(mention)
    return found


async def mentioned_content(
    text: str, connections: Mapping[str, McpConnection], context: PermissionContext
) -> list[ToolResultContent]:
    """The content blocks of the resources `text` mentions (none when it mentions none); MentionError when
    one is denied by a rule or cannot be read."""
    mentions = find_mentions(text, connections)
    if len(mentions) > MAX_MENTIONS:
        raise MentionError(f"the prompt mentions {len(mentions)} MCP resources; at most {MAX_MENTIONS} can be attached")
    blocks: list[ToolResultContent] = []
    for mention in mentions:
        where = f"@{visible(mention.server)}:{visible(mention.uri)}"
        if server_rule(mention.server, context) == "deny":
            raise MentionError(f"{where}: the MCP server {mention.server!r} is denied by a rule")
        try:
            contents = await connections[mention.server].read_resource(mention.uri)
        except (McpRequestError, McpConnectionLostError) as exc:
            raise MentionError(f"{where}: the MCP server could not read it ({exc})") from exc
        intro = f"The user attached the resource {visible(mention.uri)} of the MCP server {visible(mention.server)}:"
        blocks.append({"type": "text", "text": intro})
        blocks.extend(resource_blocks(contents) or [{"type": "text", "text": "(the resource is empty)"}])
    return blocks


async def mentionable(connections: Mapping[str, McpConnection]) -> list[dict[str, Any]]:
    """What the user can mention, for a client's `@` completion: every listed resource (`mention` is what to
    insert) and every resource template (`mention` has the template's {variables} for the user to fill in).
    A server that cannot list its resources is left out."""
    found: list[dict[str, Any]] = []
    for server, connection in sorted(connections.items()):
        if not connection.supports_resources:
            continue
        try:
            resources = await connection.list_resources()
            try:
                templates = await connection.list_resource_templates()
            except McpRequestError:  # a server with resources but no templates
                templates = ()
        except (McpRequestError, McpConnectionLostError):
            continue
        for resource in resources:
            mention = f"@{server}:{resource.uri}"
            item = {"server": server, "uri": resource.uri, "name": resource.name, "mention": mention}
            found.append(_described(item, resource.description, resource.mime_type))
        for template in templates:
            item = {
                "server": server,
                "uriTemplate": template.uri_template,
                "name": template.name,
                "mention": f"@{server}:{template.uri_template}",
            }
            found.append(_described(item, template.description, template.mime_type))
    return found


def _described(item: dict[str, Any], description: str | None, mime_type: str | None) -> dict[str, Any]:
    if description:
        item["description"] = description
    if mime_type:
        item["mimeType"] = mime_type
    return item
