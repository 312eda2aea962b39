"""Permission rules as written in settings: `Tool`, `Tool(specifier)`, `Bash(npm test:*)`.

This is the first cut of the grammar: tool-wide rules, exact specifiers, and Bash
prefix rules (`prefix:*` or `prefix *`). Parsing never raises; a malformed rule
comes back as a `RuleError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_RULE = re.compile(r"^(?P<tool>[A-Za-z_][A-Za-z0-9_\-]*)(?:\((?P<spec>.*)\))?$", re.DOTALL)


@dataclass(frozen=True)
class PermissionRule:
    """One parsed rule; `specifier` is None for a rule that covers the whole tool."""

    tool: str
    specifier: str | None = None
    source: str = "session"

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"


@dataclass(frozen=True)
class RuleError:
    """A rule that could not be parsed, with the reason."""

    text: str
    message: str
    source: str = "session"


def parse_rule(text: str, source: str = "session") -> PermissionRule | RuleError:
    """Parse one rule string; malformed input gives a `RuleError`, never an exception."""
    stripped = text.strip()
    match = _RULE.match(stripped)
    if match is None:
        return RuleError(text, "expected Tool or Tool(specifier)", source)
    spec = match.group("spec")
    if spec is not None and not spec.strip():
        return RuleError(text, "empty specifier: write the tool name alone to cover the whole tool", source)
    return PermissionRule(match.group("tool"), spec.strip() if spec is not None else None, source)


def _bash_prefix(specifier: str) -> str | None:
    if specifier.endswith(":*"):
        return specifier[:-2]
    if specifier.endswith(" *"):
        return specifier[:-2]
    return None


def rule_matches(rule: PermissionRule, tool_name: str, content: str | None) -> bool:
    """Whether `rule` covers a call of `tool_name` whose rule content is `content`."""
    if rule.tool != tool_name:
        return False
    if rule.specifier is None:
        return True
    if content is None:
        return False
    prefix = _bash_prefix(rule.specifier) if tool_name == "Bash" else None
    if prefix is not None:
        # a word boundary: `npm test:*` covers `npm test` and `npm test -x`, not `npm testing`
        return content == prefix or content.startswith(prefix + " ")
    return content == rule.specifier
