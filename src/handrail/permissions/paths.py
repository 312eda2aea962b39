"""Path confinement: is a path inside the places the user works in."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def resolve(path: Path) -> Path:
    """The absolute, symlink-free form of `path`, also for paths that do not exist yet."""
    return Path(os.path.realpath(path))


def absolute(path: Path) -> Path:
    """The absolute form of `path` as written: `..` folded lexically, symlinks kept."""
    return Path(os.path.abspath(path))


def is_inside(path: Path, roots: Iterable[Path]) -> bool:
    """Whether `path` (after resolving links and `..`) lies inside one of `roots`."""
    real = resolve(path)
    return any(real == root or root in real.parents for root in (resolve(r) for r in roots))


def is_inside_both(path: Path, roots: Iterable[Path]) -> bool:
    """Whether `path` lies inside `roots` both as written and once its links are resolved.

    A link inside the workspace that points out of it is not inside; nor is a path
    outside that points in (the link itself lives elsewhere).
    """
    roots = tuple(roots)
    written = absolute(path)
    inside_as_written = any(
        written == base or base in written.parents for root in roots for base in (absolute(root), resolve(root))
    )
    return inside_as_written and is_inside(path, roots)
