"""Whether one Bash rule covers a command line, asked of the analyser (the only Bash matcher).

The permission pipeline matches rules one at a time (to name the rule that decided).
A deny or ask rule covers a line when it hits any part of it, in any form the analyser
sees (inside `$()`, wrappers, `bash -c`...). An allow rule covers a line when the
analyser allows the line with that rule (every part covered, by the rule or by only
reading, and nothing flagged) and the rule names at least one of its commands.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from handrail.permissions.bash.analyser import analyse
from handrail.permissions.bash.matching import compile_rule, matches

RuleBehavior = Literal["allow", "deny", "ask"]


@lru_cache(maxsize=1024)
def rule_covers_command(specifier: str, command: str, behavior: RuleBehavior, cwd: Path) -> bool:
    """Whether the rule `Bash(specifier)` applies to `command` run in `cwd`, for a rule of `behavior`."""
    if behavior == "deny":
        return analyse(command, deny=[specifier], cwd=cwd).behavior == "deny"
    if behavior == "ask":
        return "ask_rule" in analyse(command, ask=[specifier], cwd=cwd).reason_ids
    verdict = analyse(command, allow=[specifier], cwd=cwd, working_dirs=(cwd,))
    if verdict.behavior != "allow":
        return False
    rule = compile_rule(specifier)
    used = f"{rule.display} allows "  # how the analyser names a part the rule covered
    # a read-only part is covered before rules are tried, so a rule naming it is found by its text
    return any(r.id == "allowed" and r.message.startswith(used) for r in verdict.reasons) or any(
        matches(rule, part) for part in verdict.subcommands
    )
