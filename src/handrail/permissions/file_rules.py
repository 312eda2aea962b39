"""File rules (`Read(...)`, `Edit(...)`): gitignore-style path patterns compiled to regexes.

A pattern matches a path when it matches the path's part below the pattern's base, or a
folder on the way there (a pattern naming a folder covers what is inside). The patterns of
all rules that share a base are joined into one regex, one named alternative per rule in
rule order, so checking a path against many rules costs one regex match per base: the
alternative that matches is the first rule in order that covers the path.

This module knows rules only as objects with a `specifier` and a `root` (`PathRule`): the
rule grammar (`rules`) builds on it, never the other way round.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Generic, Literal, Protocol, TypeVar

from handrail.permissions.paths import absolute_text, real_text, within_text

MatchBehavior = Literal["allow", "deny", "ask"]
_WILDCARDS = frozenset("*?[")


class PathRule(Protocol):
    """What compiling a path rule needs of it: its pattern and the folder `/x` patterns are relative to."""

    @property
    def specifier(self) -> str | None: ...

    @property
    def root(self) -> Path | None: ...


R = TypeVar("R", bound=PathRule)


@dataclass(frozen=True)
class Reach:
    """Where path rules may match below a folder: files they name exactly, globs to expand, folders to walk."""

    files: tuple[str, ...] = ()
    globs: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()


@dataclass(frozen=True)
class PathPattern:
    """A file rule's specifier split into the folder it is relative to and the gitignore-style pattern."""

    base: Path
    pattern: str
    anchored: bool


def path_pattern(specifier: str, root: Path | None, cwd: Path) -> PathPattern:
    """Where a file rule's pattern is anchored, following Claude Code's prefixes."""
    if specifier.startswith("//"):
        return PathPattern(Path("/"), specifier[2:], True)
    if specifier == "~" or specifier.startswith("~/"):
        return PathPattern(Path.home(), specifier[2:], True)
    if specifier.startswith("/"):
        return PathPattern(root if root is not None else cwd, specifier[1:], True)
    if specifier.startswith("./"):
        return PathPattern(cwd, specifier[2:], True)
    return PathPattern(cwd, specifier, "/" in specifier.rstrip("/"))


@lru_cache(maxsize=1024)
def _glob_source(pattern: str, anchored: bool) -> str:
    """The regex (source text) a path below the base must match in full."""
    directory_only = pattern.endswith("/")
    segments = [s for s in pattern.strip("/").split("/") if s]
    if not segments:
        return ".*"
    out: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            out.append(".*" if last else "(?:.*/)?")
            continue
        piece = ""
        for char in segment:
            piece += "[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char)
        out.append(piece if last else piece + "/")
    regex = "".join(out)
    if directory_only:
        regex += "/.*"
    if not anchored:
        regex = "(?:.*/)?" + regex
    return regex


@lru_cache(maxsize=256)
def _compile(sources: tuple[str, ...]) -> re.Pattern[str]:
    # `(?:/.*)?`: matching a folder on the way (at a `/` boundary) covers what lies below it
    alternatives = "|".join(f"(?P<r{i}>{source})" for i, source in enumerate(sources))
    return re.compile(f"(?:{alternatives})(?:/.*)?", re.DOTALL)


def _below(path: str, base: str) -> str | None:
    """`path` relative to `base` ("" for the base itself), or None when it is not below it."""
    if path == base:
        return ""
    prefix = base if base.endswith("/") else base + "/"
    return path[len(prefix) :] if path.startswith(prefix) else None


def _fixed_folder(pattern: PathPattern) -> str:
    """The folder (below the base, "" for the base) that every path a pattern matches lies in: its leading
    segments free of wildcards, short of the last one; "" for a pattern that may match at any depth."""
    if not pattern.anchored:
        return ""
    segments = [s for s in pattern.pattern.strip("/").split("/") if s]
    fixed: list[str] = []
    for segment in segments[:-1]:
        if _WILDCARDS & set(segment):
            break
        fixed.append(segment)
    return "/".join(fixed)


@dataclass(frozen=True)
class _Group:
    """The rules sharing one base: their patterns joined into one regex per fixed folder (`_fixed_folder`).

    A path is matched only against the regexes of the folders it lies in, so rules written for
    other folders (`./src/pkg1/**` … `./src/pkg40/**`) cost nothing; within a regex the first
    alternative that matches is the first rule in order.
    """

    bases: tuple[str, ...]  # the base as written and resolved
    sources: tuple[str, ...]  # each rule's pattern, in rule order
    indices: tuple[int, ...]  # each rule's index among all the rules
    by_folder: Mapping[str, tuple[re.Pattern[str], tuple[int, ...]]]  # fixed folder → its rules' regex, indices
    deepest: int  # the length of the longest fixed folder

    def first(self, path: str) -> int | None:
        """The index of the first rule of the group that covers `path`."""
        best: int | None = None
        by_folder = self.by_folder
        for base in self.bases:
            rel = _below(path, base)
            if rel is None:
                continue
            folder, end = "", 0
            while True:  # "" and every folder `rel` lies in, as deep as a fixed folder goes
                found = by_folder.get(folder)
                if found is not None:
                    match = found[0].fullmatch(rel)
                    if match is not None and match.lastgroup is not None:
                        index = found[1][int(match.lastgroup[1:])]
                        best = index if best is None else min(best, index)
                end = rel.find("/", end + 1 if folder else 0)
                if end == -1 or end > self.deepest:
                    break
                folder = rel[:end]
        return best

    def covers(self, position: int, path: str) -> bool:
        """Whether the group's rule at `position` covers `path`."""
        regex = _compile((self.sources[position],))
        return any((rel := _below(path, base)) is not None and regex.fullmatch(rel) is not None for base in self.bases)


