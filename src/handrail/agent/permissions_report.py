"""The `handrail.permissions` report: the rules in force, those that are not (with why), the settings' problems."""

from __future__ import annotations

from handrail.permissions.context import PermissionContext, RuleBehavior
from handrail.permissions.workspace import WorkspacePermissions
from handrail.wire.models import (
    InactiveRule,
    InactiveSetting,
    PermissionsReport,
    RuleEntry,
    SettingsProblem,
)


def describe_context(context: PermissionContext, current: WorkspacePermissions) -> PermissionsReport:
    """The rules in force and those that are not (with why), for users debugging their settings.

    An inactive entry carries the `digest` that approves it when approving can make it apply.
    """

    def rules(behavior: RuleBehavior) -> list[RuleEntry]:
        return [RuleEntry(rule=str(r), source=r.source) for r in context.rules(behavior)]

    inactive: list[InactiveRule | InactiveSetting] = []
    for r in context.inactive_rules:
        digest = {"digest": r.digest} if r.digest is not None else {}
        inactive.append(InactiveRule(rule=str(r.rule), behavior=r.behavior, source=r.rule.source, reason=r.reason,
                                     **digest))
    for s in context.inactive_settings:
        given = {"value": s.value, "digest": s.digest}
        inactive.append(InactiveSetting(setting=s.key, source=s.source, reason=s.reason,
                                        **{k: v for k, v in given.items() if v is not None}))
    return PermissionsReport(
        mode=context.mode,
        working_directories=[str(p) for p in context.working_directories],
        allow=rules("allow"),
        deny=rules("deny"),
        ask=rules("ask"),
        inactive=inactive,
        problems=[SettingsProblem(file=str(p.file), message=p.message, rule=p.rule) for p in current.problems],
    )
