"""Path confinement: is a path inside the places the user works in."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

# Within one decision the same paths are resolved once per rule; resolving them once per
# decision instead is what keeps decisions fast. Never cached across decisions: links change.
_memo: ContextVar[dict[tuple[str, str], Path] | None] = ContextVar("handrail_path_memo", default=None)


@contextmanager
def one_decision() -> Iterator[None]:
    """Resolve each path at most once until the block ends."""
    token = _memo.set({})
    try:
        yield
    finally:
        _memo.reset(token)


def _memoized(kind: str, path: Path, compute: Callable[[str], str]) -> Path:
    memo = _memo.get()
    if memo is None:
        return Path(compute(str(path)))
    key = (kind, str(path))
    if key not in memo:
        memo[key] = Path(compute(str(path)))
    return memo[key]


def resolve(path: Path) -> Path:
    """The absolute, symlink-free form of `path`, also for paths that do not exist yet."""
    return _memoized("real", path, os.path.realpath)


def absolute(path: Path) -> Path:
    """The absolute form of `path` as written: `..` folded lexically, symlinks kept."""
    return _memoized("abs", path, os.path.abspath)


def within(path: Path, base: Path) -> bool:
    """Whether absolute `path` is `base` or lies below it (by path components; nothing resolved)."""
    child, parent = str(path), str(base)
    if child == parent:
        return True
    return child.startswith(parent if parent.endswith("/") else parent + "/")


def is_inside(path: Path, roots: Iterable[Path]) -> bool:
    """Whether `path` (after resolving links and `..`) lies inside one of `roots`."""
    real = resolve(path)
    return any(within(real, resolve(root)) for root in roots)


def is_inside_both(path: Path, roots: Iterable[Path]) -> bool:
    """Whether `path` lies inside `roots` both as written and once its links are resolved.

    A link inside the workspace that points out of it is not inside; nor is a path
    outside that points in (the link itself lives elsewhere).
    """
    roots = tuple(roots)
    written = absolute(path)
    inside_as_written = any(within(written, base) for root in roots for base in (absolute(root), resolve(root)))
    return inside_as_written and is_inside(path, roots)
