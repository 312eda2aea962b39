"""The permissions of a workspace, loaded the same way for the server and for `handrail permissions check`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handrail.permissions.context import PermissionContext, build_context
from handrail.permissions.loosening import Loosening
from handrail.permissions.modes import PermissionMode
from handrail.permissions.rules import PermissionRule
from handrail.permissions.settings import SettingsProblem
from handrail.permissions.sources import (
    DEFAULT_POLICY_PATH,
    WORKSPACE_SOURCES,
    LoadedSettings,
    LoadedSource,
    load_sources,
)
from handrail.permissions.trust import Approvals, approvals_path, load_approvals, pending


@dataclass(frozen=True)
class WorkspacePermissions:
    """The context from every settings source and the trust state, with what went wrong loading them."""

    context: PermissionContext
    loaded: LoadedSettings
    approvals: Approvals
    approvals_file: Path
    problems: tuple[SettingsProblem, ...]

    def awaiting_approval(self) -> tuple[tuple[LoadedSource, tuple[Loosening, ...]], ...]:
        """The workspace files (project, local) in trusted folders with items waiting for approval, and the items."""
        found = ((s, pending(s, self.approvals)) for s in self.loaded.sources if s.source in WORKSPACE_SOURCES)
        return tuple((source, items) for source, items in found if items)

    def for_session(self, rules: Sequence[PermissionRule], mode: PermissionMode | None) -> PermissionContext:
        """The context with a session's own "always allow" rules and mode on top."""
        context = self.context
        for rule in rules:
            context = context.with_rule("allow", rule)
        return context.with_mode(mode) if mode is not None else context


def load_workspace_permissions(
    roots: Sequence[Path],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    cli: Mapping[str, Any] | None = None,
    client_trusted: bool | None = None,
    approve_project: bool = False,
    policy_path: Path | None = DEFAULT_POLICY_PATH,
    approvals_file: Path | None = None,
) -> WorkspacePermissions:
    """Load every source for `roots`. `client_trusted` (the editor's word) overrides stored trust;
    `approve_project` treats the project and local files as approved (for `permissions check --trusted`)."""
    loaded = load_sources(roots, policy_path=policy_path, env=env, cli=cli, cwd=cwd)
    file = approvals_file if approvals_file is not None else approvals_path(env)
    approvals, approval_problems = load_approvals(file)
    if client_trusted is not None:
        for root in roots:
            approvals = approvals.with_client_trust(root, client_trusted)
    if approve_project:
        for source in (*loaded.of("project"), *loaded.of("local")):
            approvals = approvals.approve(source)
    context = build_context(loaded, approvals, workspace_roots=roots, cwd=cwd)
    return WorkspacePermissions(context, loaded, approvals, file, (*loaded.problems, *approval_problems))
