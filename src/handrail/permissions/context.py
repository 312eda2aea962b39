"""The immutable permission context a session decides with."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from handrail.permissions.rules import PermissionRule

RuleBehavior = Literal["allow", "deny", "ask"]


@dataclass(frozen=True)
class PermissionContext:
    """Workspace roots and rules in force; changed only by making a new context."""

    workspace_roots: tuple[Path, ...] = ()
    allow: tuple[PermissionRule, ...] = ()
    deny: tuple[PermissionRule, ...] = ()
    ask: tuple[PermissionRule, ...] = ()

    def with_rule(self, behavior: RuleBehavior, rule: PermissionRule) -> PermissionContext:
        """A new context with `rule` added under `behavior` (no duplicates)."""
        current: tuple[PermissionRule, ...] = getattr(self, behavior)
        if rule in current:
            return self
        added = (*current, rule)
        if behavior == "allow":
            return replace(self, allow=added)
        if behavior == "deny":
            return replace(self, deny=added)
        return replace(self, ask=added)

    def rules(self, behavior: RuleBehavior) -> tuple[PermissionRule, ...]:
        """The rules under `behavior`."""
        rules: tuple[PermissionRule, ...] = getattr(self, behavior)
        return rules
