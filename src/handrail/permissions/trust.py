"""Workspace trust and the approval of project settings.

A workspace's `.handrail/` files come with the code, so they are not believed blindly:

* in an untrusted workspace, project and local files may only tighten: their deny and
  ask rules apply; their allow rules, `defaultMode`, `additionalDirectories` and hooks
  do not;
* in a trusted workspace, the project file's allow rules and hooks (and a `defaultMode`
  of `bypassPermissions`) apply only once the user approved that exact content (the
  sha256 of the file's bytes); when the file changes they fall back to tighten-only
  until it is approved again. The local file needs trust only.

Trusted roots and approvals are kept in a small JSON file,
`$XDG_STATE_HOME/handrail/approvals.json` (default `~/.local/state`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from handrail.fileio import atomic_write
from handrail.permissions.paths import resolve
from handrail.permissions.settings import SettingsProblem
from handrail.permissions.sources import SETTINGS_DIR, LoadedSource
from handrail.state import state_dir

FileTrust = Literal["untrusted", "unapproved", "changed", "approved", "trusted"]
"""How far a source is believed: `trusted`/`approved` fully, the others tighten-only."""

UNTRUSTED_REASON = "inactive: the workspace is not trusted"


def approvals_path(env: Mapping[str, str] | None = None) -> Path:
    """`approvals.json` in handrail's state folder."""
    return state_dir(env) / "approvals.json"


def _key(path: Path) -> str:
    return str(resolve(path))


@dataclass(frozen=True)
class Approvals:
    """Trusted workspace roots and approved settings contents (file path → sha256)."""

    trusted: frozenset[str] = frozenset()
    approved: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # the editor's own word on a root wins over the stored trust (never saved)
    client: Mapping[str, bool] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if not isinstance(self.approved, MappingProxyType):
            object.__setattr__(self, "approved", MappingProxyType(dict(self.approved)))
        if not isinstance(self.client, MappingProxyType):
            object.__setattr__(self, "client", MappingProxyType(dict(self.client)))

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
        return Approvals(self.trusted, self.approved, {**self.client, _key(root): trusted})

    def approved_digest(self, file: Path) -> str | None:
        """The sha256 the user approved for `file`, if any."""
        return self.approved.get(_key(file))

    def with_trusted(self, root: Path, trusted: bool = True) -> Approvals:
        """A copy that trusts (or no longer trusts) `root`."""
        key = _key(root)
        roots = self.trusted | {key} if trusted else self.trusted - {key}
        return Approvals(frozenset(roots), self.approved, self.client)

    def with_approval(self, file: Path, digest: str) -> Approvals:
        """A copy in which the content of `file` with sha256 `digest` is approved."""
        return Approvals(self.trusted, {**self.approved, _key(file): digest}, self.client)

    def approve(self, source: LoadedSource) -> Approvals:
        """A copy in which `source`'s current content is approved (unchanged when it has no file)."""
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
    return Approvals(frozenset(trusted), approved), tuple(problems)


def save_approvals(path: Path, approvals: Approvals) -> None:
    """Write the approvals store atomically (a temporary file renamed over the old one). Raises OSError."""
    data = {"version": 1, "trusted": sorted(approvals.trusted), "approved": dict(sorted(approvals.approved.items()))}
    atomic_write(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))


def file_trust(source: LoadedSource, approvals: Approvals) -> FileTrust:
    """How far `source` is believed, given the trusted roots and approvals."""
    if source.source not in ("project", "local"):
        return "trusted"
    if source.root is None or not approvals.is_trusted(source.root):
        return "untrusted"
    if source.source == "local":
        return "trusted"
    if source.path is None or source.digest is None:
        return "approved"  # no file, nothing to approve
    approved = approvals.approved_digest(source.path)
    if approved == source.digest:
        return "approved"
    return "unapproved" if approved is None else "changed"


def inactive_reason(source: LoadedSource, state: FileTrust) -> str | None:
    """Why `source`'s loosening settings are not in force (None when they are)."""
    name = f"{SETTINGS_DIR}/{source.path.name}" if source.path is not None else f"the {source.source} settings"
    if state == "untrusted":
        return UNTRUSTED_REASON
    if state == "changed":
        return f"inactive: {name} changed since you approved it"
    if state == "unapproved":
        return f"inactive: {name} has not been approved yet"
    return None
