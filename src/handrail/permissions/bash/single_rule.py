"""Which Bash rules cover a command line, asked of the analyser (the only Bash matcher).

The permission pipeline names the rule that decided. One analysis judges all the rules of
one kind at once (`BashVerdict.matched_rules`). A deny or ask rule covers a line when it
hits any part of it, in any form the analyser sees (inside `$()`, wrappers, `bash -c`...).
Allow rules cover a line when the analyser allows the line with them (every part covered,
by a rule or by only reading, and nothing flagged); the ones that cover it are those that
name at least one of its parts.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from handrail.permissions.bash.analyser import analyse
from handrail.permissions.bash.matching import compile_rule

RuleBehavior = Literal["allow", "deny", "ask"]


@lru_cache(maxsize=1024)
def covering_specifiers(
    specifiers: tuple[str, ...], command: str, behavior: RuleBehavior, cwd: Path
) -> tuple[str, ...]:
    """The `specifiers` (Bash rules of `behavior`) that cover `command` run in `cwd`, in their order."""
    if not specifiers:
        return ()
    if behavior == "allow":
        verdict = analyse(command, allow=specifiers, cwd=cwd, working_dirs=(cwd,))
        if verdict.behavior != "allow":
            return ()
    elif behavior == "deny":
        verdict = analyse(command, deny=specifiers, cwd=cwd)
    else:
        verdict = analyse(command, ask=specifiers, cwd=cwd)
    matched = set(verdict.matched_rules)
    return tuple(spec for spec in specifiers if compile_rule(spec).text in matched)
