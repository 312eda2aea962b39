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


# tar's options that take a value (short, and long in full); a long option given as a prefix must use `=`
_TAR_VALUED = option_set(
    "-f -C -T -X -b -H -K -L -N -V -g -F -I --file --directory --files-from --exclude-from --blocking-factor "
    "--format --starting-file --tape-length --newer --label --listed-incremental --info-script "
    "--use-compress-program --exclude --owner --group --mode --mtime --record-size --strip-components "
    "--transform --xform --one-top-level --warning --checkpoint --checkpoint-action --to-command --suffix "
    "--backup --occurrence --newer-mtime --after-date --atime-preserve --quoting-style --null --sparse-version"
)
# tar's options that leave the names and the destination as `unpack_of` reads them
_TAR_PLAIN = option_set(
    "-x -v -z -j -J -a -k -m -o -p -s -U -w -O -B -i -S -W -l --extract --get --verbose --gzip --gunzip --ungzip "
    "--bzip2 --xz --lzma --lzip --lzop --auto-compress --keep-old-files --keep-newer-files --skip-old-files "
    "--overwrite --overwrite-dir --no-overwrite-dir --touch --no-same-owner --same-owner --no-same-permissions "
    "--same-permissions --preserve-permissions --numeric-owner --unlink-first --recursive-unlink "
    "--ignore-zeros --ignore-failed-read --totals --verify --interactive --confirmation --warning --wildcards "
    "--no-wildcards --anchored --no-anchored --ignore-case --no-ignore-case --exclude --exclude-vcs "
    "--exclude-backups --exclude-caches --no-recursion --recursion --delay-directory-restore "
    "--no-delay-directory-restore --check-links --show-transformed-names --full-time --utc --checkpoint "
    "--blocking-factor --record-size --format --occurrence --quoting-style --null --no-null --unquote "
    "--no-unquote --restrict --sparse --read-full-records --backup --suffix --mode --owner --group --mtime "
    "--one-file-system --no-xattrs --no-acls --no-selinux --xattrs --acls --selinux --block-number "
    "--index-file --force-local --no-auto-compress --exclude-from --files-from -T -X -b -B --zstd "
    "--to-stdout --starting-file --keep-directory-symlink"
)
# tar options under which it writes nothing to disk, or lists instead of extracting
_TAR_NO_WRITE = option_set("-O --to-stdout -t --list -d --diff --compare")
# tar options that rename what it writes, or run a program that could (not followed: the command asks)
_TAR_RENAMING = option_set("--transform --xform --one-top-level -P --absolute-names -I -F -g --to-command")
_TAR_BUNDLE_VALUED = "fCTXbHKLNVgFI"
_TAR_NAMES = ("tar", "bsdtar", "gtar")

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
    if name in _TAR_NAMES:
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
    words = list(argv)
    if len(words) > 1 and words[1].resolved and words[1].text and not words[1].text.startswith("-"):
        words = [words[0], *_unbundle(words[1], words[2:])]  # `tar xzf a.tgz` is `tar -x -z -f a.tgz`
    result = scan(words, _TAR_VALUED)
    names = [option for option, _ in result.options]
    if not any(_is_long(n, "--extract") or _is_long(n, "--get") or n == "-x" for n in names):
        return None
    if any(n in _TAR_NO_WRITE or _is_long(n, "--to-stdout") or _is_long(n, "--list") for n in names):
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
        elif (option not in _TAR_PLAIN and option not in _TAR_VALUED) or option in _TAR_RENAMING:
            return UnpackWords(None, None, None, why=f"`tar {option}` changes what it writes in ways not followed")
    if archive is None or archive.text == "-":
        return UnpackWords(None, None, None, why="`tar` extracts an archive from its input")
    return UnpackWords(archive, destination, "tar", strip=strip)


def _unbundle(bundle: Word, rest: Sequence[Word]) -> list[Word]:
    """`xzf a.tgz` as `-x -z -f a.tgz`: each letter an option, the valued ones taking the next words in order."""
    out: list[Word] = []
    queue = list(rest)
    for letter in bundle.text:
        out.append(Word("-" + letter, "-" + letter, "qq", bundle.resolved))
        if letter in _TAR_BUNDLE_VALUED and queue:
            out.append(queue.pop(0))
    return [*out, *queue]


def _is_long(given: str, option: str) -> bool:
    """`given` is `option` or an abbreviation GNU getopt would take for it (at least `--` and three letters)."""
    return given.startswith("--") and len(given) >= 5 and option.startswith(given)


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
