"""Bash's own permission check: the command analyser's verdict, as a PermissionCheck for the pipeline.

A flagged command, or one that reaches outside the working directories, is a
safety ask: no rule and no mode settles it. Deny rules found anywhere in the
command (inside `$()`, `bash -c`, wrappers) deny the whole.
"""

from __future__ import annotations

from handrail.permissions.bash import BashVerdict, analyse
from handrail.permissions.context import PermissionContext
from handrail.permissions.decision import PermissionCheck

_OUTSIDE = frozenset(
    {"path_outside_working_dirs", "redirect_outside_working_dirs", "protected_path_write", "cd_outside"}
)


def _specifiers(context: PermissionContext, behavior: str) -> list[str]:
    rules = context.rules_for_tool(behavior, "Bash")  # type: ignore[arg-type]
    return [r.specifier for r in rules if r.tool == "Bash" and r.specifier is not None]


def verdict_for(command: str, context: PermissionContext) -> BashVerdict:
    """The analyser's verdict for `command` under the Bash rules of `context`."""
    return analyse(
        command,
        allow=_specifiers(context, "allow"),
        deny=_specifiers(context, "deny"),
        ask=_specifiers(context, "ask"),
        cwd=context.effective_cwd,
        working_dirs=context.working_directories,
    )


def check_for(verdict: BashVerdict) -> PermissionCheck:
    """The pipeline's view of a verdict."""
    message = "; ".join(reason.message for reason in verdict.reasons)
    if verdict.behavior == "deny":
        return PermissionCheck("deny", message or "a deny rule covers part of this command")
    if verdict.behavior == "allow":
        return PermissionCheck("allow", message or "every part of this command is allowed")
    ids = {reason.id for reason in verdict.reasons}
    if verdict.flagged or ids & _OUTSIDE:
        return PermissionCheck("ask", message or "this command needs a close look", safety=True)
    return PermissionCheck("ask", message or "this command needs approval", suggestions=verdict.suggestions)
