"""Where settings come from, and loading them all without ever failing.

Sources, from the highest precedence for single-valued settings to the lowest:

* `policy`  - `/etc/handrail/managed-settings.json` (managed by an administrator)
* `cli`     - command-line / LSP initialization options (a dict in the settings shape)
* `local`   - `<root>/.handrail/settings.local.json` (one per workspace root)
* `project` - `<root>/.handrail/settings.json` (one per workspace root, usually committed)
* `user`    - `$XDG_CONFIG_HOME/handrail/settings.json` (default `~/.config`)
* `session` - rules and settings given during the session

Rules of every source are kept (a deny from any source wins over an ask, which wins
over an allow); whether project and local files may loosen anything is decided by
`handrail.permissions.trust`.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from handrail.permissions.rules import PermissionRule, RuleError, parse_rule
from handrail.permissions.settings import SettingsFile, SettingsProblem, decode_settings, parse_settings

SourceName = Literal["policy", "cli", "local", "project", "user", "session"]
PRECEDENCE: tuple[SourceName, ...] = ("policy", "cli", "local", "project", "user", "session")
WORKSPACE_SOURCES: frozenset[SourceName] = frozenset({"project", "local"})
DEFAULT_POLICY_PATH = Path("/etc/handrail/managed-settings.json")
SETTINGS_DIR = ".handrail"
MAX_SETTINGS_BYTES = 1 << 20


def user_settings_path(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/handrail/settings.json`, with `~/.config` when the variable is unset or empty."""
    environ = os.environ if env is None else env
    config = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "handrail" / "settings.json"


def project_settings_path(root: Path) -> Path:
    """The shared settings file of a workspace root."""
    return root / SETTINGS_DIR / "settings.json"


def local_settings_path(root: Path) -> Path:
    """The personal, uncommitted settings file of a workspace root."""
    return root / SETTINGS_DIR / "settings.local.json"


def workspace_directory(text: str, root: Path | None) -> Path:
    """An `additionalDirectories` entry as a folder: `~` expanded, a relative one under `root` (else the cwd)."""
    path = Path(text).expanduser()
    if path.is_absolute():
        return path
    return (root if root is not None else Path.cwd()) / path


@dataclass(frozen=True)
class LoadedSource:
    """One source as read: its settings, where it came from, and what was wrong with it.

    `root` is the folder the source governs: `/x` file rules are relative to it (the
    workspace root for project and local files, the file's folder for user and policy
    files, the cwd for cli and session). `digest` is the sha256 of the file's bytes.
    `raw` is the file's JSON object as written (read-only), keys handrail does not
    know included: what a workspace file would change is judged from it.
    """

    source: SourceName
    settings: SettingsFile
    path: Path | None = None
    root: Path | None = None
    digest: str | None = None
    problems: tuple[SettingsProblem, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), compare=False)

    def rules(self, behavior: Literal["allow", "deny", "ask"]) -> tuple[PermissionRule, ...]:
        """The source's rules under `behavior`, each knowing its source and root."""
        texts: tuple[str, ...] = getattr(self.settings.permissions, behavior)
        parsed = (parse_rule(text, source=self.source, root=self.root) for text in texts)
        return tuple(rule for rule in parsed if not isinstance(rule, RuleError))

    @property
    def exists(self) -> bool:
        """Whether a file was read for this source."""
        return self.digest is not None


@dataclass(frozen=True)
class LoadedSettings:
    """Every source, in precedence order (highest first), and all their problems."""

    sources: tuple[LoadedSource, ...]

    @property
    def problems(self) -> tuple[SettingsProblem, ...]:
        """The problems of all sources, in source order."""
        return tuple(problem for source in self.sources for problem in source.problems)

    def of(self, name: SourceName) -> tuple[LoadedSource, ...]:
        """The sources called `name` (several for project and local with several roots)."""
        return tuple(source for source in self.sources if source.source == name)


def digest_of(data: bytes) -> str:
    """The sha256 of a settings file's bytes, as hex: what an approval records."""
    return hashlib.sha256(data).hexdigest()


def load_file(path: Path, source: SourceName, root: Path | None = None) -> LoadedSource:
    """Read one settings file; a missing file is empty, an unreadable one is empty with a problem."""
    base = root if root is not None else path.parent
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO or a device would block or never end
            problem = SettingsProblem(path, "not a regular file", source=source)
            return LoadedSource(source, SettingsFile(), path, base, problems=(problem,))
        with path.open("rb") as handle:
            data = handle.read(MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return LoadedSource(source, SettingsFile(), path, base)
    except (OSError, ValueError) as exc:
        problem = SettingsProblem(path, f"cannot read the file: {exc}", source=source)
        return LoadedSource(source, SettingsFile(), path, base, problems=(problem,))
    if len(data) > MAX_SETTINGS_BYTES:
        problem = SettingsProblem(path, f"the file is larger than {MAX_SETTINGS_BYTES} bytes", source=source)
        return LoadedSource(source, SettingsFile(), path, base, digest_of(data), (problem,))
    raw, problems = decode_settings(data, file=path, source=source)
    settings, more = parse_settings(raw, file=path, source=source)
    frozen = MappingProxyType(dict(raw)) if raw is not None else MappingProxyType({})
    return LoadedSource(source, settings, path, base, digest_of(data), (*problems, *more), frozen)


def load_mapping(data: Mapping[str, Any] | None, source: SourceName, root: Path | None = None) -> LoadedSource:
    """A source given as decoded JSON (cli/initialization options, session settings)."""
    settings, problems = parse_settings(data, source=source)
    return LoadedSource(source, settings, None, root, None, problems)


def load_sources(
    workspace_roots: Sequence[Path],
    *,
    policy_path: Path | None = DEFAULT_POLICY_PATH,
    user_path: Path | None = None,
    env: Mapping[str, str] | None = None,
    cli: Mapping[str, Any] | None = None,
    session: LoadedSource | None = None,
    cwd: Path | None = None,
) -> LoadedSettings:
    """Load every source, in precedence order. Never raises.

    `policy_path=None` skips the policy file; `user_path` defaults to `user_settings_path(env)`.
    """
    here = cwd if cwd is not None else (workspace_roots[0] if workspace_roots else None)
    sources: list[LoadedSource] = []
    if policy_path is not None:
        sources.append(load_file(policy_path, "policy"))
    if cli is not None:
        sources.append(load_mapping(cli, "cli", here))
    sources.extend(load_file(local_settings_path(root), "local", root) for root in workspace_roots)
    sources.extend(load_file(project_settings_path(root), "project", root) for root in workspace_roots)
    sources.append(load_file(user_path if user_path is not None else user_settings_path(env), "user"))
    if session is not None:
        sources.append(session)
    order = {name: index for index, name in enumerate(PRECEDENCE)}
    sources.sort(key=lambda s: order[s.source])  # stable: roots keep their order
    return LoadedSettings(tuple(sources))
