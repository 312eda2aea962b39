"""date, hostname and `command -v`: read-only unless they set the clock or the host name, or run something."""

from __future__ import annotations

from collections.abc import Sequence

from handrail.permissions.bash.model import Word
from handrail.permissions.bash.options import first_forbidden, option_set, scan
from handrail.permissions.bash.readonly.verdict import NOT, UNRESOLVED, ReadOnly


def date_read_only(argv: Sequence[Word]) -> ReadOnly:
    """date prints the time (`+FORMAT` only), reading the files `-f` and `-r` name; `-s` or a bare date sets it."""
    result = scan(argv, option_set("-d --date -f --file -r --reference --rfc-3339"))
    if result.unresolved:
        return UNRESOLVED
    sets_clock = first_forbidden(result.options, option_set("-s --set"))
    if sets_clock or any(not w.text.startswith("+") for w in result.operands):
        return ReadOnly(False, (), "date can set the clock")
    return ReadOnly(
        True, tuple((v, "read") for n, v in result.options if n in ("-f", "--file", "-r", "--reference") and v)
    )


def hostname_read_only(argv: Sequence[Word]) -> ReadOnly:
    """hostname with options only prints; an operand or `-F`/`-b` sets the name."""
    if any(not w.text.startswith("-") or w.text in ("-F", "--file", "-b", "--boot") for w in argv[1:]):
        return ReadOnly(False, (), "hostname can set the host name")
    return ReadOnly(True)


def command_lookup_read_only(argv: Sequence[Word]) -> ReadOnly:
    """`command -v NAME` / `-V` only looks a name up; `command NAME` runs it (the analyser unwraps that)."""
    if len(argv) > 1 and argv[1].text in ("-v", "-V"):
        return ReadOnly(True)
    return NOT
