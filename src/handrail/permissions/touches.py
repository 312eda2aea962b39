"""What a Bash command touches, resolved against the file system once per decision.

The analyser finds, lexically, every path a command reads, writes, runs, searches or moves
into (`BashVerdict.accesses`). Here they meet the disk, as they will when the command runs:

* every path is resolved (symlinks followed, `..` taken after them, as the kernel does), so a
  link planted in the repository is judged by where it leads;
* a wildcard is expanded as the shell will expand it, and each file it names is a touch of its own;
* a folder a command reads recursively (`grep -r`, `rg`, `git grep`, `find`, `cp -r`) is looked
  through for what the rules must see there: the files the Read deny and ask rules name, and,
  when the command follows links, every link (it may lead out of the working directories).

The pipeline then decides every touch with the code that decides Read and Edit. Blocking I/O:
run it off the event loop. Nothing is cached across decisions (links change).
"""

from __future__ import annotations

import glob
import itertools
import os
from collections.abc import Iterator, Sequence

from handrail.permissions.bash.model import Access
from handrail.permissions.context import PermissionContext
from handrail.permissions.decision import Touch
from handrail.permissions.file_rules import path_forms
from handrail.permissions.paths import within_text

MAX_EXPANDED = 1000  # files one wildcard may name before the command asks instead
MAX_WALKED = 20_000  # entries looked through below a searched folder before it asks instead
_WILDCARDS = frozenset("*?[")


def resolve_accesses(accesses: Sequence[Access], context: PermissionContext) -> tuple[Touch, ...]:
    """The touches of a command line (`BashVerdict.accesses`), resolved, expanded and looked through."""
    cwd = context.effective_cwd
    out: list[Touch] = []
    for access in accesses:
        kind = access.kind
        names = expanded(access.path) if access.wildcard else [access.path]
        if names is None:  # too many to check: the pattern itself stands for them, unchecked
            written, real = _pair(path_forms(access.path, cwd))
            out.append(Touch(kind, written, real, unchecked=True))
            continue
        for name in names:
            written, real = _pair(path_forms(name, cwd))
            named = access.named and written == real  # an exact rule named this path, not where a link leads
            if kind == "search":
                below, complete = _below(written, real, context, follows=access.follows_links, history=access.history)
                out.append(Touch(kind, written, real, named, below, not complete))
            else:
                out.append(Touch(kind, written, real, named))
    return tuple(dict.fromkeys(out))


def _pair(forms: tuple[str, ...]) -> tuple[str, str]:
    return forms[0], forms[-1]


def expanded(text: str) -> list[str] | None:
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


def _below(
    written: str, real: str, context: PermissionContext, *, follows: bool, history: bool = False
) -> tuple[tuple[tuple[str, str], ...], bool]:
    """What below a searched folder the pipeline must see, and whether the look was complete.

    Without following links, only the places the Read deny and ask rules may match are looked
    at (the files they name, the folders their wildcards may match in); following links, the
    whole folder is walked and every link is reported with where it leads. Searching a
    repository's `history`, the files the rules name count as there even when gone from disk.
    """
    if not os.path.isdir(real):
        return (), True
    cwd = context.effective_cwd
    found: dict[tuple[str, str], None] = {}
    starts: dict[str, None] = {}
    for behavior in ("deny", "ask"):
        rules = context.file_rules(behavior, "Read", cwd)
        if not rules.rules:
            continue
        for folder in dict.fromkeys((written, real)):
            reach = rules.reach(folder)
            for file in reach.files:
                if history or os.path.lexists(file):  # a repository's history holds files deleted since
                    found[(file, os.path.realpath(file))] = None
            for pattern in reach.globs:
                matches = list(itertools.islice(glob.iglob(pattern, include_hidden=True), MAX_EXPANDED + 1))
                if len(matches) > MAX_EXPANDED:
                    return tuple(found), False
                found.update(((m, os.path.realpath(m)), None) for m in matches if within_text(m, folder))
            starts.update(dict.fromkeys(reach.folders))
    if follows:
        starts = {real: None}
    budget = MAX_WALKED
    for start in _outermost(starts):
        for entry in _walk(start, follows=follows):
            budget -= 1
            if budget < 0:
                return tuple(found), False
            found[entry] = None
    return tuple(found), True


def _outermost(folders: dict[str, None]) -> list[str]:
    """The folders not inside another of them (walking the outer one covers the inner)."""
    ordered = sorted(folders, key=len)
    kept: list[str] = []
    for folder in ordered:
        if not any(within_text(folder, outer) for outer in kept):
            kept.append(folder)
    return kept


def _walk(top: str, *, follows: bool) -> Iterator[tuple[str, str]]:
    """Every entry below `top` as (path, resolved path); links are followed (and resolved) only when `follows`."""
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[str, str]] = [(top, os.path.realpath(top))]
    while stack:
        folder, real_folder = stack.pop()
        try:
            info = os.stat(real_folder)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) in seen:
            continue  # a loop of links
        seen.add((info.st_dev, info.st_ino))
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError:
            continue
        for entry in listed:
            path = f"{folder}/{entry.name}" if folder != "/" else f"/{entry.name}"
            try:
                link = entry.is_symlink()
            except OSError:
                continue
            # a link not followed is only a name here; followed, it is where it leads
            real = os.path.realpath(path) if link and follows else f"{real_folder.rstrip('/')}/{entry.name}"
            yield path, real
            try:
                descend = entry.is_dir(follow_symlinks=follows) if follows or not link else False
            except OSError:
                descend = False
            if descend:
                stack.append((path, real))
