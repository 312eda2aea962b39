"""Which Bash rules cover a command line, asked of the analyser (the only Bash matcher).

The permission pipeline names the rule that decided, and Bash's own check needs the verdict
under all the rules in force: both ask `analysis`, which is cached, so a decision analyses a
line once. A deny or ask rule covers a line when it hits any part of it, in any form the
analyser sees (inside `$()`, wrappers, `bash -c`...). Allow rules cover a line when the
analyser allows it (every part covered, by a rule or by only reading, nothing flagged, no
deny or ask rule hit); the ones that cover it are those naming at least one of its parts.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from handrail.permissions.bash.analyser import analyse
from handrail.permissions.bash.matching import compile_rule
from handrail.permissions.bash.model import BashVerdict, Behavior


@lru_cache(maxsize=512)
def analysis(
    command: str,
    *,
    allow: tuple[str, ...],
    deny: tuple[str, ...],
    ask: tuple[str, ...],
    cwd: Path,
) -> BashVerdict:
    """`analyse`, remembered for the same line, rules and folder."""
    return analyse(command, allow=allow, deny=deny, ask=ask, cwd=cwd)


def covering(verdict: BashVerdict, specifiers: tuple[str, ...], behavior: Behavior) -> tuple[str, ...]:
    """The `specifiers` (rules of `behavior` that were part of the analysis) covering the analysed line."""
    if behavior == "allow" and verdict.behavior != "allow":
        return ()
    matched = {text for kind, text in verdict.matched_rules if kind == behavior}
    return tuple(spec for spec in specifiers if compile_rule(spec).text in matched)
