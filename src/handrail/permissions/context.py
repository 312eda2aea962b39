"""The immutable permission context a session decides with, and how it is built from settings."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from handrail.permissions.file_rules import FileRules
from handrail.permissions.modes import PERMISSION_MODES, PermissionMode
from handrail.permissions.paths import Roots
from handrail.permissions.rules import FILE_TOOLS, PermissionRule, rule_covers_tool
from handrail.permissions.sources import WORKSPACE_SOURCES, LoadedSettings, LoadedSource, workspace_directory
from handrail.permissions.trust import Approvals, believe

RuleBehavior = Literal["allow", "deny", "ask"]
_MISSING: Any = object()
T = TypeVar("T")
BYPASS_DISABLED_REASON = "inactive: bypassPermissions mode is disabled by policy"
AUTO_FROM_WORKSPACE_REASON = "inactive: only user settings, policy or the cli may turn auto mode on"


def freeze_json(value: Any) -> Any:
    """A read-only copy of decoded JSON: objects become MappingProxyType, arrays tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): freeze_json(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze_json(v) for v in value)
    return value


@dataclass(frozen=True)
class InactiveRule:
    """A rule that was read but is not in force, and why (for the user to see); `digest` approves it."""

    behavior: RuleBehavior
    rule: PermissionRule
    reason: str
    path: Path | None = None
    digest: str | None = None


@dataclass(frozen=True)
class InactiveSetting:
    """A setting (`defaultMode`, an `additionalDirectories` entry, a hook…) that is not in force, and why.

    `value` shows what it would do; `digest` approves it (for a held-back item of a workspace file).
    """

    source: str
    key: str
    reason: str
    path: Path | None = None
    value: str | None = None
    digest: str | None = None


@dataclass(frozen=True)
class SourcedHooks:
    """The hooks configuration of one source, frozen (objects are MappingProxyType, arrays tuples)."""

    source: str
    config: Mapping[str, Any]
    path: Path | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.config, MappingProxyType):
            object.__setattr__(self, "config", freeze_json(self.config))


