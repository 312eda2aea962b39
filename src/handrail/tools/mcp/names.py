"""Tool names for MCP tools: `mcp__<server>__<tool>`, within the API's `^[a-zA-Z0-9_-]{1,64}$`."""

from __future__ import annotations

import hashlib
import re

from handrail.permissions.rules import MCP_PREFIX

MAX_TOOL_NAME = 64
_INVALID = re.compile(r"[^a-zA-Z0-9_-]")
_UNDERSCORES = re.compile(r"_{2,}")


def normalize_name(name: str) -> str:
    """`name` with every character the API refuses replaced by `_` (never empty)."""
    return _INVALID.sub("_", name) or "_"


def normalize_server_name(name: str) -> str:
    """A server's name in tool names; `__` is the separator there, so runs of `_` become one."""
    return _UNDERSCORES.sub("_", normalize_name(name))


def server_prefix(server: str) -> str:
    """`mcp__<server>__`: the start of every tool name of that server."""
    return f"{MCP_PREFIX}{normalize_server_name(server)}__"


def mcp_tool_name(server: str, tool: str) -> str:
    """The model-facing name of `tool` on `server`; names too long keep their start and a short hash."""
    full = server_prefix(server) + normalize_name(tool)
    if len(full) <= MAX_TOOL_NAME:
        return full
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{full[: MAX_TOOL_NAME - 9]}_{digest}"
