"""Decide allow / deny / ask for one Bash command line.

`analyse(command, allow=..., deny=..., ask=..., cwd=...)` takes Bash rule
specifiers as plain strings (``npm test:*``, ``git status``, ``git * --dry-run``) and returns a
`BashVerdict`. The semantics:

1. Every command that would run is found (`effective.expand`): parts of lists and pipelines,
   substitutions, subshells, loop and function bodies, what wrappers (`env`, `timeout`, `xargs`,
   `sudo`...) run, what `bash -c`/`eval`/`trap` run, what `find -exec` runs.
2. A deny rule matching any of them, in any of its forms (as written, after quote removal, with
   the path of `/bin/rm` dropped, with or without its wrappers), denies the whole line.
3. More than 50 commands: ask. An ask rule matching any command: ask. Any flagged check
   (`checks`): ask, whatever the allow rules say.
4. Otherwise each command must be covered: read-only (`readonly`), a plain file operation
   (`mkdir`, `touch`, `cp`, `mv`, `tee`: its only effect is writing the files it names), matched
   by an allow rule (prefix rules for bare shells and wrappers are refused), or a `cd`. An
   expansion among the arguments of a command whose arguments are data (`echo $HOME`), or of a
   command covered by a prefix rule that names no files (`npm install ${pkg}` under
   `Bash(npm:*)`), cannot add a command and is allowed; so is a `$(...)` whose commands are all
   covered themselves. Commands after a `cd` are judged in every directory they may run in.
5. Any exception: ask, with reason `analyser_error`.

The analyser decides about commands, never about paths: every file or folder a command reads,
writes, runs, searches or moves into is reported in `accesses` (and every repository git will
use in `git`), for the permission pipeline to resolve and decide as the file tools' would. A
rule allows a command, not the files it touches. The analyser reads no files.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from handrail.permissions.bash.checks import (
    INTERPRETERS as CODE_INTERPRETERS,
)
from handrail.permissions.bash.checks import (
    command_reasons,
    declaration_reasons,
    reason,
    script_reasons,
)
from handrail.permissions.bash.effective import Effective, expand
from handrail.permissions.bash.env_vars import is_dangerous, is_safe
from handrail.permissions.bash.file_arguments import FILE_NAMING, follows_links, touched_paths
from handrail.permissions.bash.matching import BashRule, compile_rule, head_reaches_inside, matches
from handrail.permissions.bash.model import (
    Access,
    AccessKind,
    BashVerdict,
    Behavior,
    GitUse,
    Reason,
    Redirect,
    Unpack,
    Word,
)
from handrail.permissions.bash.readonly import ReadOnly, read_only
from handrail.permissions.bash.readonly.git import content_reads, git_call, git_folder
from handrail.permissions.bash.risky_commands import is_destructive, must_not_interrupt
from handrail.permissions.bash.unpack import unpack_of
from handrail.permissions.bash.wrappers import RUNNERS, SHELLS, base_name

MAX_SUBCOMMANDS = 50
MAX_SUGGESTIONS = 8
PLACEHOLDER = "\ufffc"  # the arguments `xargs` and `find -exec {}` add: only an open-ended rule covers them

# wrappers that change nothing about what a read-only command does
RO_TRANSPARENT = frozenset(
    {
        "nohup",
        "timeout",
        "nice",
        "stdbuf",
        "time",
        "command",
        "builtin",
        "exec",
        "noglob",
        "nocorrect",
        "setsid",
        "ionice",
        "env",
    }
)
SAFE_WRITE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
SAFE_READ_TARGETS = frozenset({"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/tty"})
# plain file operations: their only effect is writing the files they name (acceptEdits mode covers them)
FILE_OPERATIONS = frozenset({"mkdir", "touch", "cp", "mv", "tee"})
# commands whose arguments are only data: an expansion among them cannot name a file or add a command
DATA_COMMANDS = frozenset({"echo", "true", "false", ":", "sleep", "seq", "basename", "dirname", "expr", "numfmt"})
CD_COMMANDS = frozenset({"cd", "pushd", "popd"})
_ISOLATING = frozenset(
    {
        "subshell",
        "pipeline",
        "loop",
        "conditional",
        "command_substitution",
        "process_substitution",
        "function",
        "background",
        "negated",
    }
)


def analyse(
    command: str,
    *,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    ask: Sequence[str] = (),
    cwd: Path,
) -> BashVerdict:
    """The verdict for one command line; never raises (an internal error means ask)."""
    try:
        return _Analysis(command, allow=allow, deny=deny, ask=ask, cwd=cwd).run()
    except Exception as exc:  # fail closed
        return BashVerdict(
            "ask",
            (Reason("analyser_error", f"the command could not be analysed ({type(exc).__name__}: {exc}); asking"),),
        )


# ---------------------------------------------------------------------------- rendering


_PLAIN = re.compile(r"^[A-Za-z0-9_@%+=:,./~^-]+$")


def render_word(text: str) -> str:
    """Shell text for a literal word (quoted unless it is plain; a leading `~` is quoted too)."""
    plain = text == "{}" or (bool(text) and _PLAIN.match(text) is not None and not text.startswith("~"))
    return text if plain else shlex.quote(text)


def _render(word: Word) -> str:
    """A word as shell text with the same meaning: quoted where needed, its wildcards left active."""
    if not word.resolved:
        return word.text
    if word.tilde and (word.text == "~" or word.text.startswith("~/")) and not word.glob:
        return "~" + (render_word(word.text[1:]) if len(word.text) > 1 else "")
    if not word.glob:
        return render_word(word.text)
    out: list[str] = []
    run: list[str] = []
    for char, kind in zip(word.text, word.mask, strict=False):
        if kind == "u" and char in "*?[]":
            if run:
                out.append(render_word("".join(run)))
                run = []
            out.append(char)
        else:
            run.append(char)
    if run:
        out.append(render_word("".join(run)))
    return "".join(out)


def render(words: Sequence[Word]) -> str:
    return " ".join(_render(w) for w in words)


def _render_assignment_words(effective: Effective) -> list[str]:
    return [a.raw for a in effective.env]


def _join(word: Word, cwd: str) -> str | None:
    """The absolute path a word names, joined onto `cwd` as written (None if it cannot be known).

    `..` stays in place: after a symlink, `a/link/..` is the link target's parent, which only
    resolving the path (the pipeline does) can tell.
    """
    if not word.resolved:
        return None
    text = word.text
    if word.glob and any(
        part.startswith(".") and fnmatch.fnmatchcase("..", part)
        for part in text.split("/")
        if any(c in part for c in "*?[")
    ):
        return None  # `.*/x` may expand to `../x` (a pattern must start with `.` to match `..`)
    if word.tilde:
        if text == "~" or text.startswith("~/"):
            text = str(Path.home()) + text[1:]
        else:
            return None
    if not text:
        return None
    if not text.startswith("/"):
        text = cwd.rstrip("/") + "/" + text
    return text


def _runs_in(effective: Effective, cwd: str) -> str | None:
    """The folder a command runs in, started from `cwd`: after its wrappers' `-C` (None when one is not known)."""
    folder: str | None = cwd
    for chdir in effective.chdirs:
        folder = _join(chdir, folder) if folder is not None else None
    return folder


