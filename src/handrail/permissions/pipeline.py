"""The decision pipeline: rules, the tool's own check, and the read-only default, in that order."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from handrail.permissions.context import PermissionContext, RuleBehavior
from handrail.permissions.decision import DecisionReason, PermissionCheck, PermissionDecision
from handrail.permissions.paths import is_inside
from handrail.permissions.rules import PermissionRule, rule_matches


@dataclass(frozen=True)
class CallFacts:
    """What the pipeline knows of one tool call; tools describe themselves through this."""

    tool_name: str
    read_only: bool
    rule_content: str | None = None
    paths: tuple[Path, ...] = ()


def _first_match(context: PermissionContext, behavior: RuleBehavior, facts: CallFacts) -> PermissionRule | None:
    for rule in context.rules(behavior):
        if rule_matches(rule, facts.tool_name, facts.rule_content):
            return rule
    return None


def decide(facts: CallFacts, check: PermissionCheck, context: PermissionContext) -> PermissionDecision:
    """Decide one call. Fails closed: anything not explicitly allowed is asked."""

    def verdict(behavior: RuleBehavior, reason: DecisionReason) -> PermissionDecision:
        return PermissionDecision(behavior, reason, check.diff, check.suggestions)

    if (rule := _first_match(context, "deny", facts)) is not None:
        return verdict("deny", DecisionReason("rule", f"denied by the rule {rule} ({rule.source})", str(rule)))
    if check.behavior == "deny":
        return verdict("deny", DecisionReason("tool", check.message))
    if (rule := _first_match(context, "ask", facts)) is not None:
        return verdict("ask", DecisionReason("rule", f"the rule {rule} ({rule.source}) asks", str(rule)))
    if check.behavior == "ask":
        return verdict("ask", DecisionReason("tool", check.message))
    if check.behavior == "allow":
        return verdict("allow", DecisionReason("tool", check.message))
    if (rule := _first_match(context, "allow", facts)) is not None:
        return verdict("allow", DecisionReason("rule", f"allowed by the rule {rule} ({rule.source})", str(rule)))
    if facts.read_only:
        if all(is_inside(p, context.workspace_roots) for p in facts.paths):
            return verdict(
                "allow", DecisionReason("read_only_in_workspace", "reads inside the workspace run without asking")
            )
        return verdict("ask", DecisionReason("outside_workspace", "reads outside the workspace need approval"))
    return verdict("ask", DecisionReason("default", "this tool changes things, so it needs approval"))
