"""Path confinement: is a path inside the places the user works in."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def resolve(path: Path) -> Path:
    """The absolute, symlink-free form of `path`, also for paths that do not exist yet."""
    return Path(os.path.realpath(path))


def is_inside(path: Path, roots: Iterable[Path]) -> bool:
    """Whether `path` (after resolving links and `..`) lies inside one of `roots`."""
    real = resolve(path)
    return any(real == root or root in real.parents for root in (resolve(r) for r in roots))
