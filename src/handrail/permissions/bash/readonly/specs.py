"""The simple readers (cat, ls, grep, rg, sort, diff and the like), each described by a spec of its options.

A spec says which options take a value (so values are not mistaken for paths), which are forbidden
(`sort -o`, `rg --pre`), which name files, and what the operands are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from handrail.permissions.bash.model import Direction, Word
from handrail.permissions.bash.options import first_forbidden, glob_before_dashdash, option_hit, option_set, scan
from handrail.permissions.bash.readonly.verdict import GLOB_OPTION, HERE, UNRESOLVED, ReadOnly


@dataclass(frozen=True, slots=True)
class Spec:
    """How to read one command's options and operands.

    `operands`: ``paths`` (every operand is a file), ``none`` (operands are data),
    ``pattern`` (the first operand is a pattern unless `-e`/`-f` gave one, the rest are files).
    """

    valued: frozenset[str] = frozenset()
    forbidden: frozenset[str] = frozenset()
    path_options: frozenset[str] = frozenset()
    pattern_options: frozenset[str] = frozenset()
    operands: str = "paths"
    max_operands: int | None = None
    globs: bool = True  # may an unquoted glob stand among the operands (a file named `--pre=x`...)
    no_operands_ok: bool = True
    # reading folders recursively: always, or with one of `recursive` (an option, or `option=value`)
    always_recursive: bool = False
    recursive: frozenset[str] = frozenset()
    follows_links: frozenset[str] = frozenset()  # options that make the recursion follow links
    no_pattern: frozenset[str] = frozenset()  # options after which no operand is a pattern (`rg --files`)


_CHECKSUM = Spec(forbidden=option_set("-c --check"))
SPECS: dict[str, Spec] = {
    "ls": Spec(
        valued=option_set(
            "-I --ignore -w --width -T --tabsize --block-size --format --hide --indicator-style "
            "--quoting-style --sort --time --time-style"
        ),
        recursive=option_set("-R --recursive"),
        follows_links=option_set("-L --dereference"),
    ),
    "cat": Spec(),
    "head": Spec(valued=option_set("-n -c --lines --bytes")),
    "tail": Spec(valued=option_set("-n -c --lines --bytes -s --sleep-interval --pid --max-unchanged-stats")),
    "wc": Spec(path_options=option_set("--files0-from")),
    "numfmt": Spec(
        operands="none",
        valued=option_set(
            "-d --delimiter --field --format --from --from-unit --to --to-unit --padding --round "
            "--suffix --invalid --header"
        ),
    ),
    "factor": Spec(operands="none"),
    "tsort": Spec(max_operands=1, globs=False),
    "sum": Spec(),
    "iconv": Spec(valued=option_set("-f --from-code -t --to-code"), forbidden=option_set("-o --output"), globs=False),
    "zcat": Spec(),
    "bzcat": Spec(),
    "xzcat": Spec(),
    "logname": Spec(operands="none"),
    "users": Spec(operands="none"),
    "stat": Spec(valued=option_set("-c --format --printf")),
    "file": Spec(
        valued=option_set("-F --separator -e --exclude -P --parameter"),
        path_options=option_set("-m --magic-file -f --files-from"),
        forbidden=option_set("-C --compile"),
        globs=False,
    ),
    "du": Spec(
        valued=option_set("-d --max-depth -B --block-size -t --threshold --time-style --exclude"),
        path_options=option_set("-X --exclude-from --files0-from"),
        always_recursive=True,
        follows_links=option_set("-L --dereference"),
    ),
    "df": Spec(valued=option_set("-B --block-size -t --type -x --exclude-type")),
    "tree": Spec(
        valued=option_set("-L -P -I --filelimit --timefmt -H -T --charset --sort"),
        forbidden=option_set("-o -R"),
        globs=False,
        always_recursive=True,
        follows_links=option_set("-l"),
    ),
    "nl": Spec(valued=option_set("-b -d -f -h -i -l -n -s -v -w")),
    "tac": Spec(valued=option_set("-s --separator")),
    "rev": Spec(),
    "fold": Spec(valued=option_set("-w --width")),
    "fmt": Spec(valued=option_set("-w --width -p --prefix -g --goal")),
    "expand": Spec(valued=option_set("-t --tabs")),
    "unexpand": Spec(valued=option_set("-t --tabs")),
    "paste": Spec(valued=option_set("-d --delimiters")),
    "cut": Spec(valued=option_set("-d --delimiter -f --fields -b --bytes -c --characters --output-delimiter")),
    "tr": Spec(operands="none"),
    "comm": Spec(valued=option_set("--output-delimiter")),
    "join": Spec(valued=option_set("-t -1 -2 -j -o -e -a -v")),
    "cmp": Spec(valued=option_set("-i --ignore-initial -n --bytes")),
    "diff": Spec(
        valued=option_set(
            "-U --unified -C --context -L --label -I --ignore-matching-lines -x --exclude -W --width "
            "--line-format --old-line-format --new-line-format --unchanged-line-format "
            "--old-group-format --new-group-format --changed-group-format --unchanged-group-format "
            "--horizon-lines --palette --tabsize -F --show-function-line"
        ),
        path_options=option_set("-X --exclude-from --from-file --to-file"),
    ),
    "sort": Spec(
        valued=option_set("-k --key -t --field-separator -S --buffer-size --parallel --batch-size"),
        path_options=option_set("--files0-from --random-source"),
        forbidden=option_set("-o --output --compress-program -T --temporary-directory"),
        globs=False,
    ),
    "uniq": Spec(valued=option_set("-f --skip-fields -s --skip-chars -w --check-chars"), max_operands=1, globs=False),
    "od": Spec(
        valued=option_set("-A --address-radix -j --skip-bytes -N --read-bytes -t --format -w --width -S --strings")
    ),
    "hexdump": Spec(valued=option_set("-e -n -s"), path_options=option_set("-f")),
    "xxd": Spec(valued=option_set("-c -g -l -s -o -n -cols -len -seek"), max_operands=1, globs=False),
    "strings": Spec(valued=option_set("-n --bytes -t --radix -e --encoding -s --output-separator")),
    "base64": Spec(
        valued=option_set("-w --wrap -b --break"),
        path_options=option_set("-i --input"),
        forbidden=option_set("-o --output"),
        globs=False,
    ),
    "base32": Spec(valued=option_set("-w --wrap"), globs=False),
    "basenc": Spec(valued=option_set("-w --wrap"), globs=False),
    "md5sum": _CHECKSUM,
    "sha1sum": _CHECKSUM,
    "sha224sum": _CHECKSUM,
    "sha256sum": _CHECKSUM,
    "sha384sum": _CHECKSUM,
    "sha512sum": _CHECKSUM,
    "b2sum": _CHECKSUM,
    "cksum": _CHECKSUM,
    "shasum": Spec(valued=option_set("-a --algorithm"), forbidden=option_set("-c --check")),
    "md5": Spec(valued=option_set("-s")),
    "column": Spec(
        valued=option_set(
            "-s --separator -c --output-width -o --output-separator -N --table-columns -R "
            "--table-right -E --table-noextreme -H --table-hide -W --table-wrap -d -l "
            "--table-columns-limit"
        )
    ),
    "grep": Spec(
        valued=option_set(
            "-A --after-context -B --before-context -C --context -m --max-count --label --include "
            "--exclude --exclude-dir -d --directories -D --devices --binary-files --group-separator"
        ),
        pattern_options=option_set("-e --regexp"),
        path_options=option_set("-f --file --exclude-from"),
        operands="pattern",
        recursive=option_set("-r -R --recursive --dereference-recursive -d=recurse --directories=recurse"),
        follows_links=option_set("-R --dereference-recursive"),
    ),
    "rg": Spec(
        valued=option_set(
            "-g --glob --iglob -t --type -T --type-not -A --after-context -B --before-context -C "
            "--context -m --max-count -M --max-columns -j --threads --max-depth -d -E --encoding -r "
            "--replace --type-add --type-clear --color --colors --sort --sortr --path-separator "
            "--context-separator --field-match-separator --field-context-separator --dfa-size-limit "
            "--regex-size-limit --max-filesize --engine --hyperlink-format --generate"
        ),
        pattern_options=option_set("-e --regexp"),
        path_options=option_set("-f --file --ignore-file"),
        forbidden=option_set("--pre --pre-glob --hostname-bin"),
        operands="pattern",
        globs=False,
        always_recursive=True,
        follows_links=option_set("-L --follow"),
        no_pattern=option_set("--files --type-list"),
    ),
    "echo": Spec(operands="none"),
    "printf": Spec(operands="none", valued=option_set("-v")),
    "pwd": Spec(operands="none"),
    "whoami": Spec(operands="none"),
    "id": Spec(operands="none"),
    "groups": Spec(operands="none"),
    "uname": Spec(operands="none"),
    "uptime": Spec(operands="none"),
    "nproc": Spec(operands="none"),
    "arch": Spec(operands="none"),
    "tty": Spec(operands="none"),
    "locale": Spec(operands="none"),
    "true": Spec(operands="none"),
    "false": Spec(operands="none"),
    ":": Spec(operands="none"),
    "sleep": Spec(operands="none"),
    "seq": Spec(operands="none", valued=option_set("-f --format -s --separator")),
    "basename": Spec(operands="none", valued=option_set("-s --suffix")),
    "dirname": Spec(operands="none"),
    "realpath": Spec(operands="none", valued=option_set("--relative-to --relative-base")),
    "readlink": Spec(operands="none"),
    "which": Spec(operands="none"),
    "type": Spec(operands="none"),
    "test": Spec(operands="none"),
    "[": Spec(operands="none"),
    "[[": Spec(operands="none"),
    "expr": Spec(operands="none"),
    "ps": Spec(
        operands="none",
        valued=option_set("-o -p -u -U -g -G -t -C --sort --format --pid --ppid"),
    ),
    "free": Spec(operands="none"),
    "getconf": Spec(operands="none"),
    "cal": Spec(operands="none"),
    "exit": Spec(operands="none"),
}

# interpreters and compilers asked only for their version
VERSION_ONLY: dict[str, frozenset[str]] = {
    "python": option_set("--version -V"),
    "python3": option_set("--version -V"),
    "node": option_set("--version -v"),
    "go": option_set("version"),
    "rustc": option_set("--version -V"),
    "ruby": option_set("--version -v"),
}


def by_spec(argv: Sequence[Word], spec: Spec) -> ReadOnly:
    """What `argv` does by its command's spec."""
    result = scan(argv, spec.valued | spec.path_options | spec.pattern_options)
    if result.unresolved:
        return UNRESOLVED
    hit = first_forbidden(result.options, spec.forbidden)
    if hit is not None:
        return ReadOnly(False, (), f"{argv[0].text} {hit} writes or runs something")
    if not spec.globs and glob_before_dashdash(result):
        return GLOB_OPTION
    paths: list[tuple[Word, Direction]] = [
        (value, "read") for name, value in result.options if name in spec.path_options and value is not None
    ]
    operands = result.operands
    if spec.operands == "pattern":
        has_pattern = any(
            name in spec.pattern_options
            or name in spec.no_pattern
            or (name in spec.path_options and name in ("-f", "--file"))
            for name, _ in result.options
        )
        if not has_pattern:
            operands = operands[1:]
    if spec.max_operands is not None and len(operands) > spec.max_operands:
        return ReadOnly(False, (), f"{argv[0].text} with {len(operands)} operands writes its last one")
    if spec.operands != "none":
        kind: Direction = "search" if _recursive(result.options, spec) else "read"
        files = [w for w in operands if w.text != "-"]
        if kind == "search" and not operands:
            files = [HERE]  # a recursive reader with no folder named searches the one it runs in
        paths.extend((w, kind) for w in files)
    return ReadOnly(True, tuple(paths), follows_links=option_hit(result.options, spec.follows_links))


def _recursive(options: Sequence[tuple[str, Word | None]], spec: Spec) -> bool:
    return spec.always_recursive or option_hit(options, spec.recursive)
