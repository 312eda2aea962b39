"""Bash's own permission check: what the command line runs and touches, for the pipeline to decide.

The analyser judges the commands (deny rules anywhere in the line deny it; flagged constructs
are a safety ask no rule or mode settles; each part must be covered). What the commands touch
goes to the pipeline resolved (`permissions.touches`): every file they read, write, run,
search or move into, decided there by the same code as Read and Edit, after symlinks are
followed. Every repository a git command will use is looked at first (`permissions.gitdir`):
one whose configuration makes git run a program is a safety ask too, and what git prints of its
work tree (`git log -p` in a subfolder prints the whole tree) is searched there. An archive a
command extracts is listed (`permissions.archive_members`): each file it would write is a write
like any other, and one that cannot be listed, or could write elsewhere, is a safety ask.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from handrail.permissions.archive_members import Members, archive_members
from handrail.permissions.bash import BashVerdict, analyse, analysis
from handrail.permissions.bash.model import Access, GitUse, Unpack
from handrail.permissions.context import PermissionContext
from handrail.permissions.decision import PermissionCheck, Touch
from handrail.permissions.gitdir import Repository, inspect_repository
from handrail.permissions.paths import one_decision
from handrail.permissions.rules import bash_specifiers
from handrail.permissions.touches import resolve_accesses

# analyser findings that no rule can settle (a path or a landing place it cannot know)
_UNKNOWABLE = frozenset(
    {"path_outside_working_dirs", "redirect_unresolved", "cd_outside", "git_repository_unknown", "unpack_unknown"}
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
            repositories = [(use, _repository(use, context)) for use in verdict.git]
            printed = [access for use, found in repositories for access in _tree_reads(use, found, context)]
            unpacked = [(unpack, _members(unpack)) for unpack in verdict.unpacks]
            extracted = [
                Access(os.path.join(unpack.destination, name), "write")
                for unpack, found in unpacked
                for name in found.names
            ]
            touches = resolve_accesses(tuple(dict.fromkeys((*verdict.accesses, *printed, *extracted))), context)
        unsafe = [
            f"git would use the repository {found.git_dir}, and {problem}"
            for _, found in repositories
            for problem in found.problems
        ]
        unsafe.extend(f"it extracts an archive, and {found.problem}" for _, found in unpacked if found.problem)
        if unsafe:
            return PermissionCheck("ask", "; ".join(dict.fromkeys(unsafe)), safety=True, touches=touches)
    if verdict.behavior == "allow":
        return PermissionCheck("allow", message or "every part of this command is allowed", touches=touches)
    ids = {reason.id for reason in verdict.reasons}
    if verdict.flagged or ids & _UNKNOWABLE:
        return PermissionCheck("ask", message or "this command needs a close look", safety=True, touches=touches)
    return PermissionCheck(
        "ask", message or "this command needs approval", suggestions=verdict.suggestions, touches=touches
    )


def _members(unpack: Unpack) -> Members:
    """The files extracting `unpack` writes, read from the archive (or why they cannot be known)."""
    assert unpack.archive is not None and unpack.format is not None  # the analyser records only these
    return archive_members(unpack.archive, unpack.format, strip=unpack.strip, junk_paths=unpack.junk_paths)


def _repository(use: GitUse, context: PermissionContext) -> Repository:
    """The repository one git command will use, as git finds it, and what in it would make git run programs."""
    return inspect_repository(
        use.start, use.git_dir, inside=context.working_roots.contain, subcommand=use.subcommand, env=os.environ
    )


def _tree_reads(use: GitUse, repository: Repository, context: PermissionContext) -> list[Access]:
    """What a git command prints from its repository's work tree, wherever in it the command runs.

    `git log -p` in a subfolder prints the changes of the whole tree, and `HEAD:.env` is the top's
    `.env`. Of a work tree larger than the working directories (a workspace opened on one package of
    a larger repository), the part inside them is searched: that is where the rules are about. The
    search takes in history: a file the rules name was perhaps committed once and deleted since.
    """
    tree = repository.work_tree
    if tree is None:
        return []
    out = [Access(os.path.join(tree, name), "read") for name in use.from_top]
    if use.whole_tree:
        working = context.working_roots
        if working.contain(tree):
            out.append(Access(tree, "search", history=True))
        else:
            inside = tree.rstrip("/") + "/"
            out.extend(Access(root, "search", history=True) for root in working.real if root.startswith(inside))
    return out
