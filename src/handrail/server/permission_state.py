"""The workspace's permissions as the server keeps them: settings files, the client's trust, approvals.

Contexts are rebuilt when a turn starts and whenever a settings file changes, so
a rule edited mid-session applies to the next tool call. Sessions keep their own
"always allow" rules and mode on top.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from handrail.permissions.context import PermissionContext
from handrail.permissions.persist import Destination, add_rule
from handrail.permissions.sources import LoadedSource, local_settings_path, project_settings_path, user_settings_path
from handrail.permissions.trust import Approvals, save_approvals
from handrail.permissions.workspace import WorkspacePermissions, load_workspace_permissions

log = logging.getLogger(__name__)

SETTINGS_FILE_NAMES = frozenset({"settings.json", "settings.local.json"})


def is_settings_file(path: Path) -> bool:
    """Whether a changed path is one of handrail's settings files in a workspace."""
    return path.name in SETTINGS_FILE_NAMES and path.parent.name == ".handrail"


def _contents(sources: Iterable[LoadedSource]) -> list[tuple[Path, str]]:
    """(path, sha256) of the current content of each source that has a file."""
    return [(s.path, s.digest) for s in sources if s.path is not None and s.digest is not None]


class PermissionState:
    """Loads and reloads the workspace permissions; tells the user what is inactive and why."""

    def __init__(self, roots: Callable[[], Sequence[Path]], init_options: Callable[[], Mapping[str, Any]],
                 client_trusted: Callable[[], bool | None], warn: Callable[[str], None]) -> None:
        self._roots = roots
        self._init_options = init_options
        self._client_trusted = client_trusted
        self._warn = warn
        self.current: WorkspacePermissions | None = None
        self._told: set[str] = set()
        self._asked_digests: set[str] = set()

    async def refresh(self) -> WorkspacePermissions:
        """Reload every settings source (in a thread) and report new problems."""
        roots = tuple(self._roots())
        options = self._init_options()
        cli = {"permissions": options["permissions"]} if isinstance(options.get("permissions"), dict) else None
        loaded = await asyncio.to_thread(
            load_workspace_permissions, roots, cwd=roots[0], cli=cli, client_trusted=self._client_trusted()
        )
        self.current = loaded
        self._report(loaded)
        return loaded

    def _report(self, loaded: WorkspacePermissions) -> None:
        notes = [f"{p.file or p.source}: {p.message}" + (f" ({p.rule})" if p.rule else "") for p in loaded.problems]
        notes += [f"rule {r.rule} from {r.rule.source} settings is {r.reason}" for r in loaded.context.inactive_rules]
        notes += [f"{s.key} from {s.source} settings is {s.reason}" for s in loaded.context.inactive_settings]
        fresh = [note for note in notes if note not in self._told]
        if fresh:
            self._told.update(fresh)
            self._warn("handrail permissions:\n" + "\n".join(f"- {note}" for note in fresh))

    def context_for(self, rules: Sequence[Any], mode: Any) -> PermissionContext:
        """A session's context: the workspace's, plus its rules and mode."""
        assert self.current is not None, "refresh() first"
        return self.current.for_session(rules, mode)

    def pending_approvals(self) -> list[Path]:
        """Project settings files waiting for approval that the user was not asked about yet."""
        if self.current is None:
            return []
        return [
            source.path
            for source in self.current.awaiting_approval()
            if source.path is not None and source.digest not in self._asked_digests
        ]

    def mark_asked(self, other_digests: Iterable[str] = ()) -> None:
        """Do not ask about the current contents of the pending files (or `other_digests`) again in this run."""
        self._asked_digests.update(other_digests)
        if self.current is not None:
            self._asked_digests.update(s.digest for s in self.current.awaiting_approval() if s.digest)

    def was_asked(self, digest: str) -> bool:
        """Whether the user was asked about this content (a settings file's or a skill's) in this run."""
        return digest in self._asked_digests

    async def approve_project_files(self) -> int:
        """Approve the current contents of the project settings files; returns how many were approved."""
        current = self.current or await self.refresh()
        pending = current.awaiting_approval()
        await self._approve(current, _contents(pending))
        return len(pending)

    async def approve_digests(self, files: Sequence[tuple[Path, str]]) -> None:
        """Store the approval of these files' contents (path, sha256), e.g. project skills; then reload."""
        if files:
            await self._approve(self.current or await self.refresh(), files)

    async def _approve(self, current: WorkspacePermissions, files: Iterable[tuple[Path, str]]) -> None:
        """Store the approval of these files' contents (path, sha256), then reload."""
        approvals = current.approvals
        for path, digest in files:
            approvals = approvals.with_approval(path, digest)
        await self.store_approvals(current, approvals)

    async def store_approvals(self, current: WorkspacePermissions, approvals: Approvals) -> None:
        """Save `approvals` (built on `current.approvals`) in the approvals file, then reload."""
        await asyncio.to_thread(save_approvals, current.approvals_file, approvals)
        await self.refresh()

    async def persist_rule(self, destination: Destination, rule: str) -> Path | None:
        """Write an "always allow" rule to the file `destination` names (None for the session)."""
        root = self._roots()[0]
        paths: dict[str, Path] = {
            "localSettings": local_settings_path(root),
            "projectSettings": project_settings_path(root),
            "userSettings": user_settings_path(),
        }
        path = paths.get(destination)
        if path is None:
            return None
        await asyncio.to_thread(add_rule, path, "allow", rule)
        current = await self.refresh()
        if destination == "projectSettings":  # the user chose this content: keep the file approved
            await self._approve(current, _contents(s for s in current.loaded.of("project") if s.path == path))
        return path
