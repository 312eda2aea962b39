"""Commands that extract an archive: the files they write are named inside the archive, not on the command line.

`tar -xf vendor.tar` under a `Bash(tar:*)` rule writes whatever the archive holds, and a planted
archive can hold `.vscode/tasks.json` or `.git/hooks/pre-commit`. A rule allows the command, not
what it writes: `unpack_of` says, from the words alone, which archive a command extracts, where
to, and how member names change on the way (`--strip-components`, `unzip -j`); the Bash check
then lists the archive on disk (`permissions.archive_members`) and decides each file it would
write as Edit would.

What it cannot follow (an archive read from the input, names rewritten by `--transform`, a format
or tool it does not read) is an `Unpack` without a format: the command asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from handrail.permissions.bash.model import ArchiveFormat, Word
from handrail.permissions.bash.options import option_set, scan
from handrail.permissions.bash.tar_options import TAR_NAMES, TAR_PLAIN, TAR_VALUED, is_long, tar_scan


@dataclass(frozen=True, slots=True)
class UnpackWords:
    """What one command extracts, as written: the archive, the folder it writes into, how names change.

    `format` is None when handrail cannot look into what it writes (`why` says so).
    """

    archive: Word | None
    destination: Word | None  # None: the folder the command runs in
    format: ArchiveFormat | None
    strip: int = 0  # leading path components dropped from each name
    junk_paths: bool = False  # only the last component of each name is kept (`unzip -j`)
    why: str = ""


# tar options under which it writes nothing to disk, or lists instead of extracting
_TAR_NO_WRITE = option_set("-O --to-stdout -t --list -d --diff --compare")
# tar options that rename what it writes, or run a program that could (not followed: the command asks)
_TAR_RENAMING = option_set("--transform --xform --one-top-level -P --absolute-names -I -F -g --to-command")

_UNZIP_VALUED = option_set("-d -x -P -I -O")
_UNZIP_NO_WRITE = option_set("-l -v -t -z -Z -p -c -T")
# extractors whose archives handrail does not read: the files they write are not known
_OTHER_EXTRACTORS: dict[str, tuple[str, ...]] = {
    "7z": ("x", "e"),
    "7za": ("x", "e"),
    "7zz": ("x", "e"),
    "unrar": ("x", "e"),
    "ar": ("x",),
    "jar": ("x", "-x", "xf", "xvf", "-xf", "-xvf"),
    "cpio": ("-i", "--extract", "-id", "-idv", "-ivd", "-idmv"),
    "pax": ("-r",),
    "unar": (),
    "unsquashfs": (),
}


def unpack_of(argv: Sequence[Word]) -> UnpackWords | None:
    """What the command `argv` extracts, or None when it extracts no archive."""
    if not argv or not argv[0].resolved:
        return None
    name = argv[0].text.rsplit("/", 1)[-1]
    if name in TAR_NAMES:
        return _tar(argv)
    if name == "unzip":
        return _unzip(argv)
    if name in _OTHER_EXTRACTORS:
        modes = _OTHER_EXTRACTORS[name]
        words = [w.text for w in argv[1:]]
        if not modes or any(w in modes for w in words) or (name == "cpio" and any(w.startswith("-i") for w in words)):
            return UnpackWords(None, None, None, why=f"`{name}` writes the files its archive names")
    return None


def _tar(argv: Sequence[Word]) -> UnpackWords | None:
    result = tar_scan(argv)
    names = [option for option, _ in result.options]
    if not any(is_long(n, "--extract") or is_long(n, "--get") or n == "-x" for n in names):
        return None
    if any(n in _TAR_NO_WRITE or is_long(n, "--to-stdout") or is_long(n, "--list") for n in names):
        return None
    if result.unresolved:
        return UnpackWords(None, None, None, why="`tar` is given words that are only known when it runs")
    archive: Word | None = None
    destination: Word | None = None
    strip = 0
    for option, value in result.options:
        if option in ("-f", "--file"):
            archive = value
        elif option in ("-C", "--directory"):
            if destination is not None:
                return UnpackWords(None, None, None, why="`tar` extracts into more than one folder")
            destination = value
        elif option == "--strip-components":
            if value is None or not value.text.isdigit():
                return UnpackWords(None, None, None, why="`tar --strip-components` without a number")
            strip = int(value.text)
        elif (option not in TAR_PLAIN and option not in TAR_VALUED) or option in _TAR_RENAMING:
            return UnpackWords(None, None, None, why=f"`tar {option}` changes what it writes in ways not followed")
    if archive is None or archive.text == "-":
        return UnpackWords(None, None, None, why="`tar` extracts an archive from its input")
    return UnpackWords(archive, destination, "tar", strip=strip)


def _unzip(argv: Sequence[Word]) -> UnpackWords | None:
    result = scan(argv, _UNZIP_VALUED)
    names = [option for option, _ in result.options]
    if any(n in _UNZIP_NO_WRITE for n in names):
        return None
    if result.unresolved:
        return UnpackWords(None, None, None, why="`unzip` is given words that are only known when it runs")
    destination = next((value for option, value in result.options if option == "-d"), None)
    archive = result.operands[0] if result.operands else None
    if archive is None:
        return None  # unzip alone prints its help
    return UnpackWords(archive, destination, "zip", junk_paths="-j" in names)
