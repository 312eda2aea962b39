"""Bash's own permission check: what the command line runs and touches, for the pipeline to decide.

The analyser judges the commands (deny rules anywhere in the line deny it; flagged constructs
are a safety ask no rule or mode settles; each part must be covered). What the commands touch
goes to the pipeline resolved (`permissions.touches`): every file they read, write, run,
search or move into, decided there by the same code as Read and Edit, after symlinks are
followed. Every repository a git command will use is looked at first (`permissions.gitdir`):
one whose configuration makes git run a program is a safety ask too.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from handrail.permissions.bash import BashVerdict, analyse, analysis
from handrail.permissions.context import PermissionContext
from handrail.permissions.decision import PermissionCheck, Touch
from handrail.permissions.gitdir import inspect_repository
from handrail.permissions.paths import one_decision
from handrail.permissions.rules import bash_specifiers
from handrail.permissions.touches import resolve_accesses

# analyser findings that no rule can settle (a path or a landing place it cannot know)
_UNKNOWABLE = frozenset(
    {"path_outside_working_dirs", "redirect_unresolved", "cd_outside", "git_repository_unknown"}
)


def verdict_for(command: str, context: PermissionContext, cwd: Path | None = None) -> BashVerdict:
    """The analyser's verdict for `command` run in `cwd` (default: the context's) under the Bash rules of `context`.

    The same analysis the pipeline's Bash rule steps use (cached), so a decision analyses the line once.
    """
    return analysis(
        command,
        allow=bash_specifiers(context.rules_for_tool("allow", "Bash")),
        deny=bash_specifiers(context.rules_for_tool("deny", "Bash")),
        ask=bash_specifiers(context.rules_for_tool("ask", "Bash")),
        cwd=cwd if cwd is not None else context.effective_cwd,
    )


@lru_cache(maxsize=256)
def plain_verdict(command: str) -> BashVerdict:
    """The verdict without rules or a cwd: enough for read-only, cd and must-not-interrupt, which need neither."""
    return analyse(command, cwd=Path("/"))


def command_check(command: str, context: PermissionContext, cwd: Path) -> PermissionCheck:
    """Bash's own check of `command` run in `cwd` (blocking: it resolves paths and reads repositories on disk)."""
    return check_for(verdict_for(command, context, cwd), context)


def check_for(verdict: BashVerdict, context: PermissionContext | None = None) -> PermissionCheck:
    """The pipeline's view of a verdict: its judgement of the commands, and (with `context`) what they touch."""
    message = "; ".join(reason.message for reason in verdict.reasons)
    if verdict.behavior == "deny":
        return PermissionCheck("deny", message or "a deny rule covers part of this command")
    touches: tuple[Touch, ...] = ()
    if context is not None:
        with one_decision():
            touches = resolve_accesses(verdict.accesses, context)
            unsafe = _unsafe_repositories(verdict, context)
        if unsafe:
            return PermissionCheck("ask", "; ".join(unsafe), safety=True, touches=touches)
    if verdict.behavior == "allow":
        return PermissionCheck("allow", message or "every part of this command is allowed", touches=touches)
    ids = {reason.id for reason in verdict.reasons}
    if verdict.flagged or ids & _UNKNOWABLE:
        return PermissionCheck("ask", message or "this command needs a close look", safety=True, touches=touches)
    return PermissionCheck(
        "ask", message or "this command needs approval", suggestions=verdict.suggestions, touches=touches
    )


def _unsafe_repositories(verdict: BashVerdict, context: PermissionContext) -> list[str]:
    """Why the repositories the line's git commands use would make git run programs (empty when they would not)."""
    if not verdict.git:
        return []
    working = context.working_roots
    found: list[str] = []
    for use in verdict.git:
        repository = inspect_repository(
            use.start,
            use.git_dir,
            inside=working.contain,
            subcommand=use.subcommand,
            env=os.environ,
        )
        for problem in repository.problems:
            found.append(f"git would use the repository {repository.git_dir}, and {problem}")
    return list(dict.fromkeys(found))
