"""Workspace trust, and the approval of what workspace settings files loosen.

A workspace's `.handrail/settings.json` and `.handrail/settings.local.json` come with the
code (a checkout may carry either), so they are not believed blindly. What they tighten
(deny and ask rules, `disableBypassPermissionsMode`, a `defaultMode` of `default` or
`plan`) applies at once, in any workspace. What they would loosen
(`permissions.loosening`: allow rules, hooks, other modes, `additionalDirectories`, MCP
servers, any key handrail does not know) applies only

* in a workspace the user trusts, and
* item by item, once the user approved that exact item (its digest), having been shown
  it; an item that changes is a new item and waits again. Writing an "always allow" rule
  approves that rule alone, so the rest of the file stays as approved or pending as it was.

Trusted roots and approvals are kept in a small JSON file,
`$XDG_STATE_HOME/handrail/approvals.json` (default `~/.local/state`): `approved` maps a
file (a skill, or a settings file approved whole) to the sha256 of its approved content,
`items` a settings file to the digests of its approved items.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType

from handrail.fileio import atomic_write
from handrail.permissions.loosening import STRICT_MODES, Loosening, allow_item, item_digest, loosenings
from handrail.permissions.paths import resolve
from handrail.permissions.settings import PermissionSettings, SettingsFile, SettingsProblem
from handrail.permissions.sources import SETTINGS_DIR, WORKSPACE_SOURCES, LoadedSource
from handrail.state import state_dir

UNTRUSTED_REASON = "inactive: the workspace is not trusted"


def approvals_path(env: Mapping[str, str] | None = None) -> Path:
    """`approvals.json` in handrail's state folder."""
    return state_dir(env) / "approvals.json"


def _key(path: Path) -> str:
    return str(resolve(path))


@dataclass(frozen=True)
class Approvals:
    """Trusted workspace roots, approved contents (file path → sha256) and approved items (file → digests)."""

    trusted: frozenset[str] = frozenset()
    approved: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # the editor's own word on a root wins over the stored trust (never saved)
    client: Mapping[str, bool] = field(default_factory=lambda: MappingProxyType({}))
    items: Mapping[str, frozenset[str]] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        for name in ("approved", "client", "items"):
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(value)))

    def is_trusted(self, root: Path) -> bool:
        """Whether the user trusts the workspace rooted at `root` (trusting a folder trusts what is inside)."""
        real = resolve(root)
        if str(real) in self.client:
            return self.client[str(real)]
        return any(str(folder) in self.trusted for folder in (real, *real.parents))

    def trusted_roots(self, roots: Iterable[Path]) -> list[Path]:
        """The roots the user trusts, in order: where definitions that come with the code may load."""
        return [root for root in roots if self.is_trusted(root)]

    def with_client_trust(self, root: Path, trusted: bool) -> Approvals:
        """A copy in which the editor's answer for `root` decides, whatever is stored."""
        return replace(self, client={**self.client, _key(root): trusted})

    def approved_digest(self, file: Path) -> str | None:
        """The sha256 of the whole content the user approved for `file`, if any."""
        return self.approved.get(_key(file))

    def approved_items(self, file: Path) -> frozenset[str]:
        """The digests of the items of `file` the user approved one by one."""
        return self.items.get(_key(file), frozenset())

    def has_approved(self, file: Path) -> bool:
        """Whether the user approved anything of `file` (so what waits now is a change)."""
        return _key(file) in self.approved or bool(self.approved_items(file))

    def with_approval(self, file: Path, digest: str) -> Approvals:
        """A copy in which the content of `file` with sha256 `digest` is approved."""
        return replace(self, approved={**self.approved, _key(file): digest})

    def with_items(self, file: Path, digests: Iterable[str]) -> Approvals:
        """A copy in which these items of `file` (their digests) are approved too."""
        added = self.approved_items(file) | frozenset(digests)
        return replace(self, items={**self.items, _key(file): added})

    def approve(self, source: LoadedSource) -> Approvals:
        """A copy in which `source`'s whole current content is approved (unchanged when it has no file)."""
        if source.path is None or source.digest is None:
            return self
        return self.with_approval(source.path, source.digest)


def load_approvals(path: Path) -> tuple[Approvals, tuple[SettingsProblem, ...]]:
    """Read the approvals store; a missing file is empty, a broken one is empty with a problem."""
    try:
        raw = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        return Approvals(), ()
    except (OSError, ValueError, RecursionError) as exc:
        return Approvals(), (SettingsProblem(path, f"cannot read the approvals: {exc}", source="approvals"),)
    problems: list[SettingsProblem] = []
    trusted: set[str] = set()
    approved: dict[str, str] = {}
    items: dict[str, frozenset[str]] = {}
    if not isinstance(raw, dict):
        raw = {}
        problems.append(SettingsProblem(path, "expected a JSON object", source="approvals"))
    roots = raw.get("trusted", [])
    if isinstance(roots, list) and all(isinstance(r, str) for r in roots):
        trusted.update(roots)
    else:
        problems.append(SettingsProblem(path, "'trusted' must be a list of paths", source="approvals"))
    digests = raw.get("approved", {})
    if isinstance(digests, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in digests.items()):
        approved.update(digests)
    else:
        problems.append(SettingsProblem(path, "'approved' must map paths to sha256 digests", source="approvals"))
    listed = raw.get("items", {})
    if isinstance(listed, dict) and all(
        isinstance(v, list) and all(isinstance(d, str) for d in v) for v in listed.values()
    ):
        items.update({str(k): frozenset(v) for k, v in listed.items()})
    else:
        problems.append(SettingsProblem(path, "'items' must map paths to lists of digests", source="approvals"))
    return Approvals(frozenset(trusted), approved, items=items), tuple(problems)


