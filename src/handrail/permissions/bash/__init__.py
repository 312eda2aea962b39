"""Bash command analysis for permissions: what a command line would run, and whether rules allow it.

Use `analyse(command, allow=..., deny=..., ask=..., cwd=..., working_dirs=...)`; it returns a
`BashVerdict` (allow / deny / ask, with reasons, the commands found, suggested rules, whether
the line is read-only, the files it redirects to and touches). See `analyser` for the semantics.
Pure: no I/O, no subprocesses; tree-sitter parsers are cached per thread.
"""

from handrail.permissions.bash.analyser import analyse, suggest
from handrail.permissions.bash.model import BashVerdict, Reason
from handrail.permissions.bash.parse import parse

__all__ = ["BashVerdict", "Reason", "analyse", "parse", "suggest"]
