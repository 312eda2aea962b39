"""The files that archivers, copiers to other hosts and uploaders read and write, named in their arguments.

`tar -cf out.tar .env`, `zip -r out.zip .`, `rsync -a . host:dir`, `scp .env host:`, `curl -d @.env URL`
and `wget --post-file=.env URL` read files a Read rule may deny, and send them on: each file or folder
they read meets the Read rules as `cat` would (a folder they recurse into is searched, as `grep -r`'s
is), and the archive or copy they make is a write like any other. A path on another host
(`host:path`, `rsync://…`) is not a file here.
"""

from __future__ import annotations

from collections.abc import Sequence

from handrail.permissions.bash.model import Direction, Word
from handrail.permissions.bash.options import option_set, scan
from handrail.permissions.bash.tar_options import TAR_NAMES, is_long, tar_scan

Touched = tuple[tuple[Word, Direction], ...]

_ZIP_VALUED = option_set("-b -n -t -tt -P -Z -s -sp -O --out --password --temp-path")
_ZIP_LISTS = option_set("-x -i --exclude --include")  # each takes the patterns up to the next option
_RSYNC_VALUED = option_set(
    "-e --rsh --rsync-path -f --filter --exclude --include --exclude-from --include-from --files-from "
    "--password-file --log-file --log-file-format --out-format --backup-dir --suffix --partial-dir -T "
    "--temp-dir --compare-dest --copy-dest --link-dest --chmod --chown --usermap --groupmap --timeout "
    "--contimeout --port --address --sockopts --bwlimit -B --block-size --max-size --min-size --max-delete "
    "--modify-window --iconv --protocol --checksum-choice --cc --compress-choice --zc --compress-level --zl "
    "--skip-compress -M --remote-option --info --debug --stop-after --stop-at --outbuf --max-alloc "
    "--write-batch --only-write-batch --read-batch"
)
_RSYNC_READS = option_set("--exclude-from --include-from --password-file --read-batch")
_RSYNC_WRITES = option_set("--log-file --write-batch --only-write-batch")
_RECURSIVE = option_set("-r -R --recursive -a --archive --recurse-paths")
_SCP_VALUED = option_set("-c -F -i -J -l -o -P -S -D -X")
_CURL_VALUED = option_set(
    "-o --output -d --data --data-ascii --data-binary --data-raw --data-urlencode --json -H --header -X "
    "--request -u --user -A --user-agent -e --referer -T --upload-file -F --form --form-string -b --cookie "
    "-c --cookie-jar -w --write-out -m --max-time --connect-timeout -D --dump-header --trace --trace-ascii "
    "--stderr --netrc-file -E --cert --key --cacert --capath --etag-save --etag-compare --hsts --alt-svc "
    "-K --config --output-dir -x --proxy -U --proxy-user --retry --retry-delay --retry-max-time -r --range "
    "-z --time-cond --max-filesize --limit-rate -Y --speed-limit -y --speed-time --resolve --connect-to "
    "--url --variable"
)
_CURL_WRITES = option_set("-o --output -c --cookie-jar -D --dump-header --trace --trace-ascii --stderr --etag-save")
_CURL_READS = option_set("-T --upload-file --netrc-file -E --cert --key --cacert --etag-compare")
# `@file` reads the file: the data or headers sent, the output format
_CURL_AT_FILE = option_set("-d --data --data-ascii --data-binary --json -H --header -w --write-out")
_WGET_VALUED = option_set(
    "-O --output-document -o --output-file -a --append-output -P --directory-prefix -i --input-file "
    "--post-file --body-file --post-data --body-data --method --header -U --user-agent --load-cookies "
    "--save-cookies --certificate --private-key --ca-certificate --user --password -e --execute -t --tries "
    "-T --timeout -w --wait --limit-rate -Q --quota --referer --bind-address"
)
_WGET_WRITES = option_set("-O --output-document -o --output-file -a --append-output --save-cookies")
_WGET_READS = option_set(
    "-i --input-file --post-file --body-file --load-cookies --certificate --private-key --ca-certificate"
)
TRANSFERS = frozenset({*TAR_NAMES, "zip", "rsync", "scp", "curl", "wget"})


def transfer_paths(argv: Sequence[Word]) -> Touched:
    """The files the transfer command `argv` reads, searches and writes (its name is one of TRANSFERS)."""
    name = argv[0].text.rsplit("/", 1)[-1]
    if name in TAR_NAMES:
        return _tar_create(argv)
    if name == "zip":
        return _zip(argv)
    if name in ("rsync", "scp"):
        return _copy_to_hosts(argv, _RSYNC_VALUED if name == "rsync" else _SCP_VALUED)
    if name == "curl":
        return _curl(argv)
    return _wget(argv)


