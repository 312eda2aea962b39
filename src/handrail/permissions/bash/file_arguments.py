"""The files a command's own arguments read or write: read-only commands and the common writers.

`touched_paths(argv)` knows the commands that write (`rm`, `mv`, `cp`, `tee`, `dd`...) as well as the
read-only ones, and those that pack or send files (`tar -c`, `zip`, `rsync`, `scp`, `curl`, `wget`:
`transfer_arguments`), so their targets can be checked against the working directories and file rules.
"""

from __future__ import annotations

from collections.abc import Sequence

from handrail.permissions.bash.model import Direction, Word
from handrail.permissions.bash.options import option_set, scan
from handrail.permissions.bash.readonly import ALIASES, CUSTOM, read_only
from handrail.permissions.bash.readonly.git import git_call
from handrail.permissions.bash.readonly.sed import sed_call
from handrail.permissions.bash.readonly.specs import SPECS
from handrail.permissions.bash.transfer_arguments import TRANSFERS, transfer_paths

_WRITERS: dict[str, frozenset[str]] = {
    "rm": frozenset(),
    "rmdir": frozenset(),
    "unlink": frozenset(),
    "shred": option_set("-n --iterations -s --size --random-source"),
    "mkdir": option_set("-m --mode --context"),
    "touch": option_set("-r --reference -d --date -t"),
    "tee": frozenset(),
    "mv": option_set("-t --target-directory -S --suffix"),
    "ln": option_set("-t --target-directory -S --suffix"),
}
# options of otherwise read-only commands that name a file they write
_OUTPUT_OPTIONS: dict[str, frozenset[str]] = {
    "sort": option_set("-o --output"),
    "tree": option_set("-o"),
    "base64": option_set("-o --output"),
    "git": option_set("--output"),
}


# commands whose arguments name files (read, written, searched): an argument the analyser cannot read there
# is a file it cannot check
FILE_NAMING: frozenset[str] = (
    frozenset(n for n, spec in SPECS.items() if spec.operands != "none" or spec.path_options or spec.forbidden)
    | frozenset(CUSTOM)
    | frozenset(ALIASES)
    | frozenset(_WRITERS)
    | frozenset(_OUTPUT_OPTIONS)
    | TRANSFERS
    | option_set("chmod chown chgrp cp install truncate dd unzip ln printf")
)


def follows_links(argv: Sequence[Word]) -> bool:
    """Whether a command that reads folders recursively follows the links it meets (`grep -R`, `rg -L`, `cp -rL`)."""
    if not argv or not argv[0].resolved:
        return False
    verdict = read_only(argv)
    if verdict.read_only:
        return verdict.follows_links
    return argv[0].text == "cp" and any(w.text in ("-L", "--dereference") for w in argv[1:])


def touched_paths(argv: Sequence[Word]) -> tuple[tuple[Word, Direction], ...]:
    """Files a command's own arguments read or write: read-only commands and common writers."""
    if not argv or not argv[0].resolved:
        return ()
    name = ALIASES.get(argv[0].text, argv[0].text)
    verdict = read_only(argv)
    if verdict.read_only:
        return verdict.paths
    if name in _WRITERS:
        result = scan(argv, _WRITERS[name])
        targets = [v for n, v in result.options if n in ("-t", "--target-directory") and v is not None]
        return tuple((w, "write") for w in (*result.operands, *targets))
    if name in _OUTPUT_OPTIONS:
        found: list[tuple[Word, Direction]] = []
        options = _OUTPUT_OPTIONS[name]
        for index, word in enumerate(argv[1:], start=1):
            option, eq, _ = word.text.partition("=")
            if option in options and eq:
                found.append((word.sliced(len(option) + 1), "write"))
            elif option in options and index + 1 < len(argv):
                found.append((argv[index + 1], "write"))
            elif name != "git" and word.text.startswith("-o") and len(word.text) > 2 and "-o" in options:
                found.append((word.sliced(2), "write"))
        if name == "git":  # a git that writes (`git add .env`, then a push) is given files it may read
            written = {word.text for word, _ in found}
            given = [argv[0], *git_call(argv).args]  # after the subcommand (and git's own options)
            found.extend(m for m in mentioned_paths(given) if m[0].text not in written)
        else:  # what it reads: `sort -o out .env` reads .env as `sort .env` does
            reads: Direction = "search" if name == "tree" else "read"
            found.extend((w, reads) for w in scan(argv, options).operands if w.text != "-")
        return tuple(found)
    if name in ("chmod", "chown", "chgrp"):
        result = scan(argv, option_set("--reference --from"))
        operands = result.operands if any(n == "--reference" for n, _ in result.options) else result.operands[1:]
        return tuple((w, "write") for w in operands)
    if name in ("cp", "install"):
        result = scan(
            argv,
            option_set("-t --target-directory -S --suffix -m --mode -o --owner -g --group --reflink --sparse --backup"),
        )
        target = [v for n, v in result.options if n in ("-t", "--target-directory") and v is not None]
        recursive = name == "cp" and any(n in ("-r", "-R", "--recursive", "-a", "--archive") for n, _ in result.options)
        source: Direction = "search" if recursive else "read"
        if target:
            return (*((w, source) for w in result.operands), (target[0], "write"))
        if len(result.operands) >= 2:
            return (*((w, source) for w in result.operands[:-1]), (result.operands[-1], "write"))
        return tuple((w, "write") for w in result.operands)
    if name == "truncate":
        result = scan(argv, option_set("-s --size -r --reference"))
        return tuple((w, "write") for w in result.operands)
    if name == "dd":
        found = []
        for word in argv[1:]:
            if word.text.startswith("of="):
                found.append((word.sliced(3), "write"))
            elif word.text.startswith("if="):
                found.append((word.sliced(3), "read"))
        return tuple(found)
    if name == "sed":
        call = sed_call(argv)
        return tuple((w, "write" if call.in_place else "read") for w in call.files if w.text != "-")
    if name.rsplit("/", 1)[-1] in TRANSFERS:
        return transfer_paths(argv)
    return mentioned_paths(argv)


def mentioned_paths(argv: Sequence[Word]) -> tuple[tuple[Word, Direction], ...]:
    """The words a program handrail does not know is given that could name files (`gh gist create .env`,
    `docker run --env-file=.env`): it may read them, so a Read deny or ask rule on one makes it ask.

    Options' own names are not files; a value after `=` may be. URLs are not files.
    """
    found: list[tuple[Word, Direction]] = []
    for word in argv[1:]:
        text = word.text
        if not word.resolved or not text or "://" in text:
            continue
        if text.startswith("-"):
            option, eq, value = text.partition("=")
            if eq and value:
                found.append((word.sliced(len(option) + 1), "mention"))
            continue
        found.append((word, "mention"))
    return tuple(found)
