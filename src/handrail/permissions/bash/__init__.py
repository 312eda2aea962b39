"""Bash command analysis for permissions: what a command line would run, and whether rules allow it.

Use `analyse(command, allow=..., deny=..., ask=..., cwd=...)`; it returns a `BashVerdict`
(allow / deny / ask, with reasons, the commands found, suggested rules, whether the line is
read-only, every file it touches and every repository git will use). See `analyser` for the semantics
and `checks.CHECK_MESSAGES` for every check id. Pure: no I/O, no subprocesses; tree-sitter
parsers are cached per thread.
"""

from handrail.permissions.bash.analyser import MAX_SUBCOMMANDS, analyse, suggest
from handrail.permissions.bash.checks import CHECK_MESSAGES
from handrail.permissions.bash.covering import analysis, covering
from handrail.permissions.bash.matching import compile_rule
from handrail.permissions.bash.model import BashVerdict, Reason
from handrail.permissions.bash.parse import parse

__all__ = [
    "CHECK_MESSAGES",
    "MAX_SUBCOMMANDS",
    "BashVerdict",
    "Reason",
    "analyse",
    "analysis",
    "compile_rule",
    "covering",
    "parse",
    "suggest",
]
