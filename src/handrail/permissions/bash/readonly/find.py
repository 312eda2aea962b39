"""find: read-only unless its expression runs, deletes or writes (`-exec`, `-delete`, `-fprint`)."""

from __future__ import annotations

from collections.abc import Sequence

from handrail.permissions.bash.model import Direction, Word
from handrail.permissions.bash.options import option_set
from handrail.permissions.bash.readonly.verdict import HERE, UNRESOLVED, ReadOnly

_FIND_FORBIDDEN = option_set("-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls")
_FIND_VALUED = option_set(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type "
    "-xtype -size -perm -user -group -uid -gid -mtime -atime -ctime -mmin -amin -cmin "
    "-maxdepth -mindepth -links -inum -used -fstype -printf -context -regextype"
)
_FIND_PATH_VALUED = option_set("-newer -anewer -cnewer -samefile -files0-from")


def find_read_only(argv: Sequence[Word]) -> ReadOnly:
    """What a find command line reads, unless its expression does more."""
    i = 1
    n = len(argv)
    while (i < n and argv[i].text in ("-H", "-L", "-P")) or (i < n and argv[i].text.startswith("-O")):
        i += 1
    if i < n and argv[i].text == "-D":
        i += 2
    follows = any(w.text in ("-L", "-follow") for w in argv[1:])
    paths: list[tuple[Word, Direction]] = []
    while i < n and not argv[i].text.startswith("-") and argv[i].text not in ("(", ")", "!", ","):
        if not argv[i].resolved:
            return UNRESOLVED
        if argv[i].glob:
            return ReadOnly(False, (), "a glob could expand into a find expression")
        paths.append((argv[i], "search"))
        i += 1
    if not paths:
        paths.append((HERE, "search"))
    while i < n:
        word = argv[i]
        if not word.resolved:
            return UNRESOLVED
        text = word.text
        if text in _FIND_FORBIDDEN:
            return ReadOnly(False, (), f"find {text} runs or writes something")
        if text in _FIND_PATH_VALUED or (text.startswith("-newer") and len(text) == 8 and text[7] != "t"):
            if i + 1 < n:
                paths.append((argv[i + 1], "read"))
            i += 2
            continue
        if text in _FIND_VALUED or text.startswith("-newer"):
            i += 2
            continue
        if word.glob:
            return ReadOnly(False, (), "a glob could expand into a find expression")
        i += 1
    return ReadOnly(True, tuple(paths), follows_links=follows)