@dataclass(frozen=True)
class PermissionContext:
    """Everything a decision depends on; changed only by making a new context.

    `cwd` defaults to the first workspace root. The working directories are the
    workspace roots plus `additional_directories`.
    """

    workspace_roots: tuple[Path, ...] = ()
    allow: tuple[PermissionRule, ...] = ()
    deny: tuple[PermissionRule, ...] = ()
    ask: tuple[PermissionRule, ...] = ()
    mode: PermissionMode = "default"
    additional_directories: tuple[Path, ...] = ()
    cwd: Path | None = None
    bypass_disabled: bool = False
    inactive_rules: tuple[InactiveRule, ...] = ()
    inactive_settings: tuple[InactiveSetting, ...] = ()
    hooks: tuple[SourcedHooks, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in PERMISSION_MODES:
            raise ValueError(f"unknown permission mode {self.mode!r}")
        if self.mode == "bypassPermissions" and self.bypass_disabled:
            raise ValueError("bypassPermissions mode is disabled by policy")

    def with_rule(self, behavior: RuleBehavior, rule: PermissionRule) -> PermissionContext:
        """A new context with `rule` added under `behavior` (no duplicates)."""
        current = self.rules(behavior)
        if rule in current:
            return self
        added = (*current, rule)
        if behavior == "allow":
            return replace(self, allow=added)
        if behavior == "deny":
            return replace(self, deny=added)
        return replace(self, ask=added)

    def with_mode(self, mode: PermissionMode) -> PermissionContext:
        """A new context in `mode`; raises ValueError for an unknown mode or a bypass that policy disabled."""
        if mode == self.mode:
            return self
        return replace(self, mode=mode)

    def rules(self, behavior: RuleBehavior) -> tuple[PermissionRule, ...]:
        """The rules under `behavior`."""
        rules: tuple[PermissionRule, ...] = getattr(self, behavior)
        return rules

    def rules_for_tool(
        self, behavior: RuleBehavior, tool_name: str, aliases: tuple[str, ...] = ()
    ) -> tuple[PermissionRule, ...]:
        """The rules under `behavior` that can concern `tool_name` (or one of its `aliases`), in order.

        Indexed once per context: a rule written with a tool's old name (`Agent` for Task)
        applies to the tool as if written with its name.
        """
        index: dict[tuple[str, str, tuple[str, ...]], tuple[PermissionRule, ...]] | None = self.__dict__.get("_by_tool")
        if index is None:
            index = self.__dict__.setdefault("_by_tool", {})
        key = (behavior, tool_name, aliases)
        found = index.get(key)
        if found is None:
            names = (tool_name, *aliases)
            found = index[key] = tuple(
                r for r in self.rules(behavior) if any(rule_covers_tool(r.tool, name) for name in names)
            )
        return found

    def tool_wide_rule(
        self, behavior: RuleBehavior, tool_name: str, aliases: tuple[str, ...] = ()
    ) -> PermissionRule | None:
        """The first rule under `behavior` that covers every call of `tool_name` (looked up once per context)."""
        index: dict[tuple[str, str, tuple[str, ...]], PermissionRule | None] = self.__dict__.setdefault(
            "_tool_wide", {}
        )
        key = (behavior, tool_name, aliases)
        if key not in index:
            rules = self.rules_for_tool(behavior, tool_name, aliases)
            index[key] = next((r for r in rules if r.specifier is None), None)
        return index[key]

    def file_rules(
        self, behavior: RuleBehavior, tool_name: str, cwd: Path, aliases: tuple[str, ...] = ()
    ) -> FileRules[PermissionRule]:
        """The path rules under `behavior` for file tool `tool_name`, compiled once per context and cwd.

        Their bases (workspace roots, the home folder, the cwd) are resolved when first needed
        and kept with the context: contexts never change, and a new one is built whenever
        settings do.
        """
        cache: dict[tuple[str, str, Path, tuple[str, ...]], FileRules[PermissionRule]]
        cache = self.__dict__.setdefault("_file_rules", {})
        key = (behavior, tool_name, cwd, aliases)
        found = cache.get(key)
        if found is None:
            rules = tuple(r for r in self.rules_for_tool(behavior, tool_name, aliases) if r.specifier is not None)
            found = cache[key] = FileRules(rules, cwd)
        return found

    def tool_rules(self, tool_name: str, aliases: tuple[str, ...], cwd: Path) -> ToolRules:
        """Everything the rules say of `tool_name` (or its `aliases`) from `cwd`, gathered once per context."""
        cache: dict[tuple[str, tuple[str, ...], Path], ToolRules] = self.__dict__.setdefault("_tool_rules", {})
        found = cache.get((tool_name, aliases, cwd))
        if found is None:
            found = cache[(tool_name, aliases, cwd)] = ToolRules.of(self, tool_name, aliases, cwd)
        return found

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        """`compute()`, once per context and `key`: contexts never change, so neither does what follows from them.

        `key` must say everything `compute` depends on besides the context.
        """
        cache: dict[Hashable, Any] = self.__dict__.setdefault("_cached", {})
        found: T = cache.get(key, _MISSING)  # one hash of the key, not two
        if found is _MISSING:
            found = cache[key] = compute()
        return found

    def roots(self, name: str, folders: Callable[[], tuple[Path, ...]]) -> Roots:
        """`folders()` as `Roots`, computed once per context and `name`.

        `name` must say everything `folders` depends on besides the context (e.g. the
        environment variables it reads).
        """
        cache: dict[str, Roots] | None = self.__dict__.get("_roots")
        if cache is None:
            cache = self.__dict__.setdefault("_roots", {})
        found = cache.get(name)
        if found is None:
            found = cache[name] = Roots.of(folders())
        return found

    def hooks_by_source(self) -> tuple[tuple[str, Mapping[str, Any]], ...]:
        """The hooks in force as (source, frozen config) pairs, in precedence order (for `hooks.commands_for`)."""
        return tuple((hooks.source, hooks.config) for hooks in self.hooks)

    @property
    def working_directories(self) -> tuple[Path, ...]:
        """Where the agent works: the workspace roots and the additional directories."""
        return (*self.workspace_roots, *self.additional_directories)

    @property
    def working_roots(self) -> Roots:
        """`working_directories` as `Roots`, resolved once per context."""
        found: Roots | None = self.__dict__.get("_working_roots")  # one lookup: every decision asks
        if found is None:
            found = self.__dict__["_working_roots"] = Roots.of(self.working_directories)
        return found

    @property
    def effective_cwd(self) -> Path:
        """The folder relative paths and `./x` rules are taken from."""
        if self.cwd is not None:
            return self.cwd
        if self.workspace_roots:
            return self.workspace_roots[0]
        return Path.cwd()


@dataclass(frozen=True)
class ToolRules:
    """The rules that concern one tool (with its aliases) from one cwd, looked up and compiled once per context.

    Rules change only when settings do, and then a new context is built; the paths of calls are
    still resolved on every decision. For a file tool, `ordered` holds its path rules of all
    three behaviors in the order a decision meets them (deny, ask, allow), so one regex match
    of a path with no link on its way finds which of them covers it first.
    """

    deny_wide: PermissionRule | None
    ask_wide: PermissionRule | None
    allow_wide: PermissionRule | None
    deny: FileRules[PermissionRule]
    ask: FileRules[PermissionRule]
    allow: FileRules[PermissionRule]
    ordered: FileRules[PermissionRule]
    allow_from: int  # where the allow rules start in `ordered`
    ask_from: int  # where the ask rules start in `ordered`

    @classmethod
    def of(cls, context: PermissionContext, tool_name: str, aliases: tuple[str, ...], cwd: Path) -> ToolRules:
        """The rules of `tool_name` in `context` (path rules only for file tools)."""
        files = tool_name in FILE_TOOLS
        by: dict[RuleBehavior, FileRules[PermissionRule]] = {
            behavior: context.file_rules(behavior, tool_name, cwd, aliases) if files else FileRules((), cwd)
            for behavior in ("deny", "ask", "allow")
        }
        ordered = (*by["deny"].rules, *by["ask"].rules, *by["allow"].rules)
        return cls(
            context.tool_wide_rule("deny", tool_name, aliases),
            context.tool_wide_rule("ask", tool_name, aliases),
            context.tool_wide_rule("allow", tool_name, aliases),
            by["deny"],
            by["ask"],
            by["allow"],
            FileRules(ordered, cwd),
            len(by["deny"].rules) + len(by["ask"].rules),
            len(by["deny"].rules),
        )

    def first_path_rule(self, targets: Sequence[Sequence[str]]) -> tuple[RuleBehavior, PermissionRule] | None:
        """The path rule a decision meets first for a call whose paths have forms `targets`: the first deny rule
        that covers it, else the first ask rule, else the first allow rule (each as `FileRules.first_match`
        judges it). One regex match when the call has one path and no link on its way."""
        ordered = self.ordered
        if not ordered.rules:
            return None
        if len(targets) == 1 and len(targets[0]) == 1:
            index = ordered.first_index(targets[0][0])
            if index is None:
                return None
            behavior: RuleBehavior = "deny" if index < self.ask_from else "ask" if index < self.allow_from else "allow"
            return behavior, ordered.rules[index]
        for behavior, rules in (("deny", self.deny), ("ask", self.ask), ("allow", self.allow)):
            if (rule := rules.first_match(targets, behavior)) is not None:
                return behavior, rule
        return None


def _directories(source: LoadedSource) -> tuple[Path, ...]:
    return tuple(workspace_directory(text, source.root) for text in source.settings.permissions.additional_directories)


def _without_workspace_auto(
    sources: Sequence[LoadedSource],
) -> tuple[tuple[LoadedSource, ...], tuple[InactiveSetting, ...]]:
    """The sources with a project or local `defaultMode: auto` dropped, and what was dropped.

    A file that comes with the code must not hand the user's approvals to a model.
    """
    kept: list[LoadedSource] = []
    off: list[InactiveSetting] = []
    for source in sources:
        permissions = source.settings.permissions
        if source.source in WORKSPACE_SOURCES and permissions.default_mode == "auto":
            off.append(InactiveSetting(source.source, "defaultMode", AUTO_FROM_WORKSPACE_REASON, source.path))
            cleared = permissions.model_copy(update={"default_mode": None})
            kept.append(replace(source, settings=source.settings.model_copy(update={"permissions": cleared})))
        else:
            kept.append(source)
    return tuple(kept), tuple(off)


def build_context(
    loaded: LoadedSettings,
    approvals: Approvals,
    *,
    workspace_roots: Sequence[Path],
    cwd: Path | None = None,
) -> PermissionContext:
    """The context the loaded sources and the trust state give.

    Deny and ask rules of every source apply. What a project or local file would
    loosen applies only as far as `handrail.permissions.trust` believes it (trusted,
    and that item approved); what does not apply is listed in `inactive_rules` /
    `inactive_settings` with a reason. Single-valued settings are
    taken from the highest source that sets them (policy > cli > local > project >
    user > session). `disableBypassPermissionsMode` is honoured from any source. A
    project or local file's `defaultMode: auto` never applies (only the user, policy or
    cli may let a classifier answer prompts).
    """
    rules: dict[RuleBehavior, list[PermissionRule]] = {"allow": [], "deny": [], "ask": []}
    inactive_rules: list[InactiveRule] = []
    inactive_settings: list[InactiveSetting] = []
    hooks: list[SourcedHooks] = []
    directories: list[Path] = []
    modes: list[tuple[LoadedSource, PermissionMode]] = []
    bypass_disabled = any(s.settings.permissions.disable_bypass_permissions_mode == "disable" for s in loaded.sources)

    sources, auto_off = _without_workspace_auto(loaded.sources)
    inactive_settings.extend(auto_off)
    for source in sources:
        belief = believe(source, approvals)
        for held in belief.held_back:
            item, why = held.item, held.reason
            if item.rule is not None:
                inactive_rules.append(InactiveRule("allow", item.rule, why, source.path, item.digest))
            else:
                inactive_settings.append(
                    InactiveSetting(source.source, item.setting, why, source.path, item.shown, item.digest)
                )
        believed = belief.source  # what tightens, and what was approved
        permissions = believed.settings.permissions
        for behavior in ("deny", "ask", "allow"):
            rules[behavior].extend(believed.rules(behavior))
        if believed.settings.hooks:
            hooks.append(SourcedHooks(believed.source, believed.settings.hooks, believed.path))
        if permissions.default_mode is not None:
            modes.append((believed, permissions.default_mode))
        directories.extend(_directories(believed))

    mode: PermissionMode = "default"
    for source, candidate in modes:  # sources are in precedence order
        if candidate == "bypassPermissions" and bypass_disabled:
            inactive_settings.append(InactiveSetting(source.source, "defaultMode", BYPASS_DISABLED_REASON, source.path))
            continue
        mode = candidate
        break

    return PermissionContext(
        workspace_roots=tuple(workspace_roots),
        allow=tuple(dict.fromkeys(rules["allow"])),
        deny=tuple(dict.fromkeys(rules["deny"])),
        ask=tuple(dict.fromkeys(rules["ask"])),
        mode=mode,
        additional_directories=tuple(dict.fromkeys(directories)),
        cwd=cwd,
        bypass_disabled=bypass_disabled,
        inactive_rules=tuple(inactive_rules),
        inactive_settings=tuple(inactive_settings),
        hooks=tuple(hooks),
    )