def _safe_target(path: str, kind: AccessKind) -> bool:
    normal = os.path.normpath(path)
    safe = SAFE_WRITE_TARGETS if kind == "write" else SAFE_READ_TARGETS
    return normal in safe or normal.startswith("/dev/fd/")


def _script_operand(argv: Sequence[Word]) -> Word | None:
    """The script file a shell, an interpreter or `source` runs (`bash x.sh`, `python3 x.py`, `. ./env.sh`)."""
    name = base_name(argv[0].text)
    if name in ("source", "."):
        return argv[1] if len(argv) > 1 else None
    if name not in SHELLS and name.rstrip("0123456789.") not in CODE_INTERPRETERS | {"python"}:
        return None
    for word in argv[1:]:
        text = word.text
        if text in ("-c", "-e", "-E", "-m", "-r", "-p", "--eval", "--print", "-", "--"):
            return None
        if not text.startswith(("-", "+")):
            return word
    return None


@dataclass
class _Judgement:
    covered: bool = False
    by: str = ""
    rule: BashRule | None = None  # the allow rule naming this part (also when it is covered as read-only)
    flags: list[Reason] = field(default_factory=list)
    problems: list[Reason] = field(default_factory=list)  # not flags, but still ask (a path or cd not known)
    read_only: bool = False
    suggestion_ok: bool = True
    accesses: list[Access] = field(default_factory=list)


