"""What a workspace settings file would loosen, item by item: what the user is shown, and approves.

A file that comes with the checkout (`.handrail/settings.json`, `.handrail/settings.local.json`)
may tighten at once, but everything else in it waits for the user. It is split into items:

* each allow rule;
* `defaultMode`, unless it is `default` or `plan` (stricter than the default);
* each `additionalDirectories` entry;
* each hook group (an event, its matcher and the commands it runs);
* each MCP server definition;
* any key handrail does not know as tightening, top level or under `permissions` (fail
  closed: a setting added later is held back until approved, never granted by default).

What tightens (`permissions.deny`, `permissions.ask`, `disableBypassPermissionsMode`, a
stricter `defaultMode`) is no item: it applies in any workspace. Each item has a
`digest` (sha256 of where it is and its value as written): approving binds exactly that
content, and an item that changes is a new item.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from handrail.permissions.rules import PermissionRule, parse_rule
from handrail.permissions.sources import LoadedSource, workspace_directory
from handrail.permissions.visible import visible

LooseningKind = Literal["allow", "defaultMode", "additionalDirectories", "hooks", "mcpServers", "other"]

STRICT_MODES = frozenset({"default", "plan"})
"""Modes a workspace file may choose without approval: nothing runs in them that would not anyway."""
TIGHTENING_PERMISSIONS = frozenset({"deny", "ask", "disableBypassPermissionsMode"})
"""Keys of `permissions` that only tighten."""
_LOOSENING_PERMISSIONS = frozenset({"allow", "defaultMode", "additionalDirectories"})
_SECTIONS = frozenset({"permissions", "hooks", "mcpServers"})
_DESCRIPTIVE = frozenset({"$schema"})  # says nothing handrail acts on

MCP_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
"""`${VAR}` or `${VAR:-default}` in an MCP server definition: expanded from the user's environment."""

_MODE_WORDS = {
    "acceptEdits": "file edits in the working directories run without asking",
    "bypassPermissions": "every call runs without asking",
    "dontAsk": "every call that would ask is refused without asking you",
}


def _plain(value: Any) -> Any:
    """Decoded JSON as plain dicts and lists (read-only mappings and tuples included)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _json(value: Any) -> str:
    return json.dumps(_plain(value), ensure_ascii=False, sort_keys=True, default=str)


def item_digest(where: Sequence[str], value: Any) -> str:
    """The sha256 that approving an item records: where it is in its file and its value as written."""
    canonical = json.dumps([list(where), _plain(value)], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Loosening:
    """One thing in a workspace settings file that would loosen permissions.

    `where` is its place in the file (`("permissions", "allow")`, `("hooks", "PreToolUse")`,
    `("mcpServers", "docs")`, `("env",)`); `shown` is what the user reads, escaped.
    """

    kind: LooseningKind
    where: tuple[str, ...]
    value: Any
    shown: str
    digest: str
    rule: PermissionRule | None = None

    @property
    def setting(self) -> str:
        """The setting's name as `handrail.permissions` lists it (`hooks`, `defaultMode`, `permissions.x`, `env`)."""
        if self.where[0] == "permissions":
            return self.where[1] if self.where[1] in _LOOSENING_PERMISSIONS else ".".join(self.where)
        return self.where[0]


def _item(
    kind: LooseningKind, where: tuple[str, ...], value: Any, shown: str, rule: PermissionRule | None = None
) -> Loosening:
    return Loosening(kind, where, value, visible(shown, keep_newlines=False), item_digest(where, value), rule)


def allow_item(rule_text: str, source: LoadedSource | None = None) -> Loosening:
    """The item of one allow rule (what writing an "always allow" rule approves)."""
    parsed = parse_rule(rule_text, source.source if source else "session", root=source.root if source else None)
    rule = parsed if isinstance(parsed, PermissionRule) else None
    return _item("allow", ("permissions", "allow"), rule_text, f"allow {rule_text}", rule)


