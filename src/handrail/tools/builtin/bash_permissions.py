"""Bash's own permission check: the command analyser's verdict, as a PermissionCheck for the pipeline.

A flagged command, or one that reaches outside the working directories, is a
safety ask: no rule and no mode settles it. Deny rules found anywhere in the
command (inside `$()`, `bash -c`, wrappers) deny the whole. The files the
command reads and writes (its arguments and redirect targets) meet the Read and
Edit rules as the file tools would: a `Read(./.env)` deny denies `cat .env`, and a
wildcard (`cat .e*`) is expanded the way the shell would to find the files it names.
"""

from __future__ import annotations

import glob
import itertools
from functools import lru_cache
from pathlib import Path

from handrail.permissions.bash import BashVerdict, analyse, analysis
from handrail.permissions.context import PermissionContext
from handrail.permissions.decision import PermissionCheck
from handrail.permissions.file_rules import call_candidates
from handrail.permissions.rules import bash_specifiers

_OUTSIDE = frozenset(
    {"path_outside_working_dirs", "redirect_outside_working_dirs", "protected_path_write", "cd_outside"}
)
_WILDCARDS = frozenset("*?[")
MAX_EXPANDED = 1000


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
        working_dirs=context.working_directories,
    )


@lru_cache(maxsize=256)
def plain_verdict(command: str) -> BashVerdict:
    """The verdict without rules or a cwd: enough for read-only, cd and must-not-interrupt, which need neither."""
    return analyse(command, cwd=Path("/"))


def _expanded(text: str) -> list[str] | None:
    """The files a wildcard path names now, as the shell would expand it (itself when it names none).

    None when there are too many to check. Python's glob follows bash's defaults: `*` skips
    dot files, `**` is `*`.
    """
    if not _WILDCARDS & set(text):
        return [text]
    found = list(itertools.islice(glob.iglob(text), MAX_EXPANDED + 1))
    if len(found) > MAX_EXPANDED:
        return None
    return found or [text]


def _file_rules_check(verdict: BashVerdict, context: PermissionContext) -> PermissionCheck | None:
    """What the Read and Edit rules say of the files the command touches (None: they say nothing)."""
    cwd = context.effective_cwd
    asks: list[str] = []
    for text, direction in (*verdict.paths, *verdict.redirect_targets):
        tool = "Edit" if direction == "write" else "Read"
        verb = "writes" if direction == "write" else "reads"
        # the path rules the pipeline matches file tools with, compiled once per context
        deny, ask = context.file_rules("deny", tool, cwd), context.file_rules("ask", tool, cwd)
        if not deny.rules and not ask.rules:
            continue
        names = _expanded(text)
        if names is None:
            asks.append(f"it {verb} `{text}`, a wildcard naming too many files to check against the {tool} rules")
            continue
        for name in names:
            forms = call_candidates((Path(name),), cwd)
            if (rule := deny.first_match(forms, "deny")) is not None:
                return PermissionCheck("deny", f"it {verb} {name}, which the rule {rule} ({rule.source}) denies")
            if (rule := ask.first_match(forms, "ask")) is not None:
                asks.append(f"it {verb} {name}, which the rule {rule} ({rule.source}) asks about")
    if asks:
        return PermissionCheck("ask", "; ".join(asks), safety=True)
    return None


def command_check(command: str, context: PermissionContext, cwd: Path) -> PermissionCheck:
    """Bash's own check of `command` run in `cwd` (blocking: wildcard paths are expanded on disk)."""
    return check_for(verdict_for(command, context, cwd), context)


def check_for(verdict: BashVerdict, context: PermissionContext | None = None) -> PermissionCheck:
    """The pipeline's view of a verdict (with the file rules of `context` applied to the files it touches)."""
    message = "; ".join(reason.message for reason in verdict.reasons)
    if verdict.behavior == "deny":
        return PermissionCheck("deny", message or "a deny rule covers part of this command")
    files = _file_rules_check(verdict, context) if context is not None else None
    if files is not None:
        return files
    if verdict.behavior == "allow":
        return PermissionCheck("allow", message or "every part of this command is allowed")
    ids = {reason.id for reason in verdict.reasons}
    if verdict.flagged or ids & _OUTSIDE:
        return PermissionCheck("ask", message or "this command needs a close look", safety=True)
    return PermissionCheck("ask", message or "this command needs approval", suggestions=verdict.suggestions)