class _Analysis:
    def __init__(
        self,
        command: str,
        *,
        allow: Sequence[str],
        deny: Sequence[str],
        ask: Sequence[str],
        cwd: Path,
    ) -> None:
        self.command = command
        self.whole = command.strip()
        self.allow = [compile_rule(r) for r in allow]
        self.deny = [compile_rule(r) for r in deny]
        self.ask = [compile_rule(r) for r in ask]
        self.cwd = os.path.normpath(str(cwd))
        self.functions: frozenset[str] = frozenset()
        self.git: dict[GitUse, None] = {}
        self.unpacks: dict[Unpack, None] = {}

    # ------------------------------------------------------------------ forms

    def deny_forms(self, effective: Effective) -> list[str]:
        argv = list(effective.argv)
        forms: list[str] = []
        layer_words = [w for layer in effective.layers for w in layer.argv]
        if argv:
            canon = render(argv)
            forms += [canon, " ".join(w.text for w in argv)]
            if effective.written and effective.written != argv[0].text:
                forms.append(" ".join([effective.written, *(w.text for w in argv[1:])]))
            base = base_name(argv[0].text)
            if base != argv[0].text:
                forms.append(" ".join([base, *(w.text for w in argv[1:])]))
            if base.lower() != base:  # `RM -rf x` runs rm on a case-insensitive file system
                forms.append(" ".join([base.lower(), *(w.text for w in argv[1:])]))
            if effective.env:
                forms.append(" ".join([*_render_assignment_words(effective), canon]))
            if effective.appends_args:
                forms.append(canon + " " + PLACEHOLDER)
            if argv[0].text == "git":  # `git -C . push` still meets `Bash(git push:*)`
                call = git_call(argv)
                if call.subcommand is not None:
                    forms.append(render([argv[0], call.subcommand, *call.args]))
        for index in range(len(effective.layers)):
            outer = [w for layer in effective.layers[index:] for w in layer.argv]
            forms.append(render([*outer, *argv]))
            forms.append(" ".join(w.text for w in [*outer, *argv]))
        if layer_words and not argv:
            forms.append(render(layer_words))
        if effective.source.text:
            forms.append(effective.source.text.strip())
        return list(dict.fromkeys(f for f in forms if f))

    def rule_hits(self, rules: Sequence[BashRule], forms: Sequence[str]) -> list[BashRule]:
        return [rule for rule in rules if any(matches(rule, form) for form in forms)]

    def allow_match(self, effective: Effective) -> BashRule | None:
        argv = effective.argv
        if not argv:
            return None
        canon = render(argv)
        env_safe = all(is_safe(a) for a in effective.env)
        inner: list[str] = []
        if any(layer.opaque for layer in effective.layers):
            env_safe = False  # `strace npm test` is not `npm test`: only a rule naming the wrapper covers it
        if env_safe:
            inner.append(canon + " " + PLACEHOLDER if effective.appends_args else canon)
        if effective.env and not any(layer.opaque for layer in effective.layers):
            with_env = " ".join([*_render_assignment_words(effective), canon])
            inner.append(with_env + " " + PLACEHOLDER if effective.appends_args else with_env)
        wrapped: list[str] = []
        for index in range(len(effective.layers)):
            outer = [w for layer in effective.layers[index:] for w in layer.argv]
            text = render([*outer, *argv])
            wrapped.append(text + " " + PLACEHOLDER if effective.appends_args else text)
        raw = effective.source.text.strip() if not effective.via and not effective.appends_args else ""
        for rule in self.allow:
            if rule.bare_runner:
                continue
            if any(matches(rule, form) for form in inner):
                return rule
            if head_reaches_inside(rule) and any(matches(rule, form) for form in wrapped):
                return rule
            if rule.kind == "exact" and ((raw and matches(rule, raw)) or matches(rule, self.whole)):
                return rule  # the user approved exactly this command (or this whole line)
        return None

    # ------------------------------------------------------------------ main

    def run(self) -> BashVerdict:
        expansion = expand(self.command)
        effectives = expansion.effectives
        subcommands = tuple(
            dict.fromkeys(self.display(e) for e in effectives if not e.runs_script and (e.argv or e.source.assignments))
        )
        script_flags: list[Reason] = list(expansion.problems)
        for script in expansion.scripts:
            script_flags.extend(script_reasons(script))

        # deny: any part, any form
        whole = self.whole
        crude = self.crude_parts() if any(s.has_error for s in expansion.scripts) else []
        deny_reasons: list[Reason] = []
        ask_reasons: list[Reason] = []
        hits: list[tuple[Behavior, str]] = []
        for effective in effectives:
            forms = self.deny_forms(effective)
            for rule in self.rule_hits(self.deny, forms):
                deny_reasons.append(Reason("deny_rule", f"{rule.display} denies `{forms[0] if forms else whole}`"))
                hits.append(("deny", rule.text))
            for rule in self.rule_hits(self.ask, forms):
                ask_reasons.append(Reason("ask_rule", f"{rule.display} asks before `{forms[0] if forms else whole}`"))
                hits.append(("ask", rule.text))
        for rule in self.rule_hits(self.deny, [whole, *crude]):
            deny_reasons.append(Reason("deny_rule", f"{rule.display} denies `{whole}`"))
            hits.append(("deny", rule.text))
        for rule in self.rule_hits(self.ask, [whole, *crude]):
            ask_reasons.append(Reason("ask_rule", f"{rule.display} asks before `{whole}`"))
            hits.append(("ask", rule.text))
        deny_reasons = list(dict.fromkeys(deny_reasons))
        ask_reasons = list(dict.fromkeys(ask_reasons))

        self.functions = expansion.functions
        judgements = self.judge_all(effectives)
        script_flags.extend(self.substitution_flags(effectives, judgements))
        flags = list(dict.fromkeys([*script_flags, *(f for j in judgements for f in j.flags)]))
        counted = [e for e in effectives if e.argv and not e.runs_script]
        accesses = self.accesses(judgements)
        base = BashVerdict(
            "ask",
            subcommands=subcommands,
            accesses=accesses,
            git=tuple(self.git),
            unpacks=tuple(self.unpacks),
            must_not_interrupt=any(must_not_interrupt(e.argv) for e in counted),
            changes_cwd=any(e.name in CD_COMMANDS for e in counted),
            flagged=tuple(dict.fromkeys(f.id for f in flags)),
            matched_rules=tuple(dict.fromkeys([*hits, *(("allow", j.rule.text) for j in judgements if j.rule)])),
        )
        if deny_reasons:
            return replace(base, behavior="deny", reasons=tuple(deny_reasons))

        reasons: list[Reason] = []
        if len(counted) > MAX_SUBCOMMANDS:
            reasons.append(
                Reason("too_many_subcommands", f"{len(counted)} commands (more than {MAX_SUBCOMMANDS}): asking")
            )
        reasons.extend(ask_reasons)
        reasons.extend(flags)
        uncovered: list[tuple[Effective, _Judgement]] = []
        for effective, judgement in zip(effectives, judgements, strict=True):
            reasons.extend(judgement.problems)
            if not judgement.covered and not judgement.flags and not judgement.read_only:
                uncovered.append((effective, judgement))
                reasons.append(Reason("no_rule", f"no rule allows `{self.display(effective)}`"))
        if not reasons and not all(j.covered for j in judgements):  # never allow by omission
            reasons.append(Reason("no_rule", "a part of the command is not covered"))
        reasons = list(dict.fromkeys(reasons))
        read_only = not flags and all(j.read_only for j in judgements) and not any(a.kind == "write" for a in accesses)
        if not reasons:
            allowed_by = tuple(dict.fromkeys(Reason("allowed", j.by) for j in judgements if j.by))
            return replace(
                base, behavior="allow", reasons=allowed_by or (Reason("allowed", "nothing runs"),), read_only=read_only
            )
        suggestions = self.suggestions(uncovered) if all(r.id == "no_rule" for r in reasons) else ()
        return replace(base, reasons=tuple(reasons), suggestions=suggestions, read_only=read_only)

    @staticmethod
    def suggestions(uncovered: Sequence[tuple[Effective, _Judgement]]) -> tuple[str, ...]:
        """The rules that together cover every uncovered part, or none: a partial set would not cover the line."""
        found: list[str] = []
        for effective, judgement in uncovered:
            suggestion = suggest(effective) if judgement.suggestion_ok else None
            if suggestion is None:
                return ()
            if suggestion not in found:
                found.append(suggestion)
        return tuple(found) if len(found) <= MAX_SUGGESTIONS else ()

    @staticmethod
    def accesses(judgements: Sequence[_Judgement]) -> tuple[Access, ...]:
        """Every part's accesses, each once: named when an exact rule names it for every part that touches it."""
        found: dict[tuple[str, AccessKind, bool, bool], bool] = {}
        for judgement in judgements:
            named = judgement.rule is not None and judgement.rule.kind == "exact"
            for access in judgement.accesses:
                key = (access.path, access.kind, access.follows_links, access.wildcard)
                found[key] = found.get(key, True) and named
        return tuple(
            Access(path, kind, named, follows, wildcard) for (path, kind, follows, wildcard), named in found.items()
        )

    def substitution_flags(self, effectives: Sequence[Effective], judgements: Sequence[_Judgement]) -> list[Reason]:
        """`command_substitution` unless every command inside a `$(...)` is covered and unflagged.

        Where the output lands is judged where it lands: as the command name or in a
        redirection it is unresolved (flagged there); among the arguments of a command that
        names files it is an unknown file (flagged there); among data it is harmless.
        """
        inside = [(e, j) for e, j in zip(effectives, judgements, strict=True) if "command_substitution" in e.contexts]
        if not inside:
            return []
        if all(j.covered and not j.flags and not j.problems for _, j in inside):
            return []
        texts = ", ".join(dict.fromkeys(render(e.argv) or e.source.text.strip() for e, _ in inside))
        return [reason("command_substitution", texts)]

    @staticmethod
    def display(effective: Effective) -> str:
        if effective.source.kind != "command":
            return effective.source.text.strip()
        opaque = [w for layer in effective.layers if layer.opaque for w in layer.argv]
        text = render([*opaque, *effective.argv]) or effective.source.text.strip()
        return " ".join([*_render_assignment_words(effective), text]) if effective.env else text

    def crude_parts(self) -> list[str]:
        parts = re.split(r"&&|\|\||[;&|\n()`{}<>]|\$\(", self.command)
        return [p.strip() for p in parts if p.strip()]

    # ------------------------------------------------------------------ coverage

    def judge_all(self, effectives: Sequence[Effective]) -> list[_Judgement]:
        cwds: list[str] = [self.cwd]
        seen: list[str] = [self.cwd]
        previous = None
        judgements: list[_Judgement] = []
        for effective in effectives:
            if previous is not None and effective.source is not previous.source and previous.source.after != "&&":
                cwds = list(seen)
            judgement = self.judge(effective, cwds)
            judgements.append(judgement)
            if effective.name in CD_COMMANDS and effective.source.kind == "command":
                targets = self.cd_targets(effective, cwds, seen, judgement)
                for target in targets:
                    if target not in seen:
                        seen.append(target)
                definite = (
                    effective.source.after == "&&"
                    and effective.depth == 0
                    and not (effective.contexts & _ISOLATING)
                    and not effective.layers
                    and bool(targets)
                )
                cwds = list(dict.fromkeys(targets)) if definite else list(dict.fromkeys([*cwds, *targets]))
            previous = effective
        for index, effective in enumerate(effectives):
            if "function" in effective.contexts:  # a function body runs wherever it is called
                first, again = judgements[index], self.judge(effective, seen)
                again.covered = again.covered and first.covered
                again.problems = [*first.problems, *again.problems]
                again.flags = [*first.flags, *again.flags]
                again.accesses = [*first.accesses, *again.accesses]
                judgements[index] = again
        return judgements

    def cd_targets(self, effective: Effective, cwds: list[str], seen: list[str], judgement: _Judgement) -> list[str]:
        """Where a `cd`, `pushd` or `popd` lands (each a folder the pipeline must find inside the working dirs)."""
        name = effective.name
        args = [w for w in effective.argv[1:] if not (w.text.startswith("-") and w.text != "-" and w.resolved)]
        if name == "popd":
            return list(seen)
        if len(args) > 1 or (name == "pushd" and not args):
            judgement.problems.append(Reason("cd_outside", f"`{render(effective.argv)}`: where it lands is unclear"))
            judgement.covered = False
            return []
        word = args[0] if args else Word("~", "~", "u")
        targets = [_join(word, c) for c in cwds] if word.text != "-" else [None]
        if any(t is None for t in targets):
            judgement.problems.append(Reason("cd_outside", f"`{render(effective.argv)}`: where it lands is unknown"))
            judgement.covered = False
            return []
        resolved = [t for t in targets if t is not None]
        judgement.accesses.extend(Access(t, "enter") for t in resolved)
        return resolved

    def judge(self, effective: Effective, cwds: Sequence[str]) -> _Judgement:
        judgement = _Judgement()
        source = effective.source
        if source.kind in ("declaration", "unset", "assignment", "test", "arithmetic"):
            return self.judge_builtin(effective, judgement, cwds)
        flags = command_reasons(effective)
        self.redirect_accesses(effective, cwds, judgement)
        argv = effective.argv
        if effective.runs_script and not argv:
            judgement.flags = flags
            judgement.covered = True
            judgement.read_only = not flags and not self.writes(effective)
            return judgement
        if not argv:  # only redirections: `2>&1` is harmless, `> file` truncates a file (a write to decide)
            judgement.flags = flags
            judgement.covered = True
            judgement.read_only = not self.writes(effective)
            judgement.suggestion_ok = False
            return judgement
        if argv[0].resolved and argv[0].text in self.functions and not effective.layers:
            judgement.flags = flags
            judgement.covered = True  # a function defined on this line: its body is judged on its own
            judgement.read_only = not self.writes(effective)
            judgement.by = f"`{argv[0].text}` is a function defined on this line"
            return judgement
        if argv[0].resolved and argv[0].text in CD_COMMANDS:
            judgement.flags = flags
            judgement.covered = True
            judgement.read_only = True
            judgement.suggestion_ok = False
            return judgement
        if is_destructive(argv) or effective.privileged:
            judgement.suggestion_ok = False
        rule = self.allow_match(effective)
        data = False
        if self.relaxable(effective, rule):
            flags = [f for f in flags if f.id != "unresolved_argument"]
            data = argv[0].text in DATA_COMMANDS
        judgement.flags = flags
        if flags:
            judgement.suggestion_ok = False
        if data:
            ro: ReadOnly | None = ReadOnly(True) if self.ro_eligible(effective, data=True) else None
        else:
            ro = read_only(argv) if self.ro_eligible(effective) else None
        self.path_accesses(self.touched(effective, data), cwds, judgement, follows_links(argv))
        self.git_use(effective, cwds, judgement)
        self.unpack_use(effective, cwds, judgement)
        judgement.rule = rule
        only_reads = bool(ro and ro.read_only) and not flags
        judgement.read_only = only_reads and not self.writes(effective)
        if only_reads:
            judgement.covered = True
            judgement.by = f"`{render(argv)}` only reads"
        elif not flags and argv[0].text in FILE_OPERATIONS and self.ro_eligible(effective):
            judgement.covered = True
            judgement.by = f"`{render(argv)}` only writes the files it names"
        elif rule is not None:
            judgement.covered = True
            judgement.by = f"{rule.display} allows `{render(argv)}`"
        return judgement

    def touched(self, effective: Effective, data: bool) -> list[tuple[Word, AccessKind]]:
        """The words of a command naming files it touches, and how (its arguments, wrappers, the script it runs)."""
        argv = effective.argv
        words: list[tuple[Word, AccessKind]] = []
        if argv[0].resolved and not data:
            words.extend(touched_paths(argv))
            if "/" in argv[0].text:
                words.append((argv[0], "run"))
            script = _script_operand(argv)
            if script is not None:
                words.append((script, "run"))
        words += list(effective.wrapper_paths) + [(w, "enter") for w in effective.chdirs]
        if effective.via and effective.via[-1].startswith("find"):
            words = [(w, d) for w, d in words if "{}" not in w.text]  # the files find passes
        return words

    def git_use(self, effective: Effective, cwds: Sequence[str], judgement: _Judgement) -> None:
        """Record where a git command will look for its repository (its configuration can make git run programs)."""
        argv = effective.argv
        if not argv or argv[0].text != "git" or not argv[0].resolved:
            return
        if effective.appends_args:  # xargs or find add arguments (a `-C` among them) only when it runs
            judgement.problems.append(
                Reason("git_repository_unknown", "git gets arguments only known when it runs (xargs, find -exec)")
            )
            return
        call = git_call(argv)
        folder = git_folder(call)
        reads = content_reads(call)
        for cwd in cwds:
            start = _runs_in(effective, cwd)
            start = _join(folder, start) if start is not None else None
            git_dir = _join(call.git_dir, cwd) if call.git_dir is not None else None
            if start is None or (call.git_dir is not None and git_dir is None):
                judgement.problems.append(
                    Reason("git_repository_unknown", f"`{render(argv)}`: which repository it uses is not known")
                )
                continue
            subcommand = call.subcommand.text if call.subcommand is not None else None
            self.git[GitUse(start, git_dir, subcommand, reads.whole_tree, reads.from_top)] = None

    def unpack_use(self, effective: Effective, cwds: Sequence[str], judgement: _Judgement) -> None:
        """Record the archive a command extracts: what it writes is named inside it (the Bash check looks)."""
        words = unpack_of(effective.argv)
        if words is None:
            return
        if words.format is None:
            judgement.problems.append(Reason("unpack_unknown", f"`{render(effective.argv)}`: {words.why}"))
            return
        for cwd in cwds:
            start = _runs_in(effective, cwd)
            archive = _join(words.archive, start) if words.archive is not None and start is not None else None
            destination = start if words.destination is None or start is None else _join(words.destination, start)
            if archive is None or destination is None:
                what = "which archive it extracts, or where to, is not known"
                judgement.problems.append(Reason("unpack_unknown", f"`{render(effective.argv)}`: {what}"))
                continue
            judgement.accesses.append(Access(archive, "read", wildcard=bool(words.archive and words.archive.glob)))
            self.unpacks[Unpack(archive, destination, words.format, words.strip, words.junk_paths)] = None

    def relaxable(self, effective: Effective, rule: BashRule | None) -> bool:
        """Whether the expansions among a command's arguments can be let through (they cannot add a command).

        Only the arguments: the name, the wrappers, the assignments and the redirections must
        be known. The command's arguments must be data (`echo`), or it is covered by a rule
        and names no files the analyser would check; and no deny or ask rule may be about
        this command (an expansion could turn `npm $x` into the `npm publish` a rule denies).
        """
        argv = effective.argv
        unresolved = [w for w in argv[1:] if not w.resolved]
        if not unresolved or not argv[0].resolved or any(w.problems for w in unresolved):
            return False
        if any(not w.resolved for layer in effective.layers for w in layer.argv):
            return False
        if any(a.value is not None and not a.value.resolved for a in effective.env):
            return False
        if any(r.target is not None and not r.target.resolved for r in effective.source.redirects):
            return False
        name = argv[0].text
        if any(self.about(r, name) for r in (*self.deny, *self.ask)):
            return False
        if name in DATA_COMMANDS:
            return True
        return rule is not None and name not in FILE_NAMING and base_name(name) not in RUNNERS

    @staticmethod
    def about(rule: BashRule, name: str) -> bool:
        """Whether `rule` could match some command named `name` (its fixed part starts with the name, or nothing)."""
        words = rule.head.split()
        return (
            rule.kind == "all" or not words or words[0] == name or (rule.kind != "exact" and name.startswith(words[0]))
        )

    def judge_builtin(self, effective: Effective, judgement: _Judgement, cwds: Sequence[str]) -> _Judgement:
        source = effective.source
        judgement.flags.extend(declaration_reasons(effective))
        if source.kind == "arithmetic":
            judgement.flags.append(reason("arithmetic"))
        self.redirect_accesses(effective, cwds, judgement)
        if judgement.flags:
            judgement.suggestion_ok = False
            return judgement
        if source.kind in ("assignment", "test", "unset"):
            judgement.covered = True
            judgement.read_only = not self.writes(effective)
            judgement.by = f"`{self.display(effective)}` " + (
                "only tests" if source.kind == "test" else "only sets variables"
            )
            return judgement
        options = [w.text for w in source.argv[1:] if w.text.startswith("-")]
        if (
            source.assignments
            and set("".join(o[1:] for o in options)) <= set("xrglu")
            and not any(is_dangerous(a) for a in source.assignments)
        ):
            judgement.covered = True
            judgement.read_only = not self.writes(effective)
            judgement.by = f"`{self.display(effective)}` only sets variables"
            return judgement
        rule = self.allow_match(effective)
        if rule is not None:
            judgement.covered = True
            judgement.rule = rule
            judgement.by = f"{rule.display} allows `{render(effective.argv)}`"
        return judgement

    @staticmethod
    def writes(effective: Effective) -> bool:
        """Whether the command's own redirections write a file (not /dev/null, not a duplication)."""
        if effective.via and effective.via[-1].startswith("find"):
            return False
        return any(
            r.kind == "write"
            and not (
                r.target is not None
                and r.target.resolved
                and (r.target.text in SAFE_WRITE_TARGETS or r.target.text.startswith("/dev/fd/"))
            )
            for r in effective.source.redirects
        )

    def ro_eligible(self, effective: Effective, *, data: bool = False) -> bool:
        """Whether a command may count as read-only at all: no privileges, appended arguments, unsafe
        assignments, wrappers that do more, or unread words (`data`: its arguments are data, read or not)."""
        if effective.privileged or effective.appends_args or (effective.via and effective.via[-1].startswith("find")):
            return False
        if not all(is_safe(a) for a in effective.env):
            return False
        for layer in effective.layers:
            if layer.name not in RO_TRANSPARENT or not all(w.resolved for w in layer.argv):
                return False
        if effective.chdirs or any(d == "write" for _, d in effective.wrapper_paths):
            return False
        return data or (effective.source.resolved and all(w.resolved for w in effective.argv))

    def path_accesses(
        self,
        words: Sequence[tuple[Word, AccessKind]],
        cwds: Sequence[str],
        judgement: _Judgement,
        follows: bool,
    ) -> None:
        for word, kind in words:
            for cwd in cwds:
                path = _join(word, cwd)
                if path is None:
                    judgement.problems.append(
                        Reason("path_outside_working_dirs", f"`{word.raw}`: which file it names is not known")
                    )
                    break
                if not _safe_target(path, kind):
                    judgement.accesses.append(
                        Access(path, kind, follows_links=follows and kind == "search", wildcard=word.glob)
                    )

    def redirect_accesses(self, effective: Effective, cwds: Sequence[str], judgement: _Judgement) -> None:
        if effective.via and effective.via[-1].startswith("find"):
            return  # the redirections belong to find itself, judged there
        for redirect in effective.source.redirects:
            self.redirect_access(redirect, cwds, judgement)

    @staticmethod
    def redirect_access(redirect: Redirect, cwds: Sequence[str], judgement: _Judgement) -> None:
        if redirect.kind not in ("read", "write") or redirect.target is None:
            return
        kind: AccessKind = "write" if redirect.kind == "write" else "read"
        target = redirect.target
        for cwd in cwds:
            path = _join(target, cwd)
            if path is None:
                judgement.problems.append(Reason("redirect_unresolved", f"redirection to {target.raw}"))
                return
            if not _safe_target(path, kind):
                judgement.accesses.append(Access(path, kind, wildcard=target.glob))


