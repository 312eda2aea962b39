"""git: its global options, the subcommands (and their forms) that only read, and the shell code it can run."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from handrail.permissions.bash.model import Direction, Word
from handrail.permissions.bash.options import first_forbidden, option_set, scan
from handrail.permissions.bash.readonly.verdict import GLOB_OPTION, UNRESOLVED, ReadOnly

GIT_GLOBAL_FLAGS = option_set(
    "-P --no-pager -p --paginate --bare --no-replace-objects --literal-pathspecs "
    "--glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks --no-advice "
    "--no-lazy-fetch"
)
GIT_GLOBAL_VALUED = option_set("-C --git-dir --work-tree --namespace -c --config-env --super-prefix --list-cmds")
GIT_INFO = option_set("--version --help --html-path --man-path --info-path --exec-path")
GIT_ANYWHERE_FORBIDDEN = (
    "--output",
    "--ext-diff",
    "--upload-pack",
    "--receive-pack",
    "--exec",
    "--open-files-in-pager",
)

GIT_READ_ONLY = frozenset(
    {
        "status",
        "diff",
        "log",
        "show",
        "shortlog",
        "whatchanged",
        "blame",
        "annotate",
        "rev-parse",
        "rev-list",
        "ls-files",
        "ls-tree",
        "cat-file",
        "merge-base",
        "show-ref",
        "for-each-ref",
        "describe",
        "name-rev",
        "count-objects",
        "check-ignore",
        "check-attr",
        "check-ref-format",
        "var",
        "cherry",
        "show-branch",
        "range-diff",
        "grep",
        "branch",
        "tag",
        "remote",
        "config",
        "stash",
        "reflog",
        "worktree",
        "submodule",
        "version",
        "notes",
        "diff-tree",
        "diff-files",
        "diff-index",
        "verify-commit",
        "verify-tag",
    }
)
_BRANCH_WRITES = option_set(
    "-d -D --delete -m -M --move -c -C --copy -f --force -u --set-upstream-to "
    "--unset-upstream --edit-description -t --track --no-track --create-reflog"
)
_BRANCH_VALUED = option_set(
    "--contains --no-contains --merged --no-merged --points-at --format --sort --color --column --abbrev"
)
_TAG_WRITES = option_set(
    "-d --delete -a --annotate -s --sign -u --local-user -f --force -m --message -F --file -e --edit --create-reflog"
)
_CONFIG_READS = option_set("--get --get-all --get-regexp --get-urlmatch --list -l --get-color --get-colorbool")
_CONFIG_WRITES = option_set("--add --unset --unset-all --replace-all --rename-section --remove-section -e --edit")


# git commands that only read with these first operands
_GIT_READ_SUBCOMMANDS: dict[str, tuple[list[str], ...]] = {
    "stash": (["list"], ["show"]),
    "reflog": ([], ["show"], ["exists"]),
    "worktree": (["list"],),
    "submodule": (["status"],),
    "notes": ([], ["list"], ["show"]),
}


# subcommands that print the content of the repository's files (work tree, index or history): they read
# the whole folder, so a Read deny or ask rule on a file in it is met (`git show HEAD:.env`)
_GIT_PRINTS_CONTENT = frozenset({"diff", "show", "blame", "annotate", "range-diff"})
# these print content only with a patch option (or search it: -G, -S)
_GIT_PATCH_OPTIONAL = frozenset({"log", "whatchanged", "diff-tree", "diff-files", "diff-index", "stash"})
_PATCH_OPTIONS = ("-p", "-u", "--patch", "-U", "--unified", "--word-diff", "--color-words", "-W",
                  "--function-context", "--patch-with-stat", "--patch-with-raw", "--cc", "-c", "-m",
                  "--diff-merges", "-G", "-S", "--find-object", "-L")  # fmt: skip
_CAT_FILE_METADATA = option_set("-e -t -s --allow-unknown-type")


def _prints_content(sub: str, options: Sequence[str], positionals: Sequence[str]) -> bool:
    """Whether `git sub …` prints the content of files (so reads what a Read rule on them guards)."""
    if sub in _GIT_PRINTS_CONTENT:
        return True
    if sub == "cat-file":
        return not (options and all(o in _CAT_FILE_METADATA for o in options) and len(positionals) <= 1)
    if sub == "stash" and positionals[:1] != ["show"]:
        return False
    return sub in _GIT_PATCH_OPTIONAL and any(_is_option(o, p) for o in options for p in _PATCH_OPTIONS)


def _is_option(given: str, option: str) -> bool:
    """`given` is `option` itself, with its value attached (`--unified=5`, `-U5`, `-Gneedle`)."""
    if given == option:
        return True
    if option.startswith("--"):
        return given.startswith(option + "=")
    return not given.startswith("--") and given.startswith(option)


@dataclass(frozen=True, slots=True)
class ContentReads:
    """What of its repository a git command prints, beyond the names it is given.

    * `folder`: files below the folder it runs in (`git grep`, `git blame`: at least those).
    * `whole_tree`: files anywhere in the repository. `git diff`, `git log -p`, `git show` and
      `git cat-file -p` print changes and objects of the whole tree wherever they run, and
      `git grep -- :/` searches it from the top.
    * `here`: the files `REV:./path` and `REV:../path` name, relative to the folder it runs in.
    * `from_top`: the files `REV:path` names (`HEAD:.env`, `:0:src/a.py`), relative to the top of
      the work tree, which only the disk can tell (`cd src && git show HEAD:.env` reads the top's `.env`).
    """

    folder: bool = False
    whole_tree: bool = False
    here: tuple[str, ...] = ()
    from_top: tuple[str, ...] = ()


NO_CONTENT = ContentReads()
_ONE_FILE = frozenset({"blame", "annotate"})  # they print the files they are given, relative to where they run


def content_reads(call: GitCall) -> ContentReads:
    """What `call` prints of its repository's files (NO_CONTENT for a command that prints none)."""
    if call.subcommand is None:
        return NO_CONTENT
    sub = call.subcommand.text
    texts = [w.text for w in call.args]
    options = [t for t in texts if t.startswith("-")]
    positionals = [t for t in texts if not t.startswith("-")]
    if sub in ("diff", "log", "show") and "--no-index" in texts:  # two files, no repository
        return NO_CONTENT
    if sub == "grep":
        return ContentReads(folder=True, whole_tree=any(t.startswith((":/", ":(")) for t in positionals))
    if not _prints_content(sub, options, positionals):
        return NO_CONTENT
    here: list[str] = []
    from_top: list[str] = []
    for text in positionals:
        if ":" not in text or "://" in text:
            continue
        name = text.rsplit(":", 1)[1]
        if name.startswith(("./", "../")) or name in (".", ".."):
            here.append(name)
        elif name:
            from_top.append(name)
    return ContentReads(True, _prints_whole_tree(sub, texts, positionals), tuple(here), tuple(from_top))


def _prints_whole_tree(sub: str, texts: Sequence[str], positionals: Sequence[str]) -> bool:
    """Whether a content-printing subcommand prints files beyond the ones it names.

    `git show HEAD:./a.py` and `git cat-file -p HEAD:a.py` print one file each, `git log -p -- a.py`
    the plain paths after `--` (below where it runs); anything else may print the whole tree.
    """
    if sub in _ONE_FILE:
        return False
    if sub in ("show", "cat-file") and positionals:
        objects = positionals[1:] if sub == "cat-file" and len(positionals) == 2 else positionals  # `cat-file blob X`
        if all(":" in text and "://" not in text for text in objects):
            return False
    if "--" in texts:
        pathspecs = texts[texts.index("--") + 1 :]
        return not pathspecs or any(text.startswith(":") or text.startswith("/") for text in pathspecs)
    return True


@dataclass(frozen=True, slots=True)
class GitCall:
    config: tuple[Word, ...]  # values of -c / --config-env / clone -c
    config_env: bool
    exec_path_set: bool
    chdirs: tuple[Word, ...]  # -C, --git-dir, --work-tree
    subcommand: Word | None
    args: tuple[Word, ...]
    unknown_global: bool
    directories: tuple[Word, ...] = ()  # the -C folders, in order
    git_dir: Word | None = None  # --git-dir


def git_call(argv: Sequence[Word]) -> GitCall:
    config: list[Word] = []
    chdirs: list[Word] = []
    directories: list[Word] = []
    git_dir: Word | None = None
    config_env = exec_path_set = unknown = False
    i = 1
    n = len(argv)
    while i < n:
        text = argv[i].text
        if not text.startswith("-"):
            break
        name, eq, value = text.partition("=")
        if name in GIT_INFO:
            if name == "--exec-path" and eq:
                exec_path_set = True
            i += 1
            continue
        if name in GIT_GLOBAL_FLAGS:
            i += 1
            continue
        if name in GIT_GLOBAL_VALUED:
            value_word = (
                Word(value, value, "q" * len(value), argv[i].resolved) if eq else (argv[i + 1] if i + 1 < n else None)
            )
            if name == "-c":
                config.append(value_word if value_word is not None else Word("", "", ""))
            if name == "--config-env":
                config_env = True
            if name in ("-C", "--git-dir", "--work-tree") and value_word is not None:
                chdirs.append(value_word)
                if name == "-C":
                    directories.append(value_word)
                elif name == "--git-dir":
                    git_dir = value_word
            i += 1 if eq else 2
            continue
        if text.startswith("-c") and len(text) > 2:
            config.append(argv[i].sliced(2))
            i += 1
            continue
        if text.startswith("-C") and len(text) > 2:
            chdirs.append(argv[i].sliced(2))
            directories.append(chdirs[-1])
            i += 1
            continue
        unknown = True
        i += 1
    subcommand = argv[i] if i < n else None
    args = tuple(argv[i + 1 :]) if i < n else ()
    if subcommand is not None and subcommand.text == "clone":
        for index, word in enumerate(args):
            if word.text in ("-c", "--config") and index + 1 < len(args):
                config.append(args[index + 1])
            elif word.text.startswith("--config="):
                config.append(word.sliced(9))
    return GitCall(
        tuple(config), config_env, exec_path_set, tuple(chdirs), subcommand, args, unknown, tuple(directories), git_dir
    )


def git_folder(call: GitCall) -> Word:
    """The folder a git command runs in, relative to where it starts: its `-C` folders joined (`.` without)."""
    folder = "."
    for word in call.directories:
        folder = word.text if word.text.startswith(("/", "~")) else f"{folder}/{word.text}"
    return Word(folder, folder, "q" * len(folder), all(w.resolved for w in call.directories))


_GIT_COMMAND_KEYS = frozenset(
    {"core.sshcommand", "core.pager", "core.editor", "sequence.editor", "core.fsmonitor", "diff.external",
     "gpg.program", "core.askpass", "core.gitproxy"}
)  # fmt: skip


def git_scripts(argv: Sequence[Word]) -> list[tuple[str, str]]:
    """Shell code a git command line hands to a shell: `-c alias.x='!cmd'`, `-c core.pager=cmd`,
    `--upload-pack=cmd`, `rebase --exec cmd`, `submodule foreach cmd`, `filter-branch --*-filter cmd`.
    """
    call = git_call(argv)
    found: list[tuple[str, str]] = []
    for setting in call.config:
        key, _, value = setting.text.partition("=")
        key = key.lower()
        if key.startswith("alias.") and value.startswith("!"):
            found.append((f"git -c {key}", value[1:]))
        elif key in _GIT_COMMAND_KEYS or key.startswith(("pager.", "credential.")):
            found.append((f"git -c {key}", value.lstrip("!")))
    args = [w.text for w in call.args]
    sub = call.subcommand.text if call.subcommand is not None else ""
    for index, text in enumerate(args):
        option, eq, value = text.partition("=")
        takes_command = (
            option in ("--upload-pack", "--receive-pack", "--exec")
            or (sub == "rebase" and option in ("-x", "--exec"))
            or (sub == "filter-branch" and option.endswith("-filter"))
        )
        if takes_command:
            command = value if eq else (args[index + 1] if index + 1 < len(args) else "")
            if command:
                found.append((f"git {sub} {option}", command))
    positionals = [t for t in args if not t.startswith("-")]
    if sub == "submodule" and positionals[:1] == ["foreach"]:
        rest = args[args.index("foreach") + 1 :]
        found.append(("git submodule foreach", " ".join(rest)))
    if sub == "bisect" and positionals[:1] == ["run"]:
        found.append(("git bisect run", " ".join(shlex.quote(t) for t in args[args.index("run") + 1 :])))
    return found


def git_read_only(argv: Sequence[Word]) -> ReadOnly:
    """git reads when its subcommand (in the form given) only reads and no option changes its configuration."""
    call = git_call(argv)
    if call.config or call.config_env or call.exec_path_set or call.unknown_global:
        return ReadOnly(False, (), "git options that change its configuration")
    if not all(w.resolved for w in argv):
        return UNRESOLVED
    paths: list[tuple[Word, Direction]] = [(w, "enter") for w in call.chdirs]
    if call.subcommand is None:
        return ReadOnly(True, tuple(paths))  # `git --version`, `git -C x` alone prints help
    sub = call.subcommand.text
    args = call.args
    texts = [w.text for w in args]
    if sub not in GIT_READ_ONLY:
        return ReadOnly(False, (), f"git {sub} is not read-only")
    for text in texts:
        if text.split("=", 1)[0] in GIT_ANYWHERE_FORBIDDEN:
            return ReadOnly(False, (), f"git {sub} {text.split('=', 1)[0]} writes or runs something")
    if any(w.glob for w in args):
        return GLOB_OPTION
    options = [t for t in texts if t.startswith("-")]
    positionals = [t for t in texts if not t.startswith("-")]
    if sub == "grep" and any(t == "-O" or t.startswith("-O") for t in options):
        return ReadOnly(False, (), "git grep -O opens files in a program")
    no_index = sub in ("diff", "log", "show") and "--no-index" in texts  # two files, no repository
    reads = content_reads(call)
    if reads.folder:  # it reads the files below (and the analyser records what of the whole tree, for the disk)
        folder = git_folder(call)
        paths.append((folder, "search"))
        paths.extend((folder.child(name), "read") for name in reads.here)
    if no_index:
        paths.extend((w, "read") for w in args if not w.text.startswith("-"))
    if sub in ("blame", "annotate"):
        for index, text in enumerate(texts):
            if text == "--contents" and index + 1 < len(args):
                paths.append((args[index + 1], "read"))
    if sub == "branch":
        result = scan(args, _BRANCH_VALUED, start=0)
        if first_forbidden(result.options, _BRANCH_WRITES):
            return ReadOnly(False, (), "git branch changes branches")
        if result.operands and not any(name in ("-l", "--list") for name, _ in result.options):
            return ReadOnly(False, (), "git branch NAME creates a branch")
    elif sub == "tag":
        result = scan(
            args,
            option_set("--contains --no-contains --merged --no-merged --points-at --format --sort -n --color --column"),
            start=0,
        )
        if first_forbidden(result.options, _TAG_WRITES):
            return ReadOnly(False, (), "git tag changes tags")
        if result.operands and not any(name in ("-l", "--list") for name, _ in result.options):
            return ReadOnly(False, (), "git tag NAME creates a tag")
    elif sub == "remote":
        if positionals and positionals[0] not in ("get-url", "show"):
            return ReadOnly(False, (), "git remote changes remotes")
    elif sub == "config":
        reading = any(t.split("=", 1)[0] in _CONFIG_READS for t in options) or (positionals[:1] in (["get"], ["list"]))
        if not reading or any(t in _CONFIG_WRITES for t in options):
            return ReadOnly(False, (), "git config changes configuration")
        for index, text in enumerate(texts):
            if text in ("-f", "--file", "--blob") and index + 1 < len(args):
                paths.append((args[index + 1], "read"))
    elif sub in _GIT_READ_SUBCOMMANDS and positionals[:1] not in _GIT_READ_SUBCOMMANDS[sub]:
        return ReadOnly(False, (), f"git {sub} {positionals[0] if positionals else ''} changes the repository")
    return ReadOnly(True, tuple(paths))
