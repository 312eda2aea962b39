"""Writing "always allow" rules into a settings file without disturbing the rest of it."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
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


def add_rules(path: Path, behavior: RuleBehavior, rules: Sequence[str]) -> tuple[str, ...]:
    """Add `rules` under `permissions.<behavior>` of the JSON file at `path` (created if missing).

    Keeps the file's other keys, their order and its indentation; returns the rules
    that were not there yet (the file is not written when there are none). Raises
    ValueError for a file that is not a JSON object (it is left untouched).
    """
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    data: Any = json.loads(text) if text.strip() else {}
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object; not changing it")
    permissions = data.setdefault("permissions", {})
    if not isinstance(permissions, dict):
        raise ValueError(f"'permissions' in {path} is not an object; not changing it")
    listed = permissions.setdefault(behavior, [])
    if not isinstance(listed, list):
        raise ValueError(f"'permissions.{behavior}' in {path} is not a list; not changing it")
    added = tuple(dict.fromkeys(rule for rule in rules if rule not in listed))
    if not added:
        return ()
    listed.extend(added)
    ending = "\n" if not text or text.endswith("\n") else ""
    atomic_write(path, (json.dumps(data, indent=_indent_of(text), ensure_ascii=False) + ending).encode("utf-8"))
    return added