def save_approvals(path: Path, approvals: Approvals) -> None:
    """Write the approvals store atomically (a temporary file renamed over the old one). Raises OSError."""
    data = {
        "version": 2,
        "trusted": sorted(approvals.trusted),
        "approved": dict(sorted(approvals.approved.items())),
        "items": {key: sorted(digests) for key, digests in sorted(approvals.items.items())},
    }
    atomic_write(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))


@dataclass(frozen=True)
class HeldBack:
    """An item of a workspace settings file that is not in force, and why (for the user to see)."""

    item: Loosening
    reason: str


@dataclass(frozen=True)
class Belief:
    """A source as far as it is believed: `source` keeps what tightens and the approved items only."""

    source: LoadedSource
    held_back: tuple[HeldBack, ...] = ()


def _name(source: LoadedSource) -> str:
    return f"{SETTINGS_DIR}/{source.path.name}" if source.path is not None else f"the {source.source} settings"


def approved_digests(
    source: LoadedSource, approvals: Approvals, items: Sequence[Loosening] | None = None
) -> frozenset[str]:
    """The digests of `source`'s current items (`items`, when already known) that are approved: all of them
    when the whole content is."""
    if source.path is None:
        return frozenset()
    digests = [item.digest for item in (loosenings(source) if items is None else items)]
    if source.digest is not None and approvals.approved_digest(source.path) == source.digest:
        return frozenset(digests)
    chosen = approvals.approved_items(source.path)
    return frozenset(digest for digest in digests if digest in chosen)


def with_rules_written(approvals: Approvals, before: LoadedSource, rules: Sequence[str]) -> Approvals:
    """The approvals after handrail wrote `rules` into `before`'s file at the user's word.

    The rules written are approved (the user chose them); what was approved stays approved
    (an approval of the whole earlier content becomes one of its items); nothing that
    waited for approval is approved by the write.
    """
    if before.path is None:
        return approvals
    kept = approved_digests(before, approvals)
    return approvals.with_items(before.path, kept | {allow_item(rule).digest for rule in rules})


def pending(source: LoadedSource, approvals: Approvals) -> tuple[Loosening, ...]:
    """The items of a workspace file in a trusted root that wait for the user's approval."""
    if source.source not in WORKSPACE_SOURCES or source.root is None or not approvals.is_trusted(source.root):
        return ()
    items = loosenings(source)
    granted = approved_digests(source, approvals, items)
    return tuple(item for item in items if item.digest not in granted)


def believe(source: LoadedSource, approvals: Approvals) -> Belief:
    """`source` as far as the trust state believes it: what tightens, and the items approved in a trusted root."""
    if source.source not in WORKSPACE_SOURCES:
        return Belief(source)
    items = loosenings(source)
    if source.root is None or not approvals.is_trusted(source.root):
        granted: frozenset[str] = frozenset()
        reason = UNTRUSTED_REASON
    else:
        granted = approved_digests(source, approvals, items)
        changed = source.path is not None and approvals.has_approved(source.path)
        reason = (
            f"inactive: {_name(source)} changed since you approved it"
            if changed
            else f"inactive: {_name(source)} has not been approved yet"
        )
    held = tuple(HeldBack(item, reason) for item in items if item.digest not in granted)
    settings = _believed_settings(source.settings, granted)
    return Belief(replace(source, settings=settings), held)


def _believed_settings(settings: SettingsFile, granted: frozenset[str]) -> SettingsFile:
    """What tightens, and the granted items: built afresh, so a setting handrail adds later starts out empty."""
    permissions = settings.permissions

    def granted_at(where: tuple[str, ...], value: object) -> bool:
        return item_digest(where, value) in granted

    mode = permissions.default_mode
    believed = PermissionSettings(
        allow=tuple(r for r in permissions.allow if granted_at(("permissions", "allow"), r)),
        deny=permissions.deny,
        ask=permissions.ask,
        defaultMode=mode if mode in STRICT_MODES or granted_at(("permissions", "defaultMode"), mode) else None,
        additionalDirectories=tuple(
            d for d in permissions.additional_directories if granted_at(("permissions", "additionalDirectories"), d)
        ),
        disableBypassPermissionsMode=permissions.disable_bypass_permissions_mode,
    )
    hooks = {
        event: kept
        for event, groups in (settings.hooks or {}).items()
        if (kept := [group for group in groups if granted_at(("hooks", event), group)])
    }
    servers = {
        name: definition
        for name, definition in (settings.mcp_servers or {}).items()
        if granted_at(("mcpServers", name), definition)
    }
    return SettingsFile(permissions=believed, hooks=hooks or None, mcpServers=servers or None)
