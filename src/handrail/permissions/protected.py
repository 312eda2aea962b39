"""Protected paths: files and folders whose content makes a tool run code or load settings.

Writing one of them is how a hostile repository or a prompt-injected model turns one approved
edit into code that runs later, unasked: a git hook, an editor task that runs when the folder
opens, an `.envrc` direnv loads on `cd`, an `.npmrc` with `node-options`, a devcontainer's
`postCreateCommand`, handrail's own settings. Claude Code's documented set is the floor; this
list adds the package managers, task runners, shells and editors it leaves out.

A write to a protected path always asks, in every mode, unless a rule names the path explicitly
(see `names_explicitly`). Reading them is fine. Names are compared case-insensitively only where
the file system compares them so (`case_insensitive` asks the folder), and the disguises file
systems forgive (`.git.` on Windows, zero-width characters on macOS) are seen through.

The project's own manifests and build scripts (`package.json`, `Makefile`, `pyproject.toml`,
tests) are not here: they are the code being worked on, and they run only when a command the
user approved runs them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

# folders whose whole content is configuration that runs code or is read as settings
PROTECTED_DIRECTORIES: frozenset[str] = frozenset(
    {
        # git and its hook managers
        ".git",
        ".husky",
        ".githooks",
        # editors and agents
        ".handrail",
        ".claude",
        ".vscode",
        ".idea",
        ".fleet",
        ".zed",
        ".helix",
        ".cursor",
        ".devcontainer",
        # package managers and build tools that load code from their folder
        ".yarn",
        ".cargo",
        ".mvn",
        # shells, ssh and task runners
        ".ssh",
        ".mise",
        ".config/git",
        ".config/fish",
        ".config/nvim",
        ".config/mise",
        ".config/direnv",
        ".config/helix",
        ".config/zed",
    }
)

# single files, compared by name wherever they are
PROTECTED_FILES: frozenset[str] = frozenset(
    {
        # shells (and readline), direnv
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".zlogout",
        ".kshrc",
        ".cshrc",
        ".tcshrc",
        ".login",
        ".logout",
        ".inputrc",
        ".envrc",
        # git
        ".gitconfig",
        ".gitmodules",
        ".gitattributes",
        ".pre-commit-config.yaml",
        "lefthook.yml",
        "lefthook.yaml",
        ".lefthook.yml",
        ".lefthook.yaml",
        # editors, agents and their tool servers
        ".mcp.json",
        ".claude.json",
        ".devcontainer.json",
        ".nvim.lua",
        ".nvimrc",
        ".exrc",
        ".vimrc",
        ".lazy.lua",
        ".dir-locals.el",
        ".dir-locals-2.el",
        ".ripgreprc",
        # package managers
        ".npmrc",
        ".yarnrc",
        ".yarnrc.yml",
        ".pnpmfile.cjs",
        ".pnpmfile.mjs",
        "bunfig.toml",
        ".bunfig.toml",
        "pip.conf",
        "uv.toml",
        "poetry.toml",
        ".condarc",
        ".gemrc",
        "gradle-wrapper.properties",
        # task runners that load settings and run hooks on their own
        "mise.toml",
        ".mise.toml",
        "mise.local.toml",
        ".mise.local.toml",
    }
)

# files protected by their ending (editor workspaces carry tasks and settings)
PROTECTED_SUFFIXES: tuple[str, ...] = (".code-workspace", ".sublime-project")

# code points HFS+ ignores in names, so `.g\u200cit` is `.git` there
_IGNORABLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u206a-\u206f\ufeff]")
_FOLDERS_BY_HEAD: dict[str, tuple[tuple[str, ...], ...]] = {}
for _folder in sorted(PROTECTED_DIRECTORIES):
    _parts = tuple(_folder.split("/"))
    _FOLDERS_BY_HEAD[_parts[0].casefold()] = (*_FOLDERS_BY_HEAD.get(_parts[0].casefold(), ()), _parts)
_FILES_BY_FOLDED: dict[str, str] = {name.casefold(): name for name in PROTECTED_FILES}


def _normal(name: str) -> str:
    """A name as a forgiving file system sees it: ignorable code points gone, trailing dots and spaces cut."""
    return _IGNORABLE.sub("", name).rstrip(". ") or name


@dataclass(frozen=True, slots=True)
class Protection:
    """Why a path is protected: the protected name in it and what kind of thing that name is."""

    name: str  # the protected name as the list spells it (`.vscode`, `.config/git`, `.bashrc`)
    folder: bool

    def message(self, path: str) -> str:
        """A sentence for the user."""
        if self.folder:
            return f"{path} is inside a {self.name}/ folder, so changing it always needs approval"
        return (
            f"{path} is a {self.name} file, which makes tools run code or load settings, "
            "so changing it always needs approval"
        )


def protection(path: str) -> Protection | None:
    """Whether absolute path `path` is a protected file or lies in (or is) a protected folder."""
    searched = path if path.isascii() else _IGNORABLE.sub("", path)
    if "/." not in searched:  # no dot-name on the way (the usual case): only the last name can be protected
        final = searched.rpartition("/")[2].rstrip(". ").casefold()
        if final not in _FILES_BY_FOLDED and not final.endswith(PROTECTED_SUFFIXES):
            return None
    elif not _dot_name_listed(searched):
        return None
    parts = path.split("/")
    for index in range(1, len(parts)):
        for pattern in _FOLDERS_BY_HEAD.get(_normal(parts[index]).casefold(), ()):
            if index + len(pattern) <= len(parts) and all(
                _same(parts, index + offset, part) for offset, part in enumerate(pattern)
            ):
                return Protection("/".join(pattern), True)
    last = len(parts) - 1
    normal = _normal(parts[last])
    file_name = _FILES_BY_FOLDED.get(normal.casefold())
    if file_name is not None and _same(parts, last, file_name):
        return Protection(file_name, False)
    for suffix in PROTECTED_SUFFIXES:
        if normal.casefold().endswith(suffix) and (
            normal.endswith(suffix) or case_insensitive("/".join(parts[:last]) or "/")
        ):
            return Protection(f"*{suffix}", False)
    return None


def _dot_name_listed(path: str) -> bool:
    """Whether a `/.name` component or the last name of `path` is one the lists mention (before the exact check)."""
    start = path.find("/.")
    while start != -1:
        end = path.find("/", start + 1)
        folded = path[start + 1 : end if end != -1 else len(path)].rstrip(". ").casefold()
        if folded in _FOLDERS_BY_HEAD or folded in _FILES_BY_FOLDED:
            return True
        start = path.find("/.", start + 1)
    last = path.rpartition("/")[2].rstrip(". ").casefold()
    return last in _FILES_BY_FOLDED or last.endswith(PROTECTED_SUFFIXES)


def _same(parts: Sequence[str], index: int, protected: str) -> bool:
    """Whether component `index` of a path names `protected` on the file system it is on."""
    normal = _normal(parts[index])
    if normal == protected:
        return True
    if normal.casefold() != protected.casefold():
        return False
    return case_insensitive("/".join(parts[:index]) or "/")


def case_insensitive(folder: str) -> bool:
    """Whether names inside `folder` compare case-insensitively, asked of the file system.

    The nearest existing folder is asked: an entry's name with its case swapped must name the
    same file. A folder with no entry that has letters is judged by its parent; when nothing
    can tell, the answer is yes (a protected name then stays protected).
    """
    current = folder or "/"
    while True:
        try:
            info = os.stat(current)
        except OSError:
            parent = os.path.dirname(current.rstrip("/")) or "/"
            if parent == current:
                return True
            current = parent
            continue
        answer = _probe(current, info.st_dev, info.st_ino)
        if answer is not None:
            return answer
        parent = os.path.dirname(current.rstrip("/")) or "/"
        if parent == current:
            return True
        current = parent


@lru_cache(maxsize=256)
def _probe(folder: str, device: int, inode: int) -> bool | None:
    """Case-insensitivity of one folder (cached by identity: it does not change), or None when it has no clue."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                swapped = entry.name.swapcase()
                if swapped == entry.name:
                    continue
                try:
                    other = os.stat(os.path.join(folder, swapped), follow_symlinks=False)
                except FileNotFoundError:
                    return False
                except OSError:
                    return None
                mine = entry.stat(follow_symlinks=False)
                return (other.st_dev, other.st_ino) == (mine.st_dev, mine.st_ino)
    except OSError:
        return None
    return None


def names_explicitly(specifier: str, found: Protection) -> bool:
    """Whether a path rule's pattern spells out the protected name (no wildcard standing in for it)."""
    segments = [s.casefold() for s in specifier.split("/") if s]
    wanted = found.name.casefold().split("/")
    if found.name.startswith("*"):
        return any(s.endswith(found.name[1:].casefold()) and "*" not in s and "?" not in s for s in segments)
    return any(segments[i : i + len(wanted)] == wanted for i in range(len(segments)))