# ---------------------------------------------------------------------------- suggestions

INTERPRETERS = frozenset({"python", "python3", "node", "ruby", "perl", "php", "deno", "bun", "lua", "Rscript"})
_SUBCOMMAND = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@+-]*$")
_TWO_LEVEL_FIRST = {
    "npm": {"run", "run-script", "exec"},
    "yarn": {"run", "workspace"},
    "pnpm": {"run", "exec"},
    "bun": {"run", "x"},
    "uv": {"run", "pip", "tool"},
    "poetry": {"run"},
    "docker": {"compose", "container", "image", "network", "volume"},
    "cargo": {"run"},
}
_TWO_LEVEL = frozenset({"gh", "aws", "gcloud", "az", "glab"})
# tools whose first word is a subcommand (`git commit`, `cargo test`); others are suggested by name only
SUBCOMMAND_TOOLS = frozenset(
    {
        "git",
        "npm",
        "yarn",
        "pnpm",
        "bun",
        "npx",
        "bunx",
        "cargo",
        "go",
        "docker",
        "podman",
        "kubectl",
        "helm",
        "terraform",
        "tofu",
        "gh",
        "glab",
        "aws",
        "gcloud",
        "az",
        "pip",
        "pip3",
        "uv",
        "uvx",
        "poetry",
        "pipenv",
        "conda",
        "mamba",
        "brew",
        "apt",
        "apt-get",
        "dnf",
        "yum",
        "make",
        "dotnet",
        "mvn",
        "gradle",
        "./gradlew",
        "./mvnw",
        "rails",
        "bundle",
        "rake",
        "mix",
        "composer",
        "deno",
        "systemctl",
        "ruff",
        "nx",
        "turbo",
        "just",
        "task",
        "hatch",
        "tox",
        "nox",
        "flutter",
        "dart",
        "swift",
        "zig",
        "rustup",
        "cmake",
        "vitest",
        "pre-commit",
        "alembic",
        "django-admin",
        "ansible-galaxy",
        "firebase",
        "vercel",
        "netlify",
        "wrangler",
    }
)