def _tar_create(argv: Sequence[Word]) -> Touched:
    """`tar -c` reads what it is given (folders whole), after the `-C` before it; the archive is written."""
    result = tar_scan(argv)
    names = [option for option, _ in result.options]
    creating = any(
        n in ("-c", "-r", "-u", "-A") or any(is_long(n, m) for m in ("--create", "--append", "--update", "--catenate"))
        for n in names
    )
    if not creating:
        return ()
    out: list[tuple[Word, Direction]] = []
    folder: Word | None = None
    for option, value in result.options:
        if value is None:
            continue
        if option in ("-f", "--file") and value.text != "-":
            out.append((value, "write"))
        elif option in ("-C", "--directory"):
            folder = value if folder is None or value.text.startswith("/") else folder.child(value.text)
    # GNU tar applies a -C to the names after it; all names are taken after the last one (a larger set
    # is only asked about more often, never less)
    for operand in result.operands:
        out.append((operand if folder is None or operand.text.startswith("/") else folder.child(operand.text),
                    "search"))  # fmt: skip
    return tuple(out)


def _zip(argv: Sequence[Word]) -> Touched:
    """`zip out.zip files…`: the archive is written, the files read (folders searched with `-r`).

    The patterns after `-x` and `-i` (up to the next option) name what to leave out or take, not files.
    """
    words: list[Word] = []
    patterns = False
    for word in argv:
        if word.text.startswith("-"):
            patterns = word.text in _ZIP_LISTS
            words.append(word)
        elif not patterns:
            words.append(word)
    result = scan(words, _ZIP_VALUED - _ZIP_LISTS)
    if not result.operands:
        return ()
    recursive = any(n in _RECURSIVE for n, _ in result.options)
    kind: Direction = "search" if recursive else "read"
    archive, *files = result.operands
    written = [v for n, v in result.options if n in ("-O", "--out") and v is not None]
    return ((archive, "write"), *((w, "write") for w in written), *((w, kind) for w in files if w.text != "-"))


def _copy_to_hosts(argv: Sequence[Word], valued: frozenset[str]) -> Touched:
    """`rsync`/`scp` sources… destination: local sources read (searched when recursive), a local destination written."""
    result = scan(argv, valued)
    out: list[tuple[Word, Direction]] = []
    for option, value in result.options:
        if value is not None and option in _RSYNC_READS:
            out.append((value, "read"))
        elif value is not None and option in _RSYNC_WRITES:
            out.append((value, "write"))
    if not result.operands:
        return tuple(out)
    *sources, destination = result.operands
    recursive = any(n in _RECURSIVE for n, _ in result.options)
    kind: Direction = "search" if recursive else "read"
    out.extend((w, kind) for w in sources if not _remote(w.text))
    if sources and not _remote(destination.text):
        out.append((destination, "write"))
    return tuple(out)


def _remote(text: str) -> bool:
    """`host:path`, `user@host:path`, `rsync://…`: a path on another host (a `:` before any `/`)."""
    head = text.split("/", 1)[0]
    return "://" in text or ":" in head


def _curl(argv: Sequence[Word]) -> Touched:
    result = scan(argv, _CURL_VALUED)
    out: list[tuple[Word, Direction]] = []
    for option, value in result.options:
        if value is None:
            continue
        text = value.text
        if option in _CURL_WRITES:
            out.append((value, "write"))
        elif option in _CURL_READS:
            out.append((value, "read"))
        elif option in _CURL_AT_FILE and text.startswith("@") and text != "@-":
            out.append((value.sliced(1), "read"))
        elif option in ("-b", "--cookie") and "=" not in text and text != "-":  # a file of cookies, sent
            out.append((value, "read"))
        elif option == "--variable" and "@" in text and not text.endswith("@-"):
            out.append((value.sliced(text.index("@") + 1), "read"))
        elif option == "--data-urlencode" and "@" in text.split("=", 1)[0]:
            at = text.index("@")
            if text[at + 1 :] != "-":
                out.append((value.sliced(at + 1), "read"))
        elif option in ("-F", "--form") and "=" in text:
            at = text.index("=") + 1
            if text[at : at + 1] in ("@", "<") and text[at + 1 :] not in ("-", ""):
                file = text[at + 1 :].split(";", 1)[0]
                out.append((value.sliced(at + 1, at + 1 + len(file)), "read"))
    return tuple(out)


def _wget(argv: Sequence[Word]) -> Touched:
    result = scan(argv, _WGET_VALUED)
    out: list[tuple[Word, Direction]] = []
    for option, value in result.options:
        if value is None or value.text == "-":
            continue
        if option in _WGET_WRITES or option in ("-P", "--directory-prefix"):
            out.append((value, "write"))
        elif option in _WGET_READS:
            out.append((value, "read"))
        elif option in ("-e", "--execute"):  # a .wgetrc command: `post_file = .env` reads the file
            setting, equals, file = value.text.partition("=")
            if equals and ("file" in setting or setting.strip() in ("input", "load_cookies")):
                out.append((value.sliced(len(value.text) - len(file.lstrip())), "read"))
    return tuple(out)

