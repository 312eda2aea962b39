"""The shape of a settings file, and a reader that never fails on bad input.

A settings file is JSON like Claude Code's:

    {"permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Read(./.env)"], "ask": [],
                     "defaultMode": "acceptEdits", "additionalDirectories": ["../lib"],
                     "disableBypassPermissionsMode": "disable"},
     "hooks": {"PreToolUse": [...]}}

`parse_settings` keeps every part it can read and reports the rest as `SettingsProblem`s:
a bad field is dropped alone, a bad rule is dropped alone (with its text in the problem).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

from handrail.permissions.modes import PERMISSION_MODES, PermissionMode
from handrail.permissions.rules import RuleError, parse_rule

RULE_LISTS: tuple[Literal["allow", "deny", "ask"], ...] = ("allow", "deny", "ask")


class PermissionSettings(BaseModel):
    """The `permissions` section of a settings file."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="ignore")

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    default_mode: PermissionMode | None = Field(default=None, alias="defaultMode")
    additional_directories: tuple[str, ...] = Field(default=(), alias="additionalDirectories")
    disable_bypass_permissions_mode: Literal["disable"] | None = Field(
        default=None, alias="disableBypassPermissionsMode"
    )


class SettingsFile(BaseModel):
    """One settings file (or the cli/initialization options, which have the same shape).

    `hooks` is kept as validated raw JSON (an object of lists) for the hook runner to read.
    """

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="ignore")

    permissions: PermissionSettings = Field(default_factory=PermissionSettings)
    hooks: dict[str, list[JsonValue]] | None = None
    # MCP server definitions by name, kept raw: tools/mcp/config.py reads each one and reports its problems
    mcp_servers: dict[str, dict[str, JsonValue]] | None = Field(default=None, alias="mcpServers")


@dataclass(frozen=True)
class SettingsProblem:
    """Something in a settings source that could not be used; `rule` is the text of a bad rule."""

    file: Path | None
    message: str
    rule: str | None = None
    source: str = ""

    def __str__(self) -> str:
        where = str(self.file) if self.file is not None else self.source or "settings"
        return f"{where}: {self.message}" + (f" ({self.rule!r})" if self.rule is not None else "")


_MODE = TypeAdapter(PermissionMode)
_HOOKS = TypeAdapter(dict[str, list[JsonValue]])
_MCP_SERVERS = TypeAdapter(dict[str, dict[str, JsonValue]])
_KNOWN = {"allow", "deny", "ask", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode"}


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    return str(errors[0]["msg"]) if errors else str(exc)


def decode_settings(
    data: bytes | str | Mapping[str, Any] | None, *, file: Path | None = None, source: str = ""
) -> tuple[Mapping[str, Any] | None, tuple[SettingsProblem, ...]]:
    """The JSON object `data` holds (None when it is empty or unreadable), and what was wrong with it."""
    raw: Any = data
    if isinstance(data, bytes):
        try:
            raw = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            return None, (SettingsProblem(file, f"not UTF-8 text: {exc}", None, source),)
    if isinstance(raw, str):
        if not raw.strip():
            return None, ()
        try:
            raw = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            return None, (SettingsProblem(file, f"not valid JSON: {exc}", None, source),)
    if raw is None:
        return None, ()
    if not isinstance(raw, Mapping):
        message = f"expected a JSON object at the top level, found {type(raw).__name__}"
        return None, (SettingsProblem(file, message, None, source),)
    return raw, ()


def parse_settings(
    data: bytes | str | Mapping[str, Any] | None, *, file: Path | None = None, source: str = ""
) -> tuple[SettingsFile, tuple[SettingsProblem, ...]]:
    """The settings that could be read from `data` (JSON text, or already-decoded JSON), and the problems."""
    raw, decoding = decode_settings(data, file=file, source=source)
    if raw is None:
        return SettingsFile(), decoding
    problems: list[SettingsProblem] = []

    def problem(message: str, rule: str | None = None) -> None:
        problems.append(SettingsProblem(file, message, rule, source))

    cleaned: dict[str, Any] = {}
    permissions = raw.get("permissions")
    if permissions is not None and not isinstance(permissions, Mapping):
        problem("'permissions' must be an object")
    elif isinstance(permissions, Mapping):
        cleaned["permissions"] = _clean_permissions(permissions, problem)
    for key, adapter, shape in (
        ("hooks", _HOOKS, "an object of lists"),
        ("mcpServers", _MCP_SERVERS, "an object of server objects"),
    ):
        value = raw.get(key)
        if value is None:
            continue
        try:
            cleaned[key] = adapter.validate_python(value)
        except ValidationError as exc:
            problem(f"'{key}' must be {shape}: {_first_error(exc)}")
    try:
        return SettingsFile.model_validate(cleaned), tuple(problems)
    except ValidationError as exc:  # not expected: everything was checked above
        problem(f"unreadable settings: {_first_error(exc)}")
        return SettingsFile(), tuple(problems)


def _clean_permissions(section: Mapping[str, Any], problem: Callable[..., None]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in section:
        if key not in _KNOWN:
            problem(f"unknown setting 'permissions.{key}' (ignored)")
    for key in RULE_LISTS:
        value = section.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            problem(f"'permissions.{key}' must be a list of rules")
            continue
        rules: list[str] = []
        for item in value:
            if not isinstance(item, str):
                problem(f"a rule in 'permissions.{key}' is not a string", json.dumps(item, default=str))
                continue
            parsed = parse_rule(item)
            if isinstance(parsed, RuleError):
                where = f" at {parsed.position}" if parsed.position is not None else ""
                problem(f"bad rule in 'permissions.{key}'{where}: {parsed.message}", item)
                continue
            rules.append(item)
        out[key] = tuple(rules)
    mode = section.get("defaultMode")
    if mode is not None:
        try:
            out["defaultMode"] = _MODE.validate_python(mode)
        except ValidationError:
            problem(f"'permissions.defaultMode' must be one of {', '.join(PERMISSION_MODES)}, not {mode!r}")
    directories = section.get("additionalDirectories")
    if directories is not None:
        if isinstance(directories, list) and all(isinstance(d, str) and d for d in directories):
            out["additionalDirectories"] = tuple(directories)
        else:
            problem("'permissions.additionalDirectories' must be a list of paths")
    bypass = section.get("disableBypassPermissionsMode")
    if bypass is not None:
        if bypass == "disable":
            out["disableBypassPermissionsMode"] = "disable"
        else:
            problem(f"'permissions.disableBypassPermissionsMode' can only be \"disable\", not {bypass!r}")
    return out
