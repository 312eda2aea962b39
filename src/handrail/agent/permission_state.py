"""The workspace's permissions as the server keeps them: settings files, the client's trust, approvals.

Contexts are rebuilt when a turn starts and whenever a settings file changes, so
a rule edited mid-session applies to the next tool call. Sessions keep their own
"always allow" rules and mode on top.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handrail.permissions.context import PermissionContext
from handrail.permissions.loosening import Loosening
from handrail.permissions.mcp_approval import with_server_approved
from handrail.permissions.persist import Destination, add_rules
from handrail.permissions.sources import (
    SourceName,
    load_file,
    local_settings_path,
    project_settings_path,
    user_settings_path,
)
from handrail.permissions.trust import Approvals, save_approvals, with_rules_written
from handrail.permissions.workspace import WorkspacePermissions, load_workspace_permissions

log = logging.getLogger(__name__)

SETTINGS_FILE_NAMES = frozenset({"settings.json", "settings.local.json"})
_WORKSPACE_DESTINATIONS: dict[str, tuple[SourceName, Callable[[Path], Path]]] = {
    "localSettings": ("local", local_settings_path),
    "projectSettings": ("project", project_settings_path),
}


def is_settings_file(path: Path) -> bool:
    """Whether a changed path is one of handrail's settings files in a workspace."""
    return path.name in SETTINGS_FILE_NAMES and path.parent.name == ".handrail"


@dataclass(frozen=True)
class PendingFile:
    """A workspace settings file and the items of it that wait for the user's approval."""

    path: Path
    items: tuple[Loosening, ...]


def approve_items(approvals: Approvals, files: Iterable[PendingFile]) -> Approvals:
    """`approvals` with exactly these items approved (an MCP server's definition the way its own prompt approves it)."""
    for file in files:
        for item in file.items:
            if item.kind == "mcpServers":
                approvals = with_server_approved(approvals, name=item.where[1], file=file.path, digest=item.digest)
            else:
                approvals = approvals.with_items(file.path, (item.digest,))
    return approvals


def _write_rules(path: Path, source: SourceName, root: Path, rules: Sequence[str], approvals: Approvals) -> Approvals:
    """Write `rules` into a workspace file; the approvals that keep the rest of it as approved or pending as it was."""
    before = load_file(path, source, root)
    add_rules(path, "allow", rules)
    return with_rules_written(approvals, before, rules)


class PermissionState:
    """Loads and reloads the workspace permissions; tells the user what is inactive and why."""

    def __init__(self, roots: Callable[[], Sequence[Path]], init_options: Callable[[], Mapping[str, Any]],
                 client_trusted: Callable[[], bool | None], warn: Callable[[str], None],
                 held_back: Callable[[str], None]) -> None:
        self._roots = roots
        self._init_options = init_options
        self._client_trusted = client_trusted
        self._warn = warn
        self._held_back = held_back
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
        problems = [f"{p.file or p.source}: {p.message}" + (f" ({p.rule})" if p.rule else "") for p in loaded.problems]
        inactive = [f"rule {r.rule} from {r.rule.source} settings is {r.reason}" for r in loaded.context.inactive_rules]
        inactive += [
            f"{s.value or s.key} from {s.source} settings is {s.reason}" for s in loaded.context.inactive_settings
        ]
        for notes, tell in ((problems, self._warn), (inactive, self._held_back)):
            fresh = [note for note in notes if note not in self._told]
            if fresh:
                self._told.update(fresh)
                tell("handrail permissions:\n" + "\n".join(f"- {note}" for note in fresh))

    def context_for(self, rules: Sequence[Any], mode: Any) -> PermissionContext:
        """A session's context: the workspace's, plus its rules and mode."""
        assert self.current is not None, "refresh() first"
        return self.current.for_session(rules, mode)

    def pending_approvals(self) -> list[PendingFile]:
        """The items of workspace settings files waiting for approval that the user was not asked about yet."""
        if self.current is None:
            return []
        files = [
            PendingFile(source.path, tuple(item for item in items if item.digest not in self._asked_digests))
            for source, items in self.current.awaiting_approval()
            if source.path is not None
        ]
        return [file for file in files if file.items]

    def mark_asked(self, digests: Iterable[str]) -> None:
        """Do not ask about these contents (settings items, skills) again in this run."""
        self._asked_digests.update(digests)

    def was_asked(self, digest: str) -> bool:
        """Whether the user was asked about this content (a settings item, a skill) in this run."""
        return digest in self._asked_digests

    async def approve_items(self, files: Sequence[PendingFile]) -> None:
        """Approve exactly these items (the ones the user was shown), then reload."""
        if files:
            current = self.current or await self.refresh()
            await self.store_approvals(current, approve_items(current.approvals, files))

    async def approve_project_files(self, digests: Iterable[str] | None = None) -> list[str]:
        """Approve what waits in the workspace files now (only the items with these `digests`, when given);
        returns what was approved, as shown to the user."""
        current = await self.refresh()
        wanted = None if digests is None else set(digests)
        files = [
            PendingFile(source.path, tuple(i for i in items if wanted is None or i.digest in wanted))
            for source, items in current.awaiting_approval()
            if source.path is not None
        ]
        await self.approve_items([file for file in files if file.items])
        return [item.shown for file in files for item in file.items]

    async def approve_digests(self, files: Sequence[tuple[Path, str]]) -> None:
        """Store the approval of these files' whole contents (path, sha256), e.g. project skills; then reload."""
        if files:
            current = self.current or await self.refresh()
            approvals = current.approvals
            for path, digest in files:
                approvals = approvals.with_approval(path, digest)
            await self.store_approvals(current, approvals)

    async def store_approvals(self, current: WorkspacePermissions, approvals: Approvals) -> None:
        """Save `approvals` (built on `current.approvals`) in the approvals file, then reload."""
        await asyncio.to_thread(save_approvals, current.approvals_file, approvals)
        await self.refresh()

    async def persist_rules(self, destination: Destination, rules: Sequence[str]) -> Path | None:
        """Write "always allow" rules to the file `destination` names (None for the session).

        In a workspace file, the rules written are approved and nothing else changes: what
        was approved stays approved, what waits for approval still waits.
        """
        root = self._roots()[0]
        if destination == "userSettings":
            path = user_settings_path()
            await asyncio.to_thread(add_rules, path, "allow", rules)
            await self.refresh()
            return path
        if destination not in _WORKSPACE_DESTINATIONS:
            return None
        source, where = _WORKSPACE_DESTINATIONS[destination]
        path = where(root)
        current = self.current or await self.refresh()
        approvals = await asyncio.to_thread(_write_rules, path, source, root, rules, current.approvals)
        await self.store_approvals(current, approvals)
        return path