class FileRules(Generic[R]):
    """Path rules (of one behavior, for one tool, relative to one cwd) compiled for fast matching.

    Building one resolves the rules' bases; keep it as long as the permission context it
    came from (see `PermissionContext.file_rules`).
    """

    def __init__(self, rules: Sequence[R], cwd: Path) -> None:
        self.rules = tuple(rules)
        by_base: dict[Path, list[tuple[int, str, str]]] = {}
        patterns: list[PathPattern] = []
        for index, rule in enumerate(self.rules):
            assert rule.specifier is not None
            pattern = path_pattern(rule.specifier, rule.root, cwd)
            patterns.append(pattern)
            source = _glob_source(pattern.pattern, pattern.anchored)
            by_base.setdefault(pattern.base, []).append((index, source, _fixed_folder(pattern)))
        self._patterns = tuple(patterns)
        groups: list[_Group] = []
        where: dict[int, tuple[_Group, int]] = {}
        for base, members in by_base.items():
            text = str(base)
            folders: dict[str, list[tuple[int, str]]] = {}
            for index, source, folder in members:
                folders.setdefault(folder, []).append((index, source))
            group = _Group(
                tuple(dict.fromkeys((absolute_text(text), real_text(text)))),
                tuple(source for _, source, _ in members),
                tuple(index for index, _, _ in members),
                {
                    folder: (_compile(tuple(source for _, source in found)), tuple(index for index, _ in found))
                    for folder, found in folders.items()
                },
                max(len(folder) for folder in folders),
            )
            groups.append(group)
            where.update((index, (group, position)) for position, (index, _, _) in enumerate(members))
        self._groups = tuple(groups)
        self._where = where

    def first_index(self, path: str) -> int | None:
        """The index (in `rules`) of the first rule that covers one form of a path, if any."""
        if len(self._groups) == 1:  # rules sharing one base (the cwd, say): the usual settings
            return self._groups[0].first(path)
        best: int | None = None
        for group in self._groups:
            index = group.first(path)
            if index is not None and (best is None or index < best):
                best = index
        return best

    def reach(self, folder: str) -> Reach:
        """Where below absolute, resolved `folder` these rules may match something.

        A rule naming one file exactly (`./.env`) names it; an anchored pattern whose wildcards
        stay within segments (`./.env.*`, `./config/*.pem`) is a glob to expand; a pattern that
        may match at any depth (`./secrets/**`, `*.pem`) must be looked for by walking, from its
        fixed part down when that lies in `folder`, else from `folder` itself. A rule that covers
        `folder` whole is not here: checking `folder` itself finds it.
        """
        files: dict[str, None] = {}
        globs: dict[str, None] = {}
        folders: dict[str, None] = {}
        for pattern in self._patterns:
            segments = [s for s in pattern.pattern.strip("/").split("/") if s]
            fixed = segments if pattern.anchored else []
            for index, segment in enumerate(fixed):
                if _WILDCARDS & set(segment):
                    fixed = fixed[:index]
                    break
            base_text = str(pattern.base)
            for base in dict.fromkeys((absolute_text(base_text), real_text(base_text))):
                prefix = "/".join([base.rstrip("/"), *fixed]) if fixed else base
                related = within_text(prefix, folder) or within_text(folder, prefix)
                if fixed and len(fixed) == len(segments):
                    if within_text(prefix, folder) and prefix != folder:
                        files[prefix] = None
                elif pattern.anchored and "**" not in segments and related:
                    globs["/".join([base.rstrip("/"), *segments])] = None
                elif within_text(prefix, folder):
                    folders[prefix] = None
                elif within_text(folder, prefix):
                    folders[folder] = None
        return Reach(tuple(files), tuple(globs), tuple(folders))

    def first_match(self, candidates: Sequence[Sequence[str]], behavior: MatchBehavior) -> R | None:
        """The first rule covering a call whose paths have these forms (see `call_candidates`).

        An allow rule must cover every form of every path; a deny or ask rule any of them.
        """
        if not self.rules:
            return None
        if len(candidates) == 1 and len(candidates[0]) == 1:  # one path, no links on the way: most calls
            index = self.first_index(candidates[0][0])
            return None if index is None else self.rules[index]
        texts = [text for forms in candidates for text in forms]
        if not texts:
            return None
        firsts = [self.first_index(text) for text in texts]
        if behavior != "allow":
            hits = [i for i in firsts if i is not None]
            return self.rules[min(hits)] if hits else None
        found = [i for i in firsts if i is not None]
        if len(found) < len(firsts):
            return None
        if len(found) == 1:
            return self.rules[found[0]]
        for index in range(max(found), len(self.rules)):  # no earlier rule covers every form
            group, position = self._where[index]
            if all(group.covers(position, text) for text in texts):
                return self.rules[index]
        return None


def call_candidates(paths: Sequence[Path | str], cwd: Path) -> tuple[tuple[str, ...], ...]:
    """For each path of a call, the forms file rules are checked against: absolute as written, and resolved.

    Inside a decision (`paths.one_decision`) each path is resolved once, however often it is asked for.
    """
    if len(paths) == 1:  # most calls
        return (path_forms(str(paths[0]), cwd),)
    return tuple(path_forms(str(path), cwd) for path in paths)


def path_forms(text: str, cwd: Path) -> tuple[str, ...]:
    """One path's forms: absolute as written (`..` folded) and, when different, resolved (`..` after links)."""
    if text.startswith("/"):
        full = text
    else:
        here = str(cwd)
        full = here + text if here.endswith("/") else f"{here}/{text}"
    written = absolute_text(full)
    real = real_text(full)
    return (written,) if written == real else (written, real)
