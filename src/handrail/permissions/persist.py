"""Writing an "always allow" rule into a settings file without disturbing the rest of it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from handrail.fileio import atomic_write
from handrail.permissions.context import RuleBehavior

Destination = Literal["session", "localSettings", "projectSettings", "userSettings"]

_INDENT = re.compile(r"^([ \t]+)\S", re.MULTILINE)


def _indent_of(text: str) -> str | int:
    match = _INDENT.search(text)
    if match is None:
        return 2
    indent = match.group(1)
    return indent if "\t" in indent else len(indent)


def add_rule(path: Path, behavior: RuleBehavior, rule: str) -> bool:
    """Add `rule` under `permissions.<behavior>` of the JSON file at `path` (created if missing).

    Keeps the file's other keys, their order and its indentation; returns False
    when the rule was already there. Raises ValueError for a file that is not a
    JSON object (it is left untouched).
    """
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    data: Any = json.loads(text) if text.strip() else {}
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object; not changing it")
    permissions = data.setdefault("permissions", {})
    if not isinstance(permissions, dict):
        raise ValueError(f"'permissions' in {path} is not an object; not changing it")
    rules = permissions.setdefault(behavior, [])
    if not isinstance(rules, list):
        raise ValueError(f"'permissions.{behavior}' in {path} is not a list; not changing it")
    if rule in rules:
        return False
    rules.append(rule)
    ending = "\n" if not text or text.endswith("\n") else ""
    atomic_write(path, (json.dumps(data, indent=_indent_of(text), ensure_ascii=False) + ending).encode("utf-8"))
    return True
