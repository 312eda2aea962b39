"""MCP server definitions: read from settings files and `.mcp.json`, with `${VAR}` / `${VAR:-default}` expansion.

A definition is what other agents share:

    {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "${TZ:-UTC}"}},
                    "docs": {"type": "http", "url": "https://example.com/mcp",
                             "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}},
                    "legacy": {"type": "sse", "url": "http://127.0.0.1:8000/sse"}}}

Sources, first wins for a name: local settings, project settings, the project's
`.mcp.json`, user settings. A definition that cannot be used is kept with its
`error`, so the user sees it in `handrail.mcpStatus` instead of it vanishing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from handrail.errors import HandrailError
from handrail.permissions.loosening import MCP_VARIABLE, describe_mcp_definition
from handrail.permissions.mcp_approval import definition_digest
from handrail.permissions.sources import LoadedSettings, LoadedSource

McpSource = Literal["user", "project", "local", "mcp.json"]
McpTransport = Literal["stdio", "http", "sse"]
MCP_JSON = ".mcp.json"
MAX_MCP_JSON_BYTES = 1 << 20
_SOURCE_ORDER: tuple[McpSource, ...] = ("local", "project", "mcp.json", "user")


def _frozen(mapping: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class McpServerConfig:
    """One server as configured: how to reach it, where it was defined, and the definition as written."""

    name: str
    source: McpSource
    transport: McpTransport = "stdio"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    file: Path | None = None
    root: Path | None = None
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    error: str | None = None

    @property
    def project_supplied(self) -> bool:
        """Whether the definition came with the workspace (so it needs trust and the user's approval)."""
        return self.source != "user"

    @property
    def digest(self) -> str:
        """The digest of the definition as written (with its name): an approval covers exactly this."""
        return definition_digest(self.name, self.raw)

    def describe(self) -> str:
        """The definition as a user should judge it, as written: what runs or where it connects, and which of
        the user's environment variables it is sent (names only: their values are never shown)."""
        return describe_mcp_definition(self.raw)


class MissingVariableError(HandrailError, ValueError):
    """A `${VAR}` with no default names a variable that is not set."""


def expand(text: str, env: Mapping[str, str]) -> str:
    """`text` with `${VAR}` and `${VAR:-default}` replaced from `env`; raises MissingVariableError."""

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = env.get(name)
        if value is not None and (value or default is None):
            return value
        if default is not None:
            return default
        raise MissingVariableError(f"environment variable {name} is not set (write ${{{name}:-default}} for a default)")

    return MCP_VARIABLE.sub(replace, text)


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"'{what}' must be a list of strings")
    return tuple(value)


def _string_map(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f"'{what}' must be an object of strings")
    return {str(k): v for k, v in value.items()}


def parse_server(
    name: str,
    definition: Any,
    source: McpSource,
    env: Mapping[str, str],
    *,
    file: Path | None = None,
    root: Path | None = None,
) -> McpServerConfig:
    """One server's definition; what cannot be used becomes the config's `error` (never raises)."""
    raw = definition if isinstance(definition, Mapping) else {}
    base = McpServerConfig(name=name, source=source, file=file, root=root, raw=MappingProxyType(dict(raw)))

    def broken(message: str) -> McpServerConfig:
        return replace(base, error=message)

    if not isinstance(definition, Mapping):
        return broken("the definition must be an object")
    if not name:
        return broken("the server needs a name")
    kind = definition.get("type")
    if kind is None:
        kind = "http" if "url" in definition and "command" not in definition else "stdio"
    if kind == "streamable-http":
        kind = "http"
    if kind not in ("stdio", "http", "sse"):
        return broken(f"unsupported type {kind!r} (use \"stdio\", \"http\" or \"sse\")")
    try:
        if kind == "stdio":
            command = definition.get("command")
            if not isinstance(command, str) or not command.strip():
                return broken("a stdio server needs a 'command'")
            return replace(
                base,
                transport="stdio",
                command=expand(command, env),
                args=tuple(expand(a, env) for a in _strings(definition.get("args"), "args")),
                env=_frozen({k: expand(v, env) for k, v in _string_map(definition.get("env"), "env").items()}),
            )
        url = definition.get("url")
        if not isinstance(url, str) or not url.strip():
            return broken(f"an {kind} server needs a 'url'")
        expanded = expand(url, env)
        if not expanded.startswith(("http://", "https://")):
            return broken(f"'url' must start with http:// or https://, not {expanded!r}")
        headers = _string_map(definition.get("headers"), "headers")
        return replace(
            base,
            transport="sse" if kind == "sse" else "http",
            url=expanded,
            headers=_frozen({k: expand(v, env) for k, v in headers.items()}),
        )
    except ValueError as exc:  # MissingVariableError included
        return broken(str(exc))


def parse_servers(
    servers: Mapping[str, Any] | None,
    source: McpSource,
    env: Mapping[str, str],
    *,
    file: Path | None = None,
    root: Path | None = None,
) -> tuple[McpServerConfig, ...]:
    """Every server of one `mcpServers` object, in the order written."""
    if not servers:
        return ()
    return tuple(parse_server(name, d, source, env, file=file, root=root) for name, d in servers.items())


def read_mcp_json(root: Path, env: Mapping[str, str]) -> tuple[McpServerConfig, ...]:
    """The servers of `<root>/.mcp.json` (none when it is missing; one broken entry when it is unreadable)."""
    path = root / MCP_JSON
    try:
        data = path.read_bytes()[: MAX_MCP_JSON_BYTES + 1]
    except FileNotFoundError:
        return ()
    except OSError as exc:
        return (McpServerConfig(name=MCP_JSON, source="mcp.json", file=path, root=root, error=f"cannot read: {exc}"),)
    try:
        if len(data) > MAX_MCP_JSON_BYTES:
            raise ValueError(f"larger than {MAX_MCP_JSON_BYTES} bytes")
        decoded = json.loads(data.decode("utf-8-sig"))
        if not isinstance(decoded, Mapping):
            raise ValueError("expected a JSON object")
        servers = decoded.get("mcpServers", {})
        if not isinstance(servers, Mapping):
            raise ValueError("'mcpServers' must be an object")
    except (ValueError, RecursionError) as exc:
        return (McpServerConfig(name=MCP_JSON, source="mcp.json", file=path, root=root, error=f"not usable: {exc}"),)
    return parse_servers(servers, "mcp.json", env, file=path, root=root)


def _from_settings(source: LoadedSource, env: Mapping[str, str]) -> tuple[McpServerConfig, ...]:
    name = source.source
    if name not in ("user", "project", "local"):
        return ()
    root = source.root if name != "user" else None
    return parse_servers(source.settings.mcp_servers, name, env, file=source.path, root=root)


def collect_servers(
    loaded: LoadedSettings, roots: Sequence[Path], env: Mapping[str, str]
) -> tuple[McpServerConfig, ...]:
    """Every configured server, one per name (local, project, `.mcp.json`, then user settings win in that order).

    Reads `.mcp.json` files: call it off the event loop.
    """
    found: dict[McpSource, list[McpServerConfig]] = {name: [] for name in _SOURCE_ORDER}
    for source in loaded.sources:
        for config in _from_settings(source, env):
            found[config.source].append(config)
    for root in roots:
        found["mcp.json"].extend(read_mcp_json(root, env))
    chosen: dict[str, McpServerConfig] = {}
    for name in _SOURCE_ORDER:
        for config in found[name]:
            chosen.setdefault(config.name, config)
    return tuple(chosen.values())