def _hook_words(event: str, group: Any) -> str:
    if not isinstance(group, Mapping):
        return f"{event} hook: {_json(group)}"
    matcher = group.get("matcher")
    scope = f"for {matcher}" if isinstance(matcher, str) and matcher not in ("", "*") else "for every tool"
    commands = []
    for hook in group.get("hooks") or []:
        command = hook.get("command") if isinstance(hook, Mapping) else None
        commands.append(command if isinstance(command, str) else _json(hook))
    return f"{event} hook ({scope}) runs: {' ; '.join(commands) or '(nothing)'}"


def expansions(definition: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(variable, where it goes) for each `${VAR}` an MCP definition takes from the user's environment."""
    found: list[tuple[str, str]] = []

    def scan(text: Any, where: str) -> None:
        if isinstance(text, str):
            found.extend((match.group(1), where) for match in MCP_VARIABLE.finditer(text))

    scan(definition.get("command"), "command")
    args = definition.get("args")
    for index, arg in enumerate(args if isinstance(args, list | tuple) else []):
        scan(arg, f"args[{index}]")
    scan(definition.get("url"), "url")
    for section in ("env", "headers"):
        values = definition.get(section)
        for key, value in (values.items() if isinstance(values, Mapping) else ()):
            scan(value, f"{section}.{key}")
    return found


def describe_mcp_definition(definition: Mapping[str, Any]) -> str:
    """An MCP server definition as the user should judge it: what runs or where it connects, as written,
    and which of the user's environment variables it is sent."""
    parts: list[str] = []
    command, url = definition.get("command"), definition.get("url")
    if isinstance(command, str):
        args = definition.get("args")
        words = [command, *(a for a in (args if isinstance(args, list | tuple) else []) if isinstance(a, str))]
        parts.append(f"runs {shlex.join(words)}")
    elif isinstance(url, str):
        parts.append(f"connects to {url}")
    else:
        parts.append(f"is defined as {_json(definition)}")
    for section in ("env", "headers"):
        values = definition.get(section)
        if isinstance(values, Mapping) and values:
            separator = "=" if section == "env" else ": "
            pairs = ", ".join(f"{key}{separator}{value}" for key, value in values.items())
            parts.append(f"with {section} {pairs}")
    sent = expansions(definition)
    if sent:
        listed = ", ".join(f"${{{name}}} into {where}" for name, where in sent)
        parts.append(f"and it is sent your environment's {listed}")
    return " ".join(parts)


def loosenings(source: LoadedSource) -> tuple[Loosening, ...]:
    """Every item of `source` that would loosen permissions, in the order written."""
    settings = source.settings
    permissions = settings.permissions
    found = [allow_item(rule, source) for rule in permissions.allow]
    mode = permissions.default_mode
    if mode is not None and mode not in STRICT_MODES and mode != "auto":  # auto never comes from a workspace file
        words = f"defaultMode {mode}: {_MODE_WORDS[mode]}"
        found.append(_item("defaultMode", ("permissions", "defaultMode"), mode, words))
    for text in permissions.additional_directories:
        where = workspace_directory(text, source.root)
        shown = f"additionalDirectories {text} ({where}): the agent may read and change files there"
        found.append(_item("additionalDirectories", ("permissions", "additionalDirectories"), text, shown))
    for event, groups in (settings.hooks or {}).items():
        found.extend(_item("hooks", ("hooks", event), group, _hook_words(event, group)) for group in groups)
    for name, definition in (settings.mcp_servers or {}).items():
        shown = f"MCP server {name} {describe_mcp_definition(definition)}"
        found.append(_item("mcpServers", ("mcpServers", name), definition, shown))
    raw_permissions = source.raw.get("permissions")
    if isinstance(raw_permissions, Mapping):
        for key, value in raw_permissions.items():
            if key not in TIGHTENING_PERMISSIONS and key not in _LOOSENING_PERMISSIONS:
                found.append(_item("other", ("permissions", key), value, f"permissions.{key}: {_json(value)}"))
    for key, value in source.raw.items():
        if key not in _SECTIONS and key not in _DESCRIPTIVE:
            found.append(_item("other", (key,), value, f"{key}: {_json(value)}"))
    return tuple(found)
