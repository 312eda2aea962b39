"""From a command line to every command that would actually run.

`expand(command)` parses the line, unwraps each simple command (`wrappers.unwrap`), parses again
the scripts that wrappers run (`bash -c`, `eval`, `trap`, `watch`, here-docs fed to a shell...),
and adds the commands `find -exec` runs. Each result is an `Effective`: the command that runs,
with the wrappers around it, the assignments it runs with, and where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from handrail.permissions.bash.model import Assignment, Direction, ParsedScript, Reason, SimpleCommand, Word
from handrail.permissions.bash.parse import parse
from handrail.permissions.bash.readonly.git import git_scripts
from handrail.permissions.bash.wrappers import (
    SHELLS,
    Layer,
    Script,
    base_name,
    command_name,
    find_exec_commands,
    trap_script,
    unwrap,
)

MAX_DEPTH = 6


@dataclass(frozen=True, slots=True)
class Effective:
    """One command that would run.

    `argv[0]` is the normalized command name (`/usr/bin/git` -> `git`); `written` is the name as
    written. `argv` is empty for a layer that only runs a script (`bash -c '...'`), whose
    commands are separate `Effective`s with `via` saying how they are reached.
    """

    argv: tuple[Word, ...]
    source: SimpleCommand
    written: str = ""
    layers: tuple[Layer, ...] = ()
    env: tuple[Assignment, ...] = ()
    via: tuple[str, ...] = ()
    appends_args: bool = False
    privileged: bool = False
    reads_stdin_script: bool = False
    problems: tuple[str, ...] = ()
    wrapper_paths: tuple[tuple[Word, Direction], ...] = ()
    chdirs: tuple[Word, ...] = ()
    runs_script: bool = False
    depth: int = 0

    @property
    def name(self) -> str:
        return self.argv[0].text if self.argv else ""

    @property
    def contexts(self) -> frozenset[str]:
        return self.source.contexts


@dataclass
class Expansion:
    effectives: list[Effective] = field(default_factory=list)
    scripts: list[ParsedScript] = field(default_factory=list)
    problems: list[Reason] = field(default_factory=list)

    @property
    def functions(self) -> frozenset[str]:
        """Names of the shell functions the line defines (their bodies are effectives of their own)."""
        return frozenset(name for script in self.scripts for name in script.functions)


def _normalized(argv: tuple[Word, ...]) -> tuple[tuple[Word, ...], str]:
    if not argv:
        return argv, ""
    head = argv[0]
    if not head.resolved:
        return argv, head.raw
    name = command_name(head.text)
    if name == head.text:
        return argv, head.text
    return (Word(name, head.raw, "u" * len(name), True), *argv[1:]), head.text


def expand(command: str) -> Expansion:
    result = Expansion()
    _expand_script(parse(command), result, (), 0)
    return result


def _expand_script(script: ParsedScript, result: Expansion, via: tuple[str, ...], depth: int) -> None:
    result.scripts.append(script)
    for command in script.commands:
        _expand_command(command, result, via, depth)


def _nested(script: Script, result: Expansion, via: tuple[str, ...], depth: int) -> None:
    if depth + 1 > MAX_DEPTH:
        result.problems.append(Reason("nesting_too_deep", f"shell code nested more than {MAX_DEPTH} levels deep"))
        return
    if not script.resolved:
        result.problems.append(
            Reason("unresolved_script", f"{script.origin} runs code built from expansions: {script.text!r}")
        )
    _expand_script(parse(script.text), result, (*via, script.origin), depth + 1)


def _expand_command(command: SimpleCommand, result: Expansion, via: tuple[str, ...], depth: int) -> None:
    if command.kind != "command":
        result.effectives.append(Effective(command.argv, command, "", env=command.assignments, via=via, depth=depth))
        return
    _expand_argv(command.argv, command, result, via, depth, inherited_env=command.assignments, appends=False)


def _expand_argv(
    argv: tuple[Word, ...],
    command: SimpleCommand,
    result: Expansion,
    via: tuple[str, ...],
    depth: int,
    *,
    inherited_env: tuple[Assignment, ...],
    appends: bool,
    placeholder: str | None = None,
) -> None:
    unwrapped = unwrap(argv, placeholder=placeholder)
    inner, written = _normalized(unwrapped.argv)
    runs_script = bool(unwrapped.scripts)
    effective = Effective(
        inner,
        command,
        written,
        unwrapped.layers,
        (*inherited_env, *unwrapped.env),
        via,
        appends or unwrapped.appends_args,
        unwrapped.privileged,
        unwrapped.reads_stdin_script,
        unwrapped.problems,
        unwrapped.paths,
        unwrapped.chdir,
        runs_script,
        depth,
    )
    result.effectives.append(effective)
    for script in unwrapped.scripts:
        _nested(script, result, via, depth)
    if not inner or not inner[0].resolved:
        return
    name = inner[0].text
    if name == "find":
        for origin, exec_argv in find_exec_commands(inner)[0]:
            _expand_argv(
                exec_argv,
                command,
                result,
                (*via, origin),
                depth,
                inherited_env=effective.env,
                appends=True,
                placeholder="{}",
            )
    elif name == "git":
        for origin, code in git_scripts(inner):
            _nested(Script(origin, code), result, via, depth)
    elif name == "trap":
        action = trap_script(inner)
        if action is not None:
            _nested(Script("trap", action[0], action[1]), result, via, depth)
    elif base_name(name) in SHELLS and unwrapped.reads_stdin_script:
        # `bash <<'EOF' ... EOF`, `sh <<< 'cmd'`: the shell runs what it reads
        for redirect in command.redirects:
            if redirect.kind == "heredoc" and redirect.heredoc_body is not None:
                _nested(Script(f"{name} <<", redirect.heredoc_body, redirect.heredoc_quoted), result, via, depth)
            elif redirect.kind == "herestring" and redirect.target is not None:
                _nested(Script(f"{name} <<<", redirect.target.text, redirect.target.resolved), result, via, depth)
