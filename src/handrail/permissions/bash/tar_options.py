"""tar's command line as GNU tar reads it: old-style bundles (`tar xzf a.tgz`), its options and their values."""

from __future__ import annotations

from collections.abc import Sequence

from handrail.permissions.bash.model import Word
from handrail.permissions.bash.options import Scan, option_set, scan

TAR_NAMES = ("tar", "bsdtar", "gtar")
# tar's options that take a value (short, and long in full); a long option given as a prefix must use `=`
TAR_VALUED = option_set(
    "-f -C -T -X -b -H -K -L -N -V -g -F -I --file --directory --files-from --exclude-from --blocking-factor "
    "--format --starting-file --tape-length --newer --label --listed-incremental --info-script "
    "--use-compress-program --exclude --owner --group --mode --mtime --record-size --strip-components "
    "--transform --xform --one-top-level --warning --checkpoint --checkpoint-action --to-command --suffix "
    "--backup --occurrence --newer-mtime --after-date --atime-preserve --quoting-style --null --sparse-version"
)
# tar's options that leave the names it reads and writes, and where, as they are written
TAR_PLAIN = option_set(
    "-x -c -r -u -t -v -z -j -J -a -k -m -o -p -s -U -w -O -B -i -S -W -l -h --extract --get --create --append "
    "--update --list --verbose --gzip --gunzip --ungzip --dereference "
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
_BUNDLE_VALUED = "fCTXbHKLNVgFI"  # the letters of a bundle that take the next word as their value


def tar_scan(argv: Sequence[Word]) -> Scan:
    """tar's options (with values) and operands; an old-style bundle first (`xzf a.tgz`) is read as `-x -z -f a.tgz`."""
    words = list(argv)
    if len(words) > 1 and words[1].resolved and words[1].text and not words[1].text.startswith("-"):
        words = [words[0], *_unbundle(words[1], words[2:])]
    return scan(words, TAR_VALUED)


def is_long(given: str, option: str) -> bool:
    """`given` is `option` or an abbreviation GNU getopt would take for it (at least `--` and three letters)."""
    return given.startswith("--") and len(given) >= 5 and option.startswith(given)


def _unbundle(bundle: Word, rest: Sequence[Word]) -> list[Word]:
    """`xzf a.tgz` as `-x -z -f a.tgz`: each letter an option, the valued ones taking the next words in order."""
    out: list[Word] = []
    queue = list(rest)
    for letter in bundle.text:
        out.append(Word("-" + letter, "-" + letter, "qq", bundle.resolved))
        if letter in _BUNDLE_VALUED and queue:
            out.append(queue.pop(0))
    return [*out, *queue]
