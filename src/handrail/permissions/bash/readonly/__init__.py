"""Commands that only read, with the flags that would make them do more, and the files they touch.

`read_only(argv)` says whether a simple command (already unwrapped, command word normalized) only reads,
and which of its words name files it reads; the analyser allows it without a rule when those files are
inside the working directories. The simple readers are described by specs (`specs`); find, sed, awk, jq,
git, date and hostname each have a module that reads their own syntax (sed scripts, awk and jq programs,
git subcommands). Nothing here reads the file system.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from handrail.permissions.bash.model import Word
from handrail.permissions.bash.readonly.awk import awk_read_only
from handrail.permissions.bash.readonly.find import find_read_only
from handrail.permissions.bash.readonly.git import git_read_only
from handrail.permissions.bash.readonly.jq import jq_read_only
from handrail.permissions.bash.readonly.sed import sed_read_only
from handrail.permissions.bash.readonly.specs import SPECS, VERSION_ONLY, by_spec
from handrail.permissions.bash.readonly.system import command_lookup_read_only, date_read_only, hostname_read_only
from handrail.permissions.bash.readonly.verdict import NOT, ReadOnly

CUSTOM: dict[str, Callable[[Sequence[Word]], ReadOnly]] = {
    "find": find_read_only,
    "sed": sed_read_only,
    "awk": awk_read_only,
    "gawk": awk_read_only,
    "mawk": awk_read_only,
    "nawk": awk_read_only,
    "jq": jq_read_only,
    "git": git_read_only,
    "date": date_read_only,
    "hostname": hostname_read_only,
    "command": command_lookup_read_only,
}
ALIASES = {"egrep": "grep", "fgrep": "grep", "zgrep": "grep", "gsed": "sed"}
READ_ONLY_NAMES: frozenset[str] = frozenset(SPECS) | frozenset(CUSTOM) | frozenset(ALIASES) | frozenset(VERSION_ONLY)


def read_only(argv: Sequence[Word]) -> ReadOnly:
    """Whether `argv` (command word already normalized, wrappers removed) only reads."""
    if not argv:
        return ReadOnly(True)
    head = argv[0]
    if not head.resolved:
        return ReadOnly(False, (), "the command name is not known before it runs")
    name = ALIASES.get(head.text, head.text)
    if name in VERSION_ONLY:
        return ReadOnly(len(argv) == 2 and argv[1].text in VERSION_ONLY[name])
    custom = CUSTOM.get(name)
    if custom is not None:
        return custom(argv)
    spec = SPECS.get(name)
    if spec is None:
        return NOT
    return by_spec(argv, spec)


__all__ = ["ALIASES", "CUSTOM", "READ_ONLY_NAMES", "ReadOnly", "read_only"]
