"""The repository a git command will use, found the way git finds it, and what in it makes git run programs.

`git status` is read-only only if the repository it reads is: a folder laid out as a git
directory (a `HEAD`, `objects/`, `refs/` and a `config` whose `core.fsmonitor` is a shell
command), or a `.git` file pointing at one, makes any git command run that program. A cloned
repository can carry such a folder anywhere in its tree; an extracted archive can carry anything.

`inspect_repository(start)` finds the git directory as git does (the `GIT_DIR` environment
variable, else walking up from where git starts: a `.git` folder or file at each level, else the
level itself laid out as a bare repository; `GIT_CEILING_DIRECTORIES` stops the walk) and reads
its configuration, with the files it includes, for settings that make git run a program or act
on files elsewhere (`problems`). It also looks for the hooks git runs while only reading
(`post-index-change` when `git status` refreshes the index, `reference-transaction`). Anything it
cannot read is a problem too: it fails closed.

The user's own configuration (`~/.gitconfig`, `/etc/gitconfig`) is not looked at: it is theirs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from handrail.errors import HandrailError

MAX_INCLUDE_DEPTH = 10
MAX_CONFIG_BYTES = 1 << 20
# hooks git runs during commands that only read (an index refresh writes the index)
READING_HOOKS = ("post-index-change", "reference-transaction")
_BOOLEAN = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
# the values `git lfs install` writes: a well-known program, not one a repository chose
_LFS_FILTER = {
    "clean": {"git-lfs clean -- %f"},
    "smudge": {"git-lfs smudge -- %f", "git-lfs smudge --skip -- %f"},
    "process": {"git-lfs filter-process", "git-lfs filter-process --skip"},
}


@dataclass(frozen=True)
class Repository:
    """What `inspect_repository` found: the git directory (None when there is none) and why it is unsafe.

    `work_tree` is the top of the files git works on (None for a bare repository).
    """

    git_dir: str | None
    problems: tuple[str, ...] = ()
    work_tree: str | None = None


@dataclass(frozen=True)
class Setting:
    """One configuration entry: `section.subsection.key = value`, and the file it came from."""

    section: str  # lower case
    subsection: str | None  # as written (case matters)
    key: str  # lower case
    value: str
    file: str

    @property
    def name(self) -> str:
        middle = f".{self.subsection}" if self.subsection is not None else ""
        return f"{self.section}{middle}.{self.key}"


class ConfigError(HandrailError, ValueError):
    """A configuration file git may read differently than this parser (so it is not trusted)."""


def inspect_repository(
    start: str,
    git_dir: str | None = None,
    *,
    inside: Callable[[str], bool],
    subcommand: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Repository:
    """The repository git uses when started in `start` (or given `git_dir`), its work tree, and what in it
    would run programs.

    `inside(path)` says whether a resolved path lies inside the working directories (a work
    tree or object store elsewhere means git reads files there). An alias matters only to the
    `subcommand` it names.
    """
    environ = os.environ if env is None else env
    try:
        found = _find(start, git_dir, environ)
        if found is None:
            return Repository(None)
        directory, work_tree = found
        if work_tree is None and (git_dir or environ.get("GIT_DIR")):
            work_tree = os.path.realpath(start)  # git works on the folder it runs in
        problems, work_tree = _inspect(directory, work_tree, inside, (subcommand or "").lower())
        return Repository(directory, tuple(dict.fromkeys(problems)), work_tree)
    except (OSError, ConfigError, UnicodeDecodeError) as exc:
        return Repository(git_dir or start, (f"the repository git would use cannot be read ({exc})",))


# ---------------------------------------------------------------------------- finding it


def _find(start: str, explicit: str | None, env: Mapping[str, str]) -> tuple[str, str | None] | None:
    """(git directory, work tree or None when bare), or None when git finds no repository."""
    given = explicit or env.get("GIT_DIR")
    if given:
        directory = os.path.realpath(os.path.join(start, given))
        return _through_gitfile(directory), env.get("GIT_WORK_TREE") or None
    ceilings = {os.path.realpath(p) for p in env.get("GIT_CEILING_DIRECTORIES", "").split(":") if p.startswith("/")}
    current = os.path.realpath(start)
    while True:
        dotgit = os.path.join(current, ".git")
        if os.path.isfile(dotgit):
            return _gitfile_target(dotgit), current
        if os.path.isdir(dotgit) and _looks_like_git_dir(dotgit):
            return os.path.realpath(dotgit), current
        if _looks_like_git_dir(current):
            return current, None  # a bare repository (or the inside of a .git folder)
        parent = os.path.dirname(current)
        if current in ceilings or parent == current:
            return None
        current = parent


def _looks_like_git_dir(folder: str) -> bool:
    """Whether git would take `folder` for a git directory: a HEAD, objects and refs (or a commondir)."""
    if not os.path.lexists(os.path.join(folder, "HEAD")):
        return False
    if os.path.isfile(os.path.join(folder, "commondir")):
        return True
    return os.path.isdir(os.path.join(folder, "objects")) and os.path.isdir(os.path.join(folder, "refs"))


def _gitfile_target(path: str) -> str:
    """Where a `.git` file (`gitdir: ...`) points, resolved."""
    with open(path, encoding="utf-8") as file:
        text = file.read(4096).strip()
    if not text.startswith("gitdir:"):
        raise ConfigError(f"{path} is a .git file without a gitdir line")
    target = text[len("gitdir:") :].strip()
    return os.path.realpath(os.path.join(os.path.dirname(path), target))


def _through_gitfile(path: str) -> str:
    return _gitfile_target(path) if os.path.isfile(path) else path


# ---------------------------------------------------------------------------- what runs


def _inspect(
    directory: str, work_tree: str | None, inside: Callable[[str], bool], subcommand: str
) -> tuple[list[str], str | None]:
    """What in the repository makes git run programs or read elsewhere, and the work tree git uses."""
    problems: list[str] = []
    common = directory
    commondir = os.path.join(directory, "commondir")
    if os.path.isfile(commondir):
        with open(commondir, encoding="utf-8") as file:
            common = os.path.realpath(os.path.join(directory, file.read().strip()))
    settings: list[Setting] = []
    for name in (os.path.join(common, "config"), os.path.join(directory, "config.worktree")):
        if os.path.exists(name):
            settings.extend(read_config(name))
    hooks_path = os.path.join(common, "hooks")
    for setting in settings:
        if setting.section == "alias" and setting.key != subcommand:
            continue  # an alias runs only as the subcommand it names
        if runs_program(setting):
            problems.append(f"{setting.file}: {setting.name} = {setting.value!r} makes git run a program")
        elif setting.section == "core" and setting.key == "hookspath":
            base = work_tree if work_tree is not None else directory
            hooks_path = os.path.join(base, os.path.expanduser(setting.value))
        elif setting.section == "core" and setting.key == "worktree":
            work_tree = os.path.realpath(os.path.join(directory, setting.value))
            if not inside(work_tree):
                problems.append(
                    f"{setting.file}: core.worktree points git at {work_tree}, outside the working directories"
                )
    for hook in READING_HOOKS:
        path = os.path.join(hooks_path, hook)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            problems.append(f"{path} is a hook git runs even for commands that only read")
    alternates = os.path.join(common, "objects", "info", "alternates")
    if os.path.isfile(alternates):
        with open(alternates, encoding="utf-8") as file:
            for line in file.read(MAX_CONFIG_BYTES).splitlines():
                if line.strip() and not line.startswith("#"):
                    store = os.path.realpath(os.path.join(common, "objects", line.strip()))
                    if not inside(store):
                        problems.append(
                            f"{alternates} makes git read objects from {store}, outside the working directories"
                        )
    return problems, work_tree


def runs_program(setting: Setting) -> bool:
    """Whether git runs the value of this setting as a program (or lets a URL do so)."""
    section, sub, key, value = setting.section, setting.subsection, setting.key, setting.value
    if section == "alias":
        return value.lstrip().startswith("!")
    if section == "core":
        if key == "fsmonitor":
            return value.strip().lower() not in _BOOLEAN  # `true` is git's own daemon; anything else is a program
        return key in ("editor", "pager", "sshcommand", "gitproxy", "askpass", "alternaterefscommand")
    if section == "filter":
        return key in _LFS_FILTER and not (sub == "lfs" and value.strip() in _LFS_FILTER[key])
    if section == "diff":
        return (sub is None and key == "external") or (sub is not None and key in ("command", "textconv"))
    if section == "merge":
        return sub is not None and key == "driver"
    if section == "remote":
        return key in ("uploadpack", "receivepack", "vcs") or (key in ("url", "pushurl") and _runs_url(value))
    if section == "url":
        return sub is not None and _runs_url(sub)
    if section == "protocol":
        return key == "allow" and value.strip().lower() == "always"
    if section == "submodule":
        return key == "update" and value.lstrip().startswith("!")
    keys = _PROGRAM_KEYS.get(section, ())
    return key in keys or "*" in keys


_PROGRAM_KEYS: dict[str, tuple[str, ...]] = {
    "credential": ("helper",),
    "difftool": ("cmd", "path"),
    "mergetool": ("cmd", "path"),
    "gpg": ("program", "defaultkeycommand"),
    "pager": ("*",),
    "sequence": ("editor",),
    "sendemail": ("smtpserver", "sendmailcmd", "tocmd", "cccmd"),
    "uploadpack": ("packobjectshook",),
    "trailer": ("command", "cmd"),
    "web": ("browser",),
    "browser": ("cmd", "path"),
    "man": ("cmd", "path"),
    "help": ("browser",),
    "instaweb": ("httpd",),
    "imap": ("tunnel",),
    "guitool": ("cmd",),
    "interactive": ("difffilter",),
    "hook": ("command",),
    "trace2": ("*",),  # writes a trace to any file or socket on every command
}


def _runs_url(url: str) -> bool:
    return url.strip().lower().startswith(("ext::", "fd::"))


# ---------------------------------------------------------------------------- reading configuration

_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\s*\]')
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9-]*")


def read_config(path: str, depth: int = 0) -> list[Setting]:
    """Every setting of a git configuration file, with the files it includes (missing ones are skipped)."""
    if depth > MAX_INCLUDE_DEPTH:
        raise ConfigError(f"{path}: includes nested too deeply")
    with open(path, "rb") as file:
        data = file.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path} is too large")
    text = data.decode("utf-8").removeprefix("\ufeff")
    out: list[Setting] = []
    for setting in _parse(text, path):
        out.append(setting)
        if setting.key == "path" and setting.section in ("include", "includeif"):
            target = os.path.join(os.path.dirname(path), os.path.expanduser(setting.value))
            if os.path.exists(target):
                out.extend(read_config(target, depth + 1))
    return out


def _parse(text: str, path: str) -> Iterator[Setting]:
    section: str | None = None
    subsection: str | None = None
    position = 0
    length = len(text)
    while position < length:
        char = text[position]
        if char in " \t\r\n":
            position += 1
        elif char in "#;":
            position = _line_end(text, position)
        elif char == "[":
            match = _SECTION.match(text, position)
            if match is None:
                raise ConfigError(f"{path}: a section header git may read differently")
            name = match.group(1).lower()
            section, _, legacy = name.partition(".")
            subsection = _unescape(match.group(2)) if match.group(2) is not None else (legacy or None)
            position = match.end()
        else:
            match = _KEY.match(text, position)
            if match is None or section is None:
                raise ConfigError(f"{path}: a line git may read differently")
            key = match.group(0).lower()
            position = match.end()
            while position < length and text[position] in " \t":
                position += 1
            value = ""
            if position < length and text[position] == "=":
                value, position = _value(text, position + 1, path)
            elif position < length and text[position] not in "\r\n#;":
                raise ConfigError(f"{path}: a key followed by something git may read differently")
            yield Setting(section, subsection, key, value, path)


def _line_end(text: str, position: int) -> int:
    end = text.find("\n", position)
    return len(text) if end == -1 else end


def _value(text: str, position: int, path: str) -> tuple[str, int]:
    """A value from `position` to the end of its line: quotes, escapes and continuation lines, as git reads them."""
    out: list[str] = []
    quoted = False
    pending_space = ""
    length = len(text)
    while position < length:
        char = text[position]
        if char == "\n" or (char in "#;" and not quoted):
            break
        position += 1
        if char == "\\":
            if position >= length:
                raise ConfigError(f"{path}: a value ending in a backslash")
            escaped = text[position]
            position += 1
            if escaped == "\n":
                continue
            if escaped == "\r" and position < length and text[position] == "\n":
                position += 1
                continue
            replacement = {"n": "\n", "t": "\t", "b": "\b", "\\": "\\", '"': '"'}.get(escaped)
            if replacement is None:
                raise ConfigError(f"{path}: an escape git does not know (\\{escaped})")
            out.append(pending_space + replacement)
            pending_space = ""
        elif char == '"':
            quoted = not quoted
            out.append(pending_space)
            pending_space = ""
        elif char in " \t\r" and not quoted:
            if out or pending_space:
                pending_space += char
        else:
            out.append(pending_space + char)
            pending_space = ""
    if quoted:
        raise ConfigError(f"{path}: an unterminated quote")
    return "".join(out), _line_end(text, position)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)
