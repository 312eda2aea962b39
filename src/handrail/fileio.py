"""Small file-writing helpers shared by every layer."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically (temp file in the same folder + rename), keeping the file's mode.

    `path` itself is replaced, a symbolic link too: for handrail's own files (settings, approvals), where a
    planted link must not redirect the write. Files the user works on are written with `write_through`.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".handrail-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_target(path: Path) -> Path:
    """The file a write to `path` changes: `path` with every symbolic link resolved (the link's target, also
    when that does not exist yet)."""
    return Path(os.path.realpath(path))


def write_through(path: Path, data: bytes) -> None:
    """Write `data` to the file `path` names, as an editor saves it.

    Through a symbolic link the file it points to is written and the link stays a link. A file with one
    name is replaced atomically (`atomic_write`); a file with several names (hard links) is written in
    place instead, so every name still shows the same file.
    """
    target = write_target(path)
    if link_count(target) > 1:
        # the new bytes first, then the cut: a reader never sees an empty file in between
        with open(target, "r+b") as handle:
            handle.write(data)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        return
    atomic_write(target, data)


def link_count(path: Path) -> int:
    """How many names (hard links) the regular file `path` names has; 0 when there is no such file."""
    try:
        info = os.stat(path)
    except OSError:
        return 0
    return info.st_nlink if stat.S_ISREG(info.st_mode) else 0
