"""The values the Bash analyser passes between its stages: words, redirections, simple commands, verdicts.

Everything here is immutable. A `Word` keeps both what the shell will see after quote removal
(`text`) and a per-character `mask` of the same length telling how each character was written:

* ``u``: unquoted literal, subject to globbing, brace expansion, comments...
* ``q``: quoted or backslash-escaped literal
* ``x``: produced by an expansion the analyser cannot resolve (``text`` then holds the source)

so checks can ask "is this flag partly quoted?" or "is this `{a,b}` really unquoted?" without
reparsing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from handrail.permissions.decision import TouchKind

Behavior = Literal["allow", "deny", "ask"]
AccessKind = TouchKind
Direction = TouchKind
RedirectKind = Literal["read", "write", "dup", "close", "heredoc", "herestring"]


@dataclass(frozen=True, slots=True)
class Reason:
    """Why the analyser decided as it did: a stable id and a sentence for the user."""

    id: str
    message: str


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word after quote removal; unresolved words keep their source text."""

    text: str
    raw: str
    mask: str
    resolved: bool = True
    ansi_c: bool = False
    substitution: bool = False  # contained `$(...)` or backticks (resolved only for a literal heredoc)
    variables: tuple[str, ...] = ()  # names of the parameters it expands
    problems: tuple[str, ...] = ()  # ids of problems found while reading it

    @property
    def quoted(self) -> bool:
        return "q" in self.mask

    @property
    def glob(self) -> bool:
        """Whether the shell would treat it as a pathname pattern (unquoted `*`, `?` or `[`)."""
        text = self.text
        if "*" not in text and "?" not in text and "[" not in text:
            return False
        return any(m == "u" and c in "*?[" for c, m in zip(text, self.mask, strict=False))

    @property
    def tilde(self) -> bool:
        return self.text.startswith("~") and self.mask[:1] == "u"

    def sliced(self, start: int, end: int | None = None) -> Word:
        """The part from `start` (to `end`) as a word of its own: the value of `--opt=value`, the file of `@file`."""
        text = self.text[start:end]
        return Word(text, text, self.mask[start:end], self.resolved)

    def child(self, name: str) -> Word:
        """The path `name` inside this folder, as a word (`./` before `name` dropped)."""
        joined = f"{self.text}/{name.removeprefix('./')}"
        return Word(joined, joined, "q" * len(joined), self.resolved)


def literal_word(text: str) -> Word:
    """A word known to be exactly `text` (used when re-building argv, e.g. from `eval` or `env -S`)."""
    return Word(text, text, "q" * len(text))


@dataclass(frozen=True, slots=True)
class Redirect:
    """One redirection; `target` is None for heredocs, duplications and closes."""

    operator: str
    kind: RedirectKind
    fd: int | None = None
    target: Word | None = None
    heredoc_body: str | None = None
    heredoc_quoted: bool = False


@dataclass(frozen=True, slots=True)
class Assignment:
    name: str
    value: Word | None
    raw: str