# subcommands that run any program they are given: a rule must name that program too
_RUNS_ANY: frozenset[tuple[str, ...]] = frozenset(
    tuple(words.split())
    for words in (
        "npx", "bunx", "uvx", "pnpx", "npm exec", "npm x", "pnpm exec", "pnpm dlx", "yarn dlx", "yarn exec",
        "bun x", "uv run", "uv tool run", "poetry run", "pipenv run", "pipx run", "hatch run", "pdm run",
        "rye run", "conda run", "mamba run", "docker run", "docker exec", "docker compose run",
        "docker compose exec", "podman run", "podman exec", "kubectl exec", "kubectl run", "nix run",
        "nix shell", "go run", "bundle exec", "mise exec", "mise x", "asdf exec", "rbenv exec", "pyenv exec",
    )
)  # fmt: skip


def _prefix_rule(words: Sequence[str]) -> str:
    return f"Bash({' '.join(render_word(w) for w in words)}:*)"


def suggest(effective: Effective) -> str | None:
    """The rule that would cover this command next time, never broader than what it asked for.

    A prefix rule names the program and its subcommand (`Bash(npm test:*)`), an interpreter
    and its script or module (`Bash(python3 -m pytest:*)`), a runner and the program it runs
    (`Bash(npx prettier:*)`); where no such prefix is safe, the exact command is offered
    (`Bash(make -j8)`); where none can be, nothing (shells, wrappers, destructive commands,
    inline code).
    """
    argv = effective.argv
    if not argv or not all(w.resolved for w in argv) or not all(is_safe(a) for a in effective.env):
        return None
    if any(layer.opaque for layer in effective.layers):
        return None
    name = argv[0].text
    if name in RUNNERS or base_name(name) in SHELLS or is_destructive(argv):
        return None
    words = [name]
    rest = [w.text for w in argv[1:]]
    if name in INTERPRETERS:
        if rest[:1] == ["-m"] and len(rest) > 1 and _SUBCOMMAND.match(rest[1]):
            words += rest[:2]
        elif (
            rest
            and not rest[0].startswith("-")
            and rest[0].endswith((".py", ".js", ".mjs", ".ts", ".rb", ".pl", ".php"))
        ):
            words.append(rest[0])
        else:
            return None
        return _prefix_rule(words)
    if name not in SUBCOMMAND_TOOLS:
        return _prefix_rule(words)
    depth = 2 if name in _TWO_LEVEL or (rest and rest[0] in _TWO_LEVEL_FIRST.get(name, ())) else 1
    for text in rest[:depth]:
        if text.startswith("-") or not _SUBCOMMAND.match(text) or "/" in text:
            break
        words.append(text)
    runner = next((size for size in (3, 2, 1) if tuple([name, *rest[: size - 1]]) in _RUNS_ANY), 0)
    if runner:
        program = rest[runner - 1] if len(rest) >= runner else ""
        if not program or program.startswith("-") or not _SUBCOMMAND.match(program):
            return _exact(effective)
        if base_name(program) in RUNNERS | SHELLS or base_name(program).rstrip("0123456789.") in INTERPRETERS:
            return None  # `uv run python ...`: any code at all
        words = [name, *rest[: runner - 1], program]
    if len(words) == 1:  # no subcommand: `make:*` would be any target
        return _exact(effective)
    return _prefix_rule(words)


def _exact(effective: Effective) -> str | None:
    """The exact command as a rule, when an exact rule can cover it (not when xargs or find add arguments)."""
    if effective.appends_args:
        return None
    return "Bash(" + render(effective.argv).replace("*", "\\*") + ")"
