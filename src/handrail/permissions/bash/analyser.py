"""Decide allow / deny / ask for one Bash command line.

`analyse(command, allow=..., deny=..., ask=..., cwd=..., working_dirs=...)` takes Bash rule
specifiers as plain strings (``npm test:*``, ``git status``, ``git * --dry-run``) and returns a
`BashVerdict`. The semantics:

1. Every command that would run is found (`effective.expand`): parts of lists and pipelines,
   substitutions, subshells, loop and function bodies, what wrappers (`env`, `timeout`, `xargs`,
   `sudo`...) run, what `bash -c`/`eval`/`trap` run, what `find -exec` runs.
2. A deny rule matching any of them, in any of its forms (as written, after quote removal, with
   the path of `/bin/rm` dropped, with or without its wrappers), denies the whole line.
3. More than 50 commands: ask. An ask rule matching any command: ask. Any flagged check
   (`checks`): ask, whatever the allow rules say.
4. Otherwise each command must be covered: read-only (`readonly`) with every file it touches
   inside the working directories, or matched by an allow rule (prefix rules for bare shells and
   wrappers are refused), or a `cd` into a working directory. Files outside the working
   directories make it ask (an exact rule still allows its own arguments). Commands after a
   `cd` are judged in every directory they may run in.
5. Any exception: ask, with reason `analyser_error`.

The analyser reads no files: paths are normalized lexically. The caller must still check the
reported `paths` and `redirect_targets` against file rules after resolving symlinks.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from handrail.permissions.bash.checks import command_reasons, declaration_reasons, reason, script_reasons
from handrail.permissions.bash.effective import Effective, expand
from handrail.permissions.bash.env_vars import is_dangerous, is_safe
from handrail.permissions.bash.matching import BashRule, compile_rule, head_reaches_inside, matches
from handrail.permissions.bash.model import BashVerdict, Behavior, Direction, Reason, Redirect, Word
from handrail.permissions.bash.readonly import (
    git_call,
    is_destructive,
    must_not_interrupt,
    read_only,
    touched_paths,
)
from handrail.permissions.bash.wrappers import RUNNERS, SHELLS, base_name

MAX_SUBCOMMANDS = 50
MAX_SUGGESTIONS = 5
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
PROTECTED_DIRS = (".git", ".handrail")
PROTECTED_FILES = frozenset(
    {
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
        ".inputrc",
    }
)
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
    working_dirs: Sequence[Path] = (),
) -> BashVerdict:
    """The verdict for one command line; never raises (an internal error means ask)."""
    try:
        return _Analysis(command, allow=allow, deny=deny, ask=ask, cwd=cwd, working_dirs=working_dirs).run()
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


@dataclass
class _Judgement:
    covered: bool = False
    by: str = ""
    rule: BashRule | None = None  # the allow rule naming this part (also when it is covered as read-only)
    flags: list[Reason] = field(default_factory=list)
    problems: list[Reason] = field(default_factory=list)  # not flags, but still ask (paths outside, cd outside)
    read_only: bool = False
    suggestion_ok: bool = True


def _normal(path: str) -> str:
    return os.path.normpath(path)


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _resolve(word: Word, cwd: str) -> str | None:
    """An absolute, lexically normalized path for a word naming a file (None if it cannot be known)."""
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
    return _normal(text)


def _protected(path: str) -> bool:
    parts = path.lower().split("/")
    return any(p in PROTECTED_DIRS for p in parts[:-1]) or parts[-1] in PROTECTED_DIRS or parts[-1] in PROTECTED_FILES


class _Analysis:
    def __init__(
        self,
        command: str,
        *,
        allow: Sequence[str],
        deny: Sequence[str],
        ask: Sequence[str],
        cwd: Path,
        working_dirs: Sequence[Path],
    ) -> None:
        self.command = command
        self.whole = command.strip()
        self.allow = [compile_rule(r) for r in allow]
        self.deny = [compile_rule(r) for r in deny]
        self.ask = [compile_rule(r) for r in ask]
        self.cwd = _normal(str(cwd))
        roots = [_normal(str(p)) for p in working_dirs] or [self.cwd]
        self.roots = roots
        self.functions: frozenset[str] = frozenset()
        self.redirect_targets: dict[tuple[str, Direction], None] = {}
        self.paths: dict[tuple[str, Direction], None] = {}

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
        substitutions = [e for e in effectives if "command_substitution" in e.contexts and e.argv]
        if substitutions:
            script_flags.append(
                reason("command_substitution", ", ".join(dict.fromkeys(render(e.argv) for e in substitutions)))
            )

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
        flags = list(dict.fromkeys([*script_flags, *(f for j in judgements for f in j.flags)]))
        counted = [e for e in effectives if e.argv and not e.runs_script]
        base = BashVerdict(
            "ask",
            subcommands=subcommands,
            redirect_targets=tuple(self.redirect_targets),
            paths=tuple(self.paths),
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
        read_only = (
            not flags
            and all(j.read_only for j in judgements)
            and not any(d == "write" for _, d in self.redirect_targets)
        )
        if not reasons:
            allowed_by = tuple(dict.fromkeys(Reason("allowed", j.by) for j in judgements if j.by))
            return replace(
                base, behavior="allow", reasons=allowed_by or (Reason("allowed", "nothing runs"),), read_only=read_only
            )
        suggestions: list[str] = []
        if not flags:  # no "always allow" offer on a line with anything flagged
            for effective, judgement in uncovered:
                suggestion = suggest(effective) if judgement.suggestion_ok else None
                if suggestion is not None and suggestion not in suggestions:
                    suggestions.append(suggestion)
        return replace(
            base, reasons=tuple(reasons), suggestions=tuple(suggestions[:MAX_SUGGESTIONS]), read_only=read_only
        )

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
                judgements[index] = again
        return judgements

    def cd_targets(self, effective: Effective, cwds: list[str], seen: list[str], judgement: _Judgement) -> list[str]:
        name = effective.name
        args = [w for w in effective.argv[1:] if not (w.text.startswith("-") and w.text != "-" and w.resolved)]
        if name == "popd":
            return list(seen)
        if len(args) > 1 or (name == "pushd" and not args):
            judgement.problems.append(Reason("cd_outside", f"`{render(effective.argv)}`: where it lands is unclear"))
            judgement.covered = False
            return []
        word = args[0] if args else Word("~", "~", "u")
        if word.text == "-" or not word.resolved:
            judgement.problems.append(Reason("cd_outside", f"`{render(effective.argv)}`: where it lands is unknown"))
            judgement.covered = False
            return []
        targets = [_resolve(word, c) for c in cwds]
        if any(t is None for t in targets):
            judgement.problems.append(Reason("cd_outside", f"`{render(effective.argv)}`: where it lands is unknown"))
            judgement.covered = False
            return []
        resolved = [t for t in targets if t is not None]
        outside = [t for t in resolved if not _inside(t, self.roots)]
        if outside:
            judgement.problems.append(
                Reason("cd_outside", f"`{render(effective.argv)}` leaves the working directories ({outside[0]})")
            )
            judgement.covered = False
        return resolved

    def judge(self, effective: Effective, cwds: Sequence[str]) -> _Judgement:
        judgement = _Judgement()
        source = effective.source
        if source.kind in ("declaration", "unset", "assignment", "test", "arithmetic"):
            return self.judge_builtin(effective, judgement)
        judgement.flags.extend(command_reasons(effective))
        if judgement.flags:
            judgement.suggestion_ok = False
        outside = self.check_redirects(effective, cwds, judgement)
        if effective.runs_script and not effective.argv:
            judgement.covered = True
            judgement.read_only = not judgement.flags and not outside
            return judgement
        argv = effective.argv
        if not argv:  # only redirections: `2>&1` is harmless, `> file` truncates a file (ask)
            judgement.covered = judgement.read_only = not self.writes(effective)
            judgement.suggestion_ok = False
            return judgement
        if argv[0].resolved and argv[0].text in self.functions and not effective.layers:
            judgement.covered = True  # a function defined on this line: its body is judged on its own
            judgement.read_only = not self.writes(effective)
            judgement.by = f"`{argv[0].text}` is a function defined on this line"
            return judgement
        if argv[0].resolved and argv[0].text in CD_COMMANDS:
            judgement.covered = True
            judgement.read_only = True
            judgement.suggestion_ok = False
            return judgement
        if is_destructive(argv) or effective.privileged:
            judgement.suggestion_ok = False
        ro = read_only(argv) if self.ro_eligible(effective) else None
        path_words = list(touched_paths(argv)) if argv[0].resolved else []
        path_words += list(effective.wrapper_paths) + [(w, "read") for w in effective.chdirs]
        if effective.via and effective.via[-1].startswith("find"):
            path_words = [(w, d) for w, d in path_words if "{}" not in w.text]  # the files find passes
        paths_out = self.check_paths(path_words, cwds, judgement)
        judgement.read_only = bool(ro and ro.read_only) and not judgement.flags and not self.writes(effective)
        rule = self.allow_match(effective)
        judgement.rule = rule
        if judgement.read_only and not paths_out and not outside:
            judgement.covered = True
            judgement.by = f"`{render(argv)}` only reads inside the working directories"
            return judgement
        if rule is not None:
            if paths_out and rule.kind != "exact":
                judgement.problems.append(
                    Reason(
                        "path_outside_working_dirs",
                        f"`{render(argv)}` touches {paths_out[0]}, outside the working directories",
                    )
                )
                judgement.suggestion_ok = False
                return judgement
            judgement.covered = True
            judgement.by = f"{rule.display} allows `{render(argv)}`"
            return judgement
        if paths_out:
            judgement.problems.append(
                Reason(
                    "path_outside_working_dirs",
                    f"`{render(argv)}` touches {paths_out[0]}, outside the working directories",
                )
            )
            if judgement.read_only:
                judgement.suggestion_ok = False
        return judgement

    def judge_builtin(self, effective: Effective, judgement: _Judgement) -> _Judgement:
        source = effective.source
        judgement.flags.extend(declaration_reasons(effective))
        if source.kind == "arithmetic":
            judgement.flags.append(reason("arithmetic"))
        self.check_redirects(effective, [self.cwd], judgement)
        if judgement.flags:
            judgement.suggestion_ok = False
            return judgement
        if source.kind in ("assignment", "test", "unset"):
            judgement.covered = True
            judgement.read_only = True
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
            judgement.read_only = True
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

    def ro_eligible(self, effective: Effective) -> bool:
        if effective.privileged or effective.appends_args or (effective.via and effective.via[-1].startswith("find")):
            return False
        if not all(is_safe(a) for a in effective.env):
            return False
        for layer in effective.layers:
            if layer.name not in RO_TRANSPARENT or not all(w.resolved for w in layer.argv):
                return False
        if effective.chdirs or any(d == "write" for _, d in effective.wrapper_paths):
            return False
        return effective.source.resolved and all(w.resolved for w in effective.argv)

    def check_paths(
        self, words: Sequence[tuple[Word, Direction]], cwds: Sequence[str], judgement: _Judgement
    ) -> list[str]:
        outside: list[str] = []
        for word, direction in words:
            for cwd in cwds:
                path = _resolve(word, cwd)
                if path is None:
                    outside.append(word.raw)
                    continue
                if path in SAFE_READ_TARGETS or path in SAFE_WRITE_TARGETS or path.startswith("/dev/fd/"):
                    continue
                self.paths[(path, direction)] = None
                if not _inside(path, self.roots):
                    outside.append(path)
                elif direction == "write" and _protected(path):
                    judgement.problems.append(Reason("protected_path_write", f"writes {path}"))
        return outside

    def check_redirects(self, effective: Effective, cwds: Sequence[str], judgement: _Judgement) -> bool:
        """Record redirect targets; True when one is outside the working directories (asks)."""
        if effective.via and effective.via[-1].startswith("find"):
            return False  # the redirections belong to find itself, judged there
        outside = False
        for redirect in effective.source.redirects:
            outside = self.check_redirect(redirect, cwds, judgement) or outside
        return outside

    def check_redirect(self, redirect: Redirect, cwds: Sequence[str], judgement: _Judgement) -> bool:
        if redirect.kind not in ("read", "write") or redirect.target is None:
            return False
        direction: Direction = "write" if redirect.kind == "write" else "read"
        target = redirect.target
        safe = SAFE_WRITE_TARGETS if direction == "write" else SAFE_READ_TARGETS
        if target.resolved and (target.text in safe or target.text.startswith("/dev/fd/")):
            return False
        outside = False
        for cwd in cwds:
            path = _resolve(target, cwd)
            if path is None:
                judgement.problems.append(Reason("redirect_unresolved", f"redirection to {target.raw}"))
                return True
            self.redirect_targets[(path, direction)] = None
            if not _inside(path, self.roots):
                judgement.problems.append(
                    Reason("redirect_outside_working_dirs", f"{'writes' if direction == 'write' else 'reads'} {path}")
                )
                outside = True
            elif direction == "write" and _protected(path):
                judgement.problems.append(Reason("protected_path_write", f"writes {path}"))
                outside = True
        return outside


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


def suggest(effective: Effective) -> str | None:
    """The prefix rule that would cover this command next time (`Bash(npm test:*)`), if one is safe to offer."""
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
        return f"Bash({' '.join(render_word(w) for w in words)}:*)"
    if name not in SUBCOMMAND_TOOLS:
        return f"Bash({render_word(name)}:*)"
    depth = 2 if name in _TWO_LEVEL or (rest and rest[0] in _TWO_LEVEL_FIRST.get(name, ())) else 1
    for text in rest[:depth]:
        if text.startswith("-") or not _SUBCOMMAND.match(text) or "/" in text:
            break
        words.append(text)
    return f"Bash({' '.join(render_word(w) for w in words)}:*)"