CommandKind = Literal["command", "declaration", "unset", "test", "arithmetic", "assignment"]


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One simple command with its structural context.

    `contexts` holds where it sits: ``pipeline``, ``subshell``, ``group``, ``background``,
    ``command_substitution``, ``process_substitution``, ``loop``, ``conditional``,
    ``function``, ``negated``, ``heredoc``. `after` is the list operator that follows it
    (``&&``, ``||``, ``;``, ``&``, ``|``, ``|&``, ``\\n`` or ``""`` at the end).
    `piped_input` is true when its stdin comes from a pipe.
    """

    argv: tuple[Word, ...]
    assignments: tuple[Assignment, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    contexts: frozenset[str] = frozenset()
    text: str = ""
    kind: CommandKind = "command"
    after: str = ""
    piped_input: bool = False
    problems: tuple[str, ...] = ()

    @property
    def resolved(self) -> bool:
        return (
            not self.problems
            and all(w.resolved for w in self.argv)
            and all(a.value is None or a.value.resolved for a in self.assignments)
            and all(r.target is None or r.target.resolved for r in self.redirects)
        )


@dataclass(frozen=True, slots=True)
class ParsedScript:
    """A command line cut into simple commands, in the order they appear."""

    source: str
    commands: tuple[SimpleCommand, ...]
    problems: tuple[Reason, ...] = ()
    comments: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    quoted_spans: tuple[tuple[int, int], ...] = ()  # character ranges of quoted text and heredoc bodies
    comment_spans: tuple[tuple[int, int], ...] = ()
    has_error: bool = False
    word_spans: tuple[tuple[int, int], ...] = ()  # character ranges of the words tree-sitter found


@dataclass(frozen=True, slots=True)
class Access:
    """A file or folder a command of the line touches, for the pipeline to decide as Read or Edit would.

    `path` is absolute: the word joined onto the folder the command runs in, with `..` left in
    place (after a symlink, `..` is the link target's parent: only the kernel knows). `named`
    says an exact rule the user wrote covers the command that touches it. A `search` reads
    everything below the folder; `follows_links` says it follows the links it meets there.
    `wildcard` paths name whatever files they match when the command runs. A search with
    `history` reads a repository's history too, where a file deleted from disk lives on: the
    files the Read rules name below the folder count as read, on disk or not.
    """

    path: str
    kind: AccessKind
    named: bool = False
    follows_links: bool = False
    wildcard: bool = False
    history: bool = False


@dataclass(frozen=True, slots=True)
class GitUse:
    """Where one git command looks for its repository: the folder it starts in (after `-C`), or `--git-dir`.

    `whole_tree` says it prints files from anywhere in the repository's work tree (`git log -p`
    run in a subfolder), and `from_top` names the files it prints relative to the top of the work
    tree (`HEAD:.env`): where that top is, only the disk can tell.
    """

    start: str
    git_dir: str | None = None
    subcommand: str | None = None
    whole_tree: bool = False
    from_top: tuple[str, ...] = ()


ArchiveFormat = Literal["tar", "zip"]


@dataclass(frozen=True, slots=True)
class Unpack:
    """An archive one command extracts: the files it writes are named inside it, which only the disk can tell.

    `archive` and `destination` are absolute. Without a `format`, handrail cannot look into what it
    writes (`why` says so). `strip` leading components are dropped from each name; `junk_paths`
    keeps only the last one (`unzip -j`).
    """

    archive: str | None
    destination: str
    format: ArchiveFormat | None
    strip: int = 0
    junk_paths: bool = False
    why: str = ""


@dataclass(frozen=True, slots=True)
class BashVerdict:
    """What the analyser decided about a command line.

    * `behavior`: allow, deny or ask.
    * `reasons`: why (deny rule, ask rule, each flagged check, each uncovered part...).
    * `subcommands`: every command that would run, as normalized text.
    * `suggestions`: rules (``Bash(npm test:*)``) that would cover the uncovered parts; never
      for flagged or destructive commands; at most 5.
    * `read_only`: the whole line only reads (no writes, no unknown programs, no flags).
    * `accesses`: every file and folder the commands read, write, run, search or move into
      (their arguments and redirections), for the pipeline to resolve and decide as the file
      tools would. The analyser itself decides nothing about paths.
    * `git`: where each git command will look for its repository (its configuration can make
      git run programs, so the pipeline looks there before a git command counts as read-only).
    * `unpacks`: the archives the commands extract (what they write is named inside them).
    * `must_not_interrupt`: cutting it in half would leave a mess (``git commit``, installs).
    * `changes_cwd`: it contains a ``cd`` (the session's directory changes; not concurrency safe).
    * `flagged`: ids of the security checks that fired (never allowed while non-empty).
    * `matched_rules`: (kind, rule as written without `Bash(...)`) for each rule that hit some
      part: deny and ask rules anywhere, allow rules naming a part (also one that only reads).

    Paths are absolute, joined as written (no symlinks resolved, wildcards kept as written).
    """

    behavior: Behavior
    reasons: tuple[Reason, ...] = ()
    subcommands: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()
    read_only: bool = False
    accesses: tuple[Access, ...] = ()
    git: tuple[GitUse, ...] = ()
    unpacks: tuple[Unpack, ...] = ()
    must_not_interrupt: bool = False
    changes_cwd: bool = False
    flagged: tuple[str, ...] = ()
    matched_rules: tuple[tuple[Behavior, str], ...] = ()

    @property
    def reason_ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.reasons)
