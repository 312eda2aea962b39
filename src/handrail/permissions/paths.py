"""Path confinement: is a path inside the places the user works in."""

from __future__ import annotations

import errno
import os
import platform
import re
import sys
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

# Within one decision the same paths are resolved once per rule; resolving them once per
# decision instead is what keeps decisions fast. Never cached across decisions: links change.
# `decision_memo.set({})` starts one (as `one_decision` does); `reset` with its token ends it.
decision_memo: ContextVar[dict[str, str] | None] = ContextVar("handrail_path_memo", default=None)


class one_decision:  # lower case: it reads as a function, `with one_decision():`
    """Resolve each path at most once until the block ends."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = decision_memo.set({})

    def __exit__(self, *exc: object) -> None:
        decision_memo.reset(self._token)


_O_PATH: int | None = getattr(os, "O_PATH", None)


def kernel_realpath(text: str) -> str:
    """`os.path.realpath(text)`, asking the kernel: one system call for a file (two for a folder) instead of one
    `lstat` per component.

    A normal absolute path the kernel walks without meeting a link (`link_free`) is its own
    resolution. Otherwise the path is opened with O_PATH (nothing is read; a FIFO does not
    block) and the kernel names what it opened. A missing last component is appended to its
    resolved folder, as realpath does; anything unusual (a dangling link, `..` after a missing
    folder, a loop, no /proc) is left to `os.path.realpath`.
    """
    if link_free(text):
        return text
    found = None if _O_PATH is None else _kernel_resolve(text, _O_PATH | os.O_CLOEXEC)
    return os.path.realpath(text) if found is None else found[0]


def link_free(text: str) -> bool:
    """Whether `text` is a normal absolute path (no `.`, `..`, `//` or trailing `/`) that the kernel walks, now,
    without following a link: then `os.path.realpath(text)` is `text` itself.

    One `openat2(RESOLVE_NO_SYMLINKS)`: it fails with ELOOP at the first link (or /proc magic
    link) on the way. It fails with ENOENT at a missing component, and with ENOTDIR at one
    below a file (or, as asked with O_DIRECTORY, when the last one is a file: no descriptor
    to close), and then every component before it was walked without a link and none after it
    exists, so realpath keeps them all as written. False whenever the kernel cannot say.
    """
    if not text.startswith("/") or _NOT_NORMAL.search(text) is not None:
        return False
    walk = _openat2_walker()
    return walk is not None and walk(text.encode(_FS_ENCODING, "surrogateescape"))


# what `os.path.normpath` would change in an absolute path, and a NUL (libc would stop there and check another path)
_NOT_NORMAL = re.compile(r"//|/\.\.?(?:/|\Z)|/\Z|\x00")
_FS_ENCODING = sys.getfilesystemencoding()  # `os.fsencode`, without its Python-level call
_OPENAT2_NUMBER = 437  # the same on every architecture that numbers system calls alike (x86-64, arm64, riscv...)


@cache
def _openat2_walker() -> Callable[[bytes], bool] | None:
    """`link_free`'s kernel question for an encoded path, bound through libc's `syscall` once; None when the
    kernel (or a sandbox) does not offer openat2."""
    if _O_PATH is None or not sys.platform.startswith("linux") or platform.machine() not in _SAME_NUMBERS:
        return None
    import ctypes  # only on Linux, on the first decision

    class OpenHow(ctypes.Structure):
        _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]

    try:
        syscall = ctypes.CDLL(None, use_errno=True).syscall
    except (OSError, AttributeError):
        return None
    syscall.restype = ctypes.c_long
    how = OpenHow(_O_PATH | os.O_DIRECTORY | os.O_CLOEXEC, 0, _RESOLVE_NO_SYMLINKS)
    # arguments made once, of the exact C types (no conversion per call): number, AT_FDCWD, how, its size
    number, here = ctypes.c_long(_OPENAT2_NUMBER), ctypes.c_long(_AT_FDCWD)
    how_ref, how_size = ctypes.byref(how), ctypes.c_size_t(ctypes.sizeof(how))
    get_errno, close = ctypes.get_errno, os.close

    def walk(path: bytes) -> bool:
        fd = syscall(number, here, path, how_ref, how_size)
        if fd >= 0:
            close(fd)
            return True
        return get_errno() in _WALKED

    probe = syscall(number, here, b"/", how_ref, how_size)
    if probe < 0:  # ENOSYS, or a sandbox that forbids it
        return None
    close(probe)
    return walk


_WALKED = frozenset({errno.ENOENT, errno.ENOTDIR})  # the walk ended at a missing component or below a file
_AT_FDCWD = -100
_RESOLVE_NO_SYMLINKS = 0x04  # also refuses /proc's magic links
_SAME_NUMBERS = frozenset({"x86_64", "aarch64", "arm64", "riscv64", "loongarch64"})


def _kernel_resolve(text: str, flags: int) -> tuple[str, bool] | None:
    """(resolved path, whether it exists), or None to leave the path to `os.path.realpath`."""
    try:
        fd = os.open(text, flags)
    except FileNotFoundError:
        head, _, name = text.rpartition("/")
        if not head or name in ("", ".", ".."):
            return None
        parent = _kernel_resolve(head, flags)
        if parent is None or (parent[1] and os.path.islink(text)):  # a dangling link: realpath follows it
            return None
        folder = parent[0]
        return (folder + name if folder.endswith("/") else f"{folder}/{name}"), False
    except OSError:
        return None
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    finally:
        os.close(fd)
    if not target.startswith("/") or target.endswith(" (deleted)"):
        return None
    return target, True


def real_text(text: str) -> str:
    """`resolve` for a path given as text (inside `one_decision`, once per path)."""
    memo = decision_memo.get()
    if memo is None:
        return kernel_realpath(text)
    found = memo.get(text)
    if found is None:
        found = memo[text] = kernel_realpath(text)
        memo.setdefault(found, found)  # a resolved path resolves to itself
    return found


def absolute_text(text: str) -> str:
    """`absolute` for a path given as text."""
    if text.startswith("/") and _NOT_NORMAL.search(text) is None:
        return text  # already absolute and normal (the usual case): normpath would return it unchanged
    return os.path.abspath(text)


def resolve(path: Path) -> Path:
    """The absolute, symlink-free form of `path`, also for paths that do not exist yet."""
    return Path(real_text(str(path)))


def absolute(path: Path) -> Path:
    """The absolute form of `path` as written: `..` folded lexically, symlinks kept."""
    return Path(absolute_text(str(path)))


def within_text(child: str, parent: str) -> bool:
    """Whether absolute, normalised `child` is `parent` or lies below it (by path components)."""
    if child == parent:
        return True
    return child.startswith(parent if parent.endswith("/") else parent + "/")


def within(path: Path, base: Path) -> bool:
    """Whether absolute `path` is `base` or lies below it (by path components; nothing resolved)."""
    return within_text(str(path), str(base))


def _under_any(folders: Iterable[str]) -> re.Pattern[str]:
    """A regex whose `match` tells whether a path is one of `folders` or lies below one (`within_text`)."""
    alternatives = [re.escape(f) if f.endswith("/") else re.escape(f) + r"(?:/|\Z)" for f in folders]
    return re.compile("|".join(alternatives) if alternatives else r"(?!)")


@dataclass(frozen=True)
class Roots:
    """Folders as text, absolute as written and resolved, resolved once for many containment checks.

    Build one per immutable permission context (`Roots.of`); the paths checked against it are
    still resolved on every decision.
    """

    absolute: tuple[str, ...]
    real: tuple[str, ...]
    _real: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _either: re.Pattern[str] = field(init=False, repr=False, compare=False)

    @classmethod
    def of(cls, roots: Iterable[Path]) -> Roots:
        """The roots' absolute and resolved forms."""
        texts = [str(root) for root in roots]
        return cls(tuple(absolute_text(t) for t in texts), tuple(real_text(t) for t in texts))

    def __post_init__(self) -> None:
        # one regex match per check instead of a `within_text` call per root: decisions run per tool call
        object.__setattr__(self, "_real", _under_any(self.real))
        object.__setattr__(self, "_either", _under_any(dict.fromkeys((*self.absolute, *self.real))))

    def contain(self, real: str) -> bool:
        """Whether resolved path `real` lies inside a root's resolved form."""
        return self._real.match(real) is not None

    def contain_either(self, path: str) -> bool:
        """Whether `path` (not resolved again) lies inside a root's absolute or resolved form."""
        return self._either.match(path) is not None

    def contain_both(self, written: str, real: str) -> bool:
        """`is_inside_both` for a path given as its absolute (`written`) and resolved (`real`) forms."""
        return self.contain_either(written) and self.contain(real)


def is_inside_both(path: Path, roots: Iterable[Path]) -> bool:
    """Whether `path` lies inside `roots` both as written and once its links are resolved.

    A link inside the workspace that points out of it is not inside; nor is a path
    outside that points in (the link itself lives elsewhere).
    """
    text = str(path)
    return Roots.of(roots).contain_both(absolute_text(text), real_text(text))
