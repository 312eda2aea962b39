"""Commands that only read, with the flags that would make them do more, and the files they touch.

`read_only(argv)` says whether a simple command (already unwrapped, command word normalized)
only reads, and which of its words name files it reads; the analyser allows it without a rule
when those files are inside the working directories. Each command has a spec: which options take
a value (so values are not mistaken for paths), which options are forbidden (`sort -o`,
`rg --pre`, `find -exec`, `sed -i`...), and what its operands are.

`touched_paths(argv)` also knows the common commands that write (`rm`, `mv`, `cp`, `tee`...), so
their targets can be checked against the working directories and file rules.

`sed_script`, `awk_program` and `jq_program` look inside the little languages those tools run.
Nothing here reads the file system.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from handrail.permissions.bash.model import Direction, Word


@dataclass(frozen=True, slots=True)
class ReadOnly:
    """Whether a command only reads, the files it touches, and (for a recursive reader) whether it follows links."""

    read_only: bool
    paths: tuple[tuple[Word, Direction], ...] = ()
    why_not: str = ""
    follows_links: bool = False


NOT = ReadOnly(False, (), "not a known read-only command")


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


def _s(names: str) -> frozenset[str]:
    """A set of option names written as one space-separated string."""
    return frozenset(names.split())


_CHECKSUM = Spec(forbidden=_s("-c --check"))
SPECS: dict[str, Spec] = {
    "ls": Spec(
        valued=_s(
            "-I --ignore -w --width -T --tabsize --block-size --format --hide --indicator-style "
            "--quoting-style --sort --time --time-style"
        ),
        recursive=_s("-R --recursive"),
        follows_links=_s("-L --dereference"),
    ),
    "cat": Spec(),
    "head": Spec(valued=_s("-n -c --lines --bytes")),
    "tail": Spec(valued=_s("-n -c --lines --bytes -s --sleep-interval --pid --max-unchanged-stats")),
    "wc": Spec(path_options=_s("--files0-from")),
    "numfmt": Spec(
        operands="none",
        valued=_s(
            "-d --delimiter --field --format --from --from-unit --to --to-unit --padding --round "
            "--suffix --invalid --header"
        ),
    ),
    "factor": Spec(operands="none"),
    "tsort": Spec(max_operands=1, globs=False),
    "sum": Spec(),
    "iconv": Spec(valued=_s("-f --from-code -t --to-code"), forbidden=_s("-o --output"), globs=False),
    "zcat": Spec(),
    "bzcat": Spec(),
    "xzcat": Spec(),
    "logname": Spec(operands="none"),
    "users": Spec(operands="none"),
    "stat": Spec(valued=_s("-c --format --printf")),
    "file": Spec(
        valued=_s("-F --separator -e --exclude -P --parameter"),
        path_options=_s("-m --magic-file -f --files-from"),
        forbidden=_s("-C --compile"),
        globs=False,
    ),
    "du": Spec(
        valued=_s("-d --max-depth -B --block-size -t --threshold --time-style --exclude"),
        path_options=_s("-X --exclude-from --files0-from"),
        always_recursive=True,
        follows_links=_s("-L --dereference"),
    ),
    "df": Spec(valued=_s("-B --block-size -t --type -x --exclude-type")),
    "tree": Spec(
        valued=_s("-L -P -I --filelimit --timefmt -H -T --charset --sort"),
        forbidden=_s("-o -R"),
        globs=False,
        always_recursive=True,
        follows_links=_s("-l"),
    ),
    "nl": Spec(valued=_s("-b -d -f -h -i -l -n -s -v -w")),
    "tac": Spec(valued=_s("-s --separator")),
    "rev": Spec(),
    "fold": Spec(valued=_s("-w --width")),
    "fmt": Spec(valued=_s("-w --width -p --prefix -g --goal")),
    "expand": Spec(valued=_s("-t --tabs")),
    "unexpand": Spec(valued=_s("-t --tabs")),
    "paste": Spec(valued=_s("-d --delimiters")),
    "cut": Spec(valued=_s("-d --delimiter -f --fields -b --bytes -c --characters --output-delimiter")),
    "tr": Spec(operands="none"),
    "comm": Spec(valued=_s("--output-delimiter")),
    "join": Spec(valued=_s("-t -1 -2 -j -o -e -a -v")),
    "cmp": Spec(valued=_s("-i --ignore-initial -n --bytes")),
    "diff": Spec(
        valued=_s(
            "-U --unified -C --context -L --label -I --ignore-matching-lines -x --exclude -W --width "
            "--line-format --old-line-format --new-line-format --unchanged-line-format "
            "--old-group-format --new-group-format --changed-group-format --unchanged-group-format "
            "--horizon-lines --palette --tabsize -F --show-function-line"
        ),
        path_options=_s("-X --exclude-from --from-file --to-file"),
    ),
    "sort": Spec(
        valued=_s("-k --key -t --field-separator -S --buffer-size --parallel --batch-size"),
        path_options=_s("--files0-from --random-source"),
        forbidden=_s("-o --output --compress-program -T --temporary-directory"),
        globs=False,
    ),
    "uniq": Spec(valued=_s("-f --skip-fields -s --skip-chars -w --check-chars"), max_operands=1, globs=False),
    "od": Spec(valued=_s("-A --address-radix -j --skip-bytes -N --read-bytes -t --format -w --width -S --strings")),
    "hexdump": Spec(valued=_s("-e -n -s"), path_options=_s("-f")),
    "xxd": Spec(valued=_s("-c -g -l -s -o -n -cols -len -seek"), max_operands=1, globs=False),
    "strings": Spec(valued=_s("-n --bytes -t --radix -e --encoding -s --output-separator")),
    "base64": Spec(
        valued=_s("-w --wrap -b --break"),
        path_options=_s("-i --input"),
        forbidden=_s("-o --output"),
        globs=False,
    ),
    "base32": Spec(valued=_s("-w --wrap"), globs=False),
    "basenc": Spec(valued=_s("-w --wrap"), globs=False),
    "md5sum": _CHECKSUM,
    "sha1sum": _CHECKSUM,
    "sha224sum": _CHECKSUM,
    "sha256sum": _CHECKSUM,
    "sha384sum": _CHECKSUM,
    "sha512sum": _CHECKSUM,
    "b2sum": _CHECKSUM,
    "cksum": _CHECKSUM,
    "shasum": Spec(valued=_s("-a --algorithm"), forbidden=_s("-c --check")),
    "md5": Spec(valued=_s("-s")),
    "column": Spec(
        valued=_s(
            "-s --separator -c --output-width -o --output-separator -N --table-columns -R "
            "--table-right -E --table-noextreme -H --table-hide -W --table-wrap -d -l "
            "--table-columns-limit"
        )
    ),
    "grep": Spec(
        valued=_s(
            "-A --after-context -B --before-context -C --context -m --max-count --label --include "
            "--exclude --exclude-dir -d --directories -D --devices --binary-files --group-separator"
        ),
        pattern_options=_s("-e --regexp"),
        path_options=_s("-f --file --exclude-from"),
        operands="pattern",
        recursive=_s("-r -R --recursive --dereference-recursive -d=recurse --directories=recurse"),
        follows_links=_s("-R --dereference-recursive"),
    ),
    "rg": Spec(
        valued=_s(
            "-g --glob --iglob -t --type -T --type-not -A --after-context -B --before-context -C "
            "--context -m --max-count -M --max-columns -j --threads --max-depth -d -E --encoding -r "
            "--replace --type-add --type-clear --color --colors --sort --sortr --path-separator "
            "--context-separator --field-match-separator --field-context-separator --dfa-size-limit "
            "--regex-size-limit --max-filesize --engine --hyperlink-format --generate"
        ),
        pattern_options=_s("-e --regexp"),
        path_options=_s("-f --file --ignore-file"),
        forbidden=_s("--pre --pre-glob --hostname-bin"),
        operands="pattern",
        globs=False,
        always_recursive=True,
        follows_links=_s("-L --follow"),
        no_pattern=_s("--files --type-list"),
    ),
    "echo": Spec(operands="none"),
    "printf": Spec(operands="none", valued=_s("-v")),
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
    "seq": Spec(operands="none", valued=_s("-f --format -s --separator")),
    "basename": Spec(operands="none", valued=_s("-s --suffix")),
    "dirname": Spec(operands="none"),
    "realpath": Spec(operands="none", valued=_s("--relative-to --relative-base")),
    "readlink": Spec(operands="none"),
    "which": Spec(operands="none"),
    "type": Spec(operands="none"),
    "test": Spec(operands="none"),
    "[": Spec(operands="none"),
    "[[": Spec(operands="none"),
    "expr": Spec(operands="none"),
    "ps": Spec(
        operands="none",
        valued=_s("-o -p -u -U -g -G -t -C --sort --format --pid --ppid"),
    ),
    "free": Spec(operands="none"),
    "getconf": Spec(operands="none"),
    "cal": Spec(operands="none"),
    "exit": Spec(operands="none"),
}

# interpreters and compilers asked only for their version
VERSION_ONLY: dict[str, frozenset[str]] = {
    "python": _s("--version -V"),
    "python3": _s("--version -V"),
    "node": _s("--version -v"),
    "go": _s("version"),
    "rustc": _s("--version -V"),
    "ruby": _s("--version -v"),
}

# ---------------------------------------------------------------------------- option scanning


@dataclass
class Scan:
    options: list[tuple[str, Word | None]] = field(default_factory=list)
    operands: list[Word] = field(default_factory=list)
    after_dashdash: int | None = None  # index into operands where `--` was
    unresolved: bool = False


def scan(
    argv: Sequence[Word], valued: frozenset[str], *, start: int = 1, two_valued: frozenset[str] = frozenset()
) -> Scan:
    """Split argv into options (with their values) and operands, GNU style (options anywhere before `--`)."""
    result = Scan()
    i = start
    n = len(argv)
    while i < n:
        word = argv[i]
        text = word.text
        if not word.resolved:
            result.unresolved = True
        if result.after_dashdash is not None or text == "-" or not text.startswith("-") or not word.resolved:
            if text == "--" and result.after_dashdash is None and word.resolved:
                result.after_dashdash = len(result.operands)
            else:
                result.operands.append(word)
            i += 1
            continue
        if text == "--":
            result.after_dashdash = len(result.operands)
            i += 1
            continue
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            if eq:
                result.options.append((name, Word(value, value, word.mask[len(name) + 1 :], word.resolved)))
                i += 1
            elif name in two_valued:
                result.options.append((name, argv[i + 2] if i + 2 < n else None))
                i += 3
            elif name in valued:
                result.options.append((name, argv[i + 1] if i + 1 < n else None))
                i += 2
            else:
                result.options.append((name, None))
                i += 1
            continue
        if text in valued:  # also multi-letter single-dash options (`-cols`, `-newer`)
            result.options.append((text, argv[i + 1] if i + 1 < n else None))
            i += 2
            continue
        j = 1
        step = 1
        while j < len(text):
            name = "-" + text[j]
            if name in valued:
                rest = text[j + 1 :]
                if rest:
                    result.options.append((name, Word(rest, rest, word.mask[j + 1 :], word.resolved)))
                else:
                    result.options.append((name, argv[i + 1] if i + 1 < n else None))
                    step = 2
                break
            result.options.append((name, None))
            j += 1
        i += step
    return result


def _forbidden_hit(options: Sequence[tuple[str, Word | None]], forbidden: frozenset[str]) -> str | None:
    for name, _ in options:
        if name in forbidden:
            return name
    return None


def _glob_before_dashdash(result: Scan) -> bool:
    limit = result.after_dashdash if result.after_dashdash is not None else len(result.operands)
    return any(w.glob for w in result.operands[:limit])


def _by_spec(argv: Sequence[Word], spec: Spec) -> ReadOnly:
    result = scan(argv, spec.valued | spec.path_options | spec.pattern_options)
    if result.unresolved:
        return ReadOnly(False, (), "an argument the analyser cannot resolve")
    hit = _forbidden_hit(result.options, spec.forbidden)
    if hit is not None:
        return ReadOnly(False, (), f"{argv[0].text} {hit} writes or runs something")
    if not spec.globs and _glob_before_dashdash(result):
        return ReadOnly(False, (), "a glob could expand into an option")
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
    return ReadOnly(True, tuple(paths), follows_links=_option_hit(result.options, spec.follows_links))


HERE = Word(".", ".", "q")


def _option_hit(options: Sequence[tuple[str, Word | None]], names: frozenset[str]) -> bool:
    """Whether one of `names` (`-x`, or `-x=value` for an option with that value) is among `options`."""
    return any(name in names or (value is not None and f"{name}={value.text}" in names) for name, value in options)


def _recursive(options: Sequence[tuple[str, Word | None]], spec: Spec) -> bool:
    return spec.always_recursive or _option_hit(options, spec.recursive)


# ---------------------------------------------------------------------------- custom commands


_FIND_FORBIDDEN = _s("-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls")
_FIND_VALUED = _s(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type "
    "-xtype -size -perm -user -group -uid -gid -mtime -atime -ctime -mmin -amin -cmin "
    "-maxdepth -mindepth -links -inum -used -fstype -printf -context -regextype"
)
_FIND_PATH_VALUED = _s("-newer -anewer -cnewer -samefile -files0-from")


def _find(argv: Sequence[Word]) -> ReadOnly:
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
            return ReadOnly(False, (), "an argument the analyser cannot resolve")
        if argv[i].glob:
            return ReadOnly(False, (), "a glob could expand into a find expression")
        paths.append((argv[i], "search"))
        i += 1
    if not paths:
        paths.append((HERE, "search"))
    while i < n:
        word = argv[i]
        if not word.resolved:
            return ReadOnly(False, (), "an argument the analyser cannot resolve")
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


# ---- sed

SED_SAFE_COMMANDS = frozenset("=dDgGhHlnNpPxzqQbtT:{}#aicyFs")
SED_DANGER = {
    "e": "runs a shell command",
    "w": "writes a file",
    "W": "writes a file",
    "r": "reads a file",
    "R": "reads a file",
    "s_e": "runs the result as a command",
    "s_w": "writes a file",
}


def sed_script(script: str) -> tuple[frozenset[str], bool]:
    """The commands a sed script uses (`s_e`/`s_w` for the s command's e and w flags), and whether it parsed."""
    used: set[str] = set()
    i = 0
    n = len(script)

    def skip_regex(pos: int, delim: str) -> int:
        while pos < n:
            char = script[pos]
            if char == "\\":
                pos += 2
                continue
            if char == "\n":
                return -1
            if char == delim:
                return pos + 1
            pos += 1
        return -1

    def address(pos: int) -> int:
        if pos < n and script[pos].isdigit():
            while pos < n and (script[pos].isdigit() or script[pos] == "~"):
                pos += 1
            return pos
        if pos < n and script[pos] == "$":
            return pos + 1
        if pos < n and script[pos] == "/":
            pos = skip_regex(pos + 1, "/")
        elif pos + 1 < n and script[pos] == "\\":
            pos = skip_regex(pos + 2, script[pos + 1])
        else:
            return pos
        if pos == -1:
            return -1
        while pos < n and script[pos] in "IM":
            pos += 1
        return pos

    def to_line_end(pos: int) -> int:
        while pos < n and script[pos] != "\n":
            if script[pos] == "\\" and pos + 1 < n:
                pos += 2
                continue
            pos += 1
        return pos

    while i < n:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            break
        start = i
        i = address(i)
        if i == -1:
            return frozenset(used), False
        if i > start and i < n and script[i] == ",":
            i += 1
            if i < n and script[i] in "+~":
                i += 1
                while i < n and script[i].isdigit():
                    i += 1
            else:
                i = address(i)
                if i == -1:
                    return frozenset(used), False
        while i < n and script[i] in " \t!":
            i += 1
        if i >= n:
            return frozenset(used), False
        command = script[i]
        i += 1
        used.add(command)
        if command in "{}=dDgGhHlnNpPxzF":
            if command == "l":
                while i < n and script[i].isdigit():
                    i += 1
            continue
        if command in "qQ":
            while i < n and script[i] in " \t0123456789":
                i += 1
            continue
        if command in "btT:":
            while i < n and script[i] not in ";\n":
                i += 1
            continue
        if command == "#":
            i = to_line_end(i)
            continue
        if command in "aicrRwWev":
            i = to_line_end(i)
            continue
        if command in "sy":
            if i >= n or script[i] in "\n\\":
                return frozenset(used), False
            delim = script[i]
            i = skip_regex(i + 1, delim)
            if i == -1:
                return frozenset(used), False
            i = skip_regex(i, delim)
            if i == -1:
                return frozenset(used), False
            if command == "s":
                while i < n and script[i] not in ";\n}":
                    flag = script[i]
                    if flag == "e":
                        used.add("s_e")
                    elif flag == "w":
                        used.add("s_w")
                        i = to_line_end(i)
                        break
                    elif flag not in "gpiImM0123456789 \t":
                        return frozenset(used), False
                    i += 1
            continue
        return frozenset(used), False
    return frozenset(used), True


@dataclass(frozen=True, slots=True)
class SedCall:
    in_place: bool
    script_file: bool
    scripts: tuple[Word, ...]
    files: tuple[Word, ...]
    unresolved: bool


def sed_call(argv: Sequence[Word]) -> SedCall:
    result = scan(argv, _s("-e --expression -f --file -l --line-length"))
    in_place = any(name in ("-i", "--in-place", "-I") for name, _ in result.options)
    script_file = any(name in ("-f", "--file") for name, _ in result.options)
    scripts = [v for name, v in result.options if name in ("-e", "--expression") and v is not None]
    operands = list(result.operands)
    if not scripts and not script_file and operands:
        scripts.append(operands.pop(0))
    unresolved = result.unresolved or any(not w.resolved for w in scripts)
    return SedCall(in_place, script_file, tuple(scripts), tuple(operands), unresolved)


def _sed(argv: Sequence[Word]) -> ReadOnly:
    call = sed_call(argv)
    if call.unresolved:
        return ReadOnly(False, (), "an argument the analyser cannot resolve")
    if call.in_place:
        return ReadOnly(False, (), "sed -i edits files")
    if call.script_file:
        return ReadOnly(False, (), "sed -f runs a script from a file")
    for script in call.scripts:
        used, ok = sed_script(script.text)
        if not ok:
            return ReadOnly(False, (), "a sed script the analyser cannot read")
        danger = used & SED_DANGER.keys()
        if danger:
            return ReadOnly(False, (), f"the sed script {SED_DANGER[min(danger)]}")
    if any(w.glob for w in call.files):
        return ReadOnly(False, (), "a glob could expand into an option")
    return ReadOnly(True, tuple((w, "read") for w in call.files if w.text != "-"))


# ---- awk

_AWK_OPERAND_END = set("(,{};!~&|=?:\n")


def awk_code(program: str) -> str:
    """The program with string literals, regex literals and comments blanked out."""
    out: list[str] = []
    i = 0
    n = len(program)
    previous = ""
    while i < n:
        char = program[i]
        if char == '"':
            j = i + 1
            while j < n and program[j] != '"':
                j += 2 if program[j] == "\\" else 1
            out.append('""')
            i = j + 1
            previous = '"'
            continue
        if char == "/" and (previous == "" or previous in _AWK_OPERAND_END):
            j = i + 1
            while j < n and program[j] not in "/\n":
                if program[j] == "\\":
                    j += 2
                elif program[j] == "[":
                    k = program.find("]", j + 2)
                    j = k + 1 if k != -1 else n
                else:
                    j += 1
            out.append("//")
            i = j + 1
            previous = "/"
            continue
        if char == "#":
            while i < n and program[i] != "\n":
                i += 1
            continue
        out.append(char)
        if not char.isspace():
            previous = char
        i += 1
    return "".join(out)


# system(), pipes to and from commands, extensions, and gawk's indirect calls (`@f()` with f = "system")
_AWK_EXEC = re.compile(r"\bsystem\s*\(|(?<!\|)\|(?!\|)|@[A-Za-z_]|\bextension\s*\(")
# reading other files or the environment: getline from a file, rewriting ARGV, ENVIRON, PROCINFO
_AWK_READS = re.compile(r"\bgetline\b|\bARGV\b|\bARGC\b|\bENVIRON\b|\bPROCINFO\b")
_AWK_WRITE = re.compile(r"\bprintf?\b[^;{}\n]*>")


def awk_program(program: str) -> tuple[bool, bool]:
    """(runs commands, writes files) for an awk program text."""
    code = awk_code(program)
    return _AWK_EXEC.search(code) is not None, _AWK_WRITE.search(code) is not None


def awk_reads_more(program: str) -> bool:
    """Whether an awk program reads files or data beyond its operands (getline < f, ARGV, ENVIRON)."""
    return _AWK_READS.search(awk_code(program)) is not None


# gawk options that write files (pretty-print, profile, variable dump) or start the debugger
_AWK_WRITING_OPTIONS = _s("-o --pretty-print -p --profile -d --dump-variables -D --debug")


@dataclass(frozen=True, slots=True)
class AwkCall:
    program: Word | None
    program_file: bool
    extension: bool
    files: tuple[Word, ...]
    unresolved: bool
    writes: bool = False
    assigns: tuple[str, ...] = ()  # names given values by -v or NAME=value operands


def awk_call(argv: Sequence[Word]) -> AwkCall:
    result = scan(
        argv,
        _s("-F --field-separator -v --assign -f --file -E --exec -i --include -l --load -e --source -W"),
    )
    program_file = any(name in ("-f", "--file", "-E", "--exec") for name, _ in result.options)
    writes = any(name in _AWK_WRITING_OPTIONS for name, _ in result.options)
    extension = any(name in ("-i", "--include", "-l", "--load") for name, _ in result.options)
    sources = [v for name, v in result.options if name in ("-e", "--source") and v is not None]
    operands = list(result.operands)
    program: Word | None = sources[0] if sources else None
    if program is None and not program_file and operands:
        program = operands.pop(0)
    files = tuple(w for w in operands if not _AWK_ASSIGNMENT.match(w.text))
    assigns = tuple(
        [w.text.split("=", 1)[0] for w in operands if _AWK_ASSIGNMENT.match(w.text)]
        + [v.text.split("=", 1)[0] for name, v in result.options if name in ("-v", "--assign") and v is not None]
    )
    unresolved = result.unresolved or (program is not None and not program.resolved)
    return AwkCall(program, program_file, extension, files, unresolved, writes, assigns)


_AWK_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _awk(argv: Sequence[Word]) -> ReadOnly:
    call = awk_call(argv)
    if call.unresolved:
        return ReadOnly(False, (), "an argument the analyser cannot resolve")
    if call.program_file or call.extension or call.program is None:
        return ReadOnly(False, (), "awk runs a program the analyser cannot see")
    runs, writes = awk_program(call.program.text)
    if runs or writes or call.writes:
        return ReadOnly(False, (), "the awk program runs commands or writes files")
    if awk_reads_more(call.program.text) or {"ARGV", "ARGC"} & set(call.assigns):
        return ReadOnly(False, (), "the awk program reads files or the environment beyond its operands")
    if any(w.glob for w in call.files):
        return ReadOnly(False, (), "a glob could expand into an option")
    return ReadOnly(True, tuple((w, "read") for w in call.files if w.text != "-"))


# ---- jq

_JQ_FILE_OPTIONS = _s("-f --from-file --rawfile --slurpfile -L --library-path")
_JQ_EXEC = re.compile(r"\bsystem\b|\binput_filename\b.*\bsystem\b")
_JQ_IMPORT = re.compile(r"\b(?:import|include)\s+\"")
_JQ_ENV = re.compile(r"\$ENV\b|\benv\b|\$__prog_args\b|\binput_filename\b")


@dataclass(frozen=True, slots=True)
class JqCall:
    program: Word | None
    file_options: tuple[str, ...]
    files: tuple[Word, ...]
    unresolved: bool


def jq_call(argv: Sequence[Word]) -> JqCall:
    result = scan(
        argv,
        _s("--indent -f --from-file -L --library-path"),
        two_valued=_s("--arg --argjson --slurpfile --rawfile"),
    )
    file_options = tuple(name for name, _ in result.options if name in _JQ_FILE_OPTIONS or name.startswith("-L"))
    operands = list(result.operands)
    program = None
    if not any(name in ("-f", "--from-file") for name, _ in result.options) and operands:
        program = operands.pop(0)
    if any(name in ("--args", "--jsonargs") for name, _ in result.options):
        operands = []
    unresolved = result.unresolved or (program is not None and not program.resolved)
    return JqCall(program, file_options, tuple(operands), unresolved)


def jq_program(program: str) -> tuple[bool, bool]:
    """(mentions `system`, imports modules from files)."""
    return _JQ_EXEC.search(program) is not None, _JQ_IMPORT.search(program) is not None


def _jq(argv: Sequence[Word]) -> ReadOnly:
    call = jq_call(argv)
    if call.unresolved:
        return ReadOnly(False, (), "an argument the analyser cannot resolve")
    if call.file_options:
        return ReadOnly(False, (), f"jq {call.file_options[0]} reads a program or data from a file")
    if call.program is not None:
        runs, imports = jq_program(call.program.text)
        if runs or imports:
            return ReadOnly(False, (), "the jq program runs or imports something")
        if _JQ_ENV.search(call.program.text):
            return ReadOnly(False, (), "the jq program reads the environment")
    if any(w.glob for w in call.files):
        return ReadOnly(False, (), "a glob could expand into an option")
    return ReadOnly(True, tuple((w, "read") for w in call.files if w.text != "-"))


# ---- git

GIT_GLOBAL_FLAGS = _s(
    "-P --no-pager -p --paginate --bare --no-replace-objects --literal-pathspecs "
    "--glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks --no-advice "
    "--no-lazy-fetch"
)
GIT_GLOBAL_VALUED = _s("-C --git-dir --work-tree --namespace -c --config-env --super-prefix --list-cmds")
GIT_INFO = _s("--version --help --html-path --man-path --info-path --exec-path")
GIT_ANYWHERE_FORBIDDEN = (
    "--output",
    "--ext-diff",
    "--upload-pack",
    "--receive-pack",
    "--exec",
    "--open-files-in-pager",
)

GIT_READ_ONLY = frozenset(
    {
        "status",
        "diff",
        "log",
        "show",
        "shortlog",
        "whatchanged",
        "blame",
        "annotate",
        "rev-parse",
        "rev-list",
        "ls-files",
        "ls-tree",
        "cat-file",
        "merge-base",
        "show-ref",
        "for-each-ref",
        "describe",
        "name-rev",
        "count-objects",
        "check-ignore",
        "check-attr",
        "check-ref-format",
        "var",
        "cherry",
        "show-branch",
        "range-diff",
        "grep",
        "branch",
        "tag",
        "remote",
        "config",
        "stash",
        "reflog",
        "worktree",
        "submodule",
        "version",
        "notes",
        "diff-tree",
        "diff-files",
        "diff-index",
        "verify-commit",
        "verify-tag",
    }
)
_BRANCH_WRITES = _s(
    "-d -D --delete -m -M --move -c -C --copy -f --force -u --set-upstream-to "
    "--unset-upstream --edit-description -t --track --no-track --create-reflog"
)
_BRANCH_VALUED = _s(
    "--contains --no-contains --merged --no-merged --points-at --format --sort --color --column --abbrev"
)
_TAG_WRITES = _s(
    "-d --delete -a --annotate -s --sign -u --local-user -f --force -m --message -F --file -e --edit --create-reflog"
)
_CONFIG_READS = _s("--get --get-all --get-regexp --get-urlmatch --list -l --get-color --get-colorbool")
_CONFIG_WRITES = _s("--add --unset --unset-all --replace-all --rename-section --remove-section -e --edit")


# git commands that only read with these first operands
_GIT_READ_SUBCOMMANDS: dict[str, tuple[list[str], ...]] = {
    "stash": (["list"], ["show"]),
    "reflog": ([], ["show"], ["exists"]),
    "worktree": (["list"],),
    "submodule": (["status"],),
    "notes": ([], ["list"], ["show"]),
}


@dataclass(frozen=True, slots=True)
class GitCall:
    config: tuple[Word, ...]  # values of -c / --config-env / clone -c
    config_env: bool
    exec_path_set: bool
    chdirs: tuple[Word, ...]  # -C, --git-dir, --work-tree
    subcommand: Word | None
    args: tuple[Word, ...]
    unknown_global: bool
    directories: tuple[Word, ...] = ()  # the -C folders, in order
    git_dir: Word | None = None  # --git-dir


def git_call(argv: Sequence[Word]) -> GitCall:
    config: list[Word] = []
    chdirs: list[Word] = []
    directories: list[Word] = []
    git_dir: Word | None = None
    config_env = exec_path_set = unknown = False
    i = 1
    n = len(argv)
    while i < n:
        text = argv[i].text
        if not text.startswith("-"):
            break
        name, eq, value = text.partition("=")
        if name in GIT_INFO:
            if name == "--exec-path" and eq:
                exec_path_set = True
            i += 1
            continue
        if name in GIT_GLOBAL_FLAGS:
            i += 1
            continue
        if name in GIT_GLOBAL_VALUED:
            value_word = (
                Word(value, value, "q" * len(value), argv[i].resolved) if eq else (argv[i + 1] if i + 1 < n else None)
            )
            if name == "-c":
                config.append(value_word if value_word is not None else Word("", "", ""))
            if name == "--config-env":
                config_env = True
            if name in ("-C", "--git-dir", "--work-tree") and value_word is not None:
                chdirs.append(value_word)
                if name == "-C":
                    directories.append(value_word)
                elif name == "--git-dir":
                    git_dir = value_word
            i += 1 if eq else 2
            continue
        if text.startswith("-c") and len(text) > 2:
            config.append(Word(text[2:], text[2:], argv[i].mask[2:], argv[i].resolved))
            i += 1
            continue
        if text.startswith("-C") and len(text) > 2:
            chdirs.append(Word(text[2:], text[2:], argv[i].mask[2:], argv[i].resolved))
            directories.append(chdirs[-1])
            i += 1
            continue
        unknown = True
        i += 1
    subcommand = argv[i] if i < n else None
    args = tuple(argv[i + 1 :]) if i < n else ()
    if subcommand is not None and subcommand.text == "clone":
        for index, word in enumerate(args):
            if word.text in ("-c", "--config") and index + 1 < len(args):
                config.append(args[index + 1])
            elif word.text.startswith("--config="):
                config.append(Word(word.text[9:], word.text[9:], word.mask[9:], word.resolved))
    return GitCall(
        tuple(config), config_env, exec_path_set, tuple(chdirs), subcommand, args, unknown, tuple(directories), git_dir
    )


def git_folder(call: GitCall) -> Word:
    """The folder a git command runs in, relative to where it starts: its `-C` folders joined (`.` without)."""
    folder = "."
    for word in call.directories:
        folder = word.text if word.text.startswith(("/", "~")) else f"{folder}/{word.text}"
    return Word(folder, folder, "q" * len(folder), all(w.resolved for w in call.directories))


_GIT_COMMAND_KEYS = frozenset(
    {"core.sshcommand", "core.pager", "core.editor", "sequence.editor", "core.fsmonitor", "diff.external",
     "gpg.program", "core.askpass", "core.gitproxy"}
)  # fmt: skip


def git_scripts(argv: Sequence[Word]) -> list[tuple[str, str]]:
    """Shell code a git command line hands to a shell: `-c alias.x='!cmd'`, `-c core.pager=cmd`,
    `--upload-pack=cmd`, `rebase --exec cmd`, `submodule foreach cmd`, `filter-branch --*-filter cmd`.
    """
    call = git_call(argv)
    found: list[tuple[str, str]] = []
    for setting in call.config:
        key, _, value = setting.text.partition("=")
        key = key.lower()
        if key.startswith("alias.") and value.startswith("!"):
            found.append((f"git -c {key}", value[1:]))
        elif key in _GIT_COMMAND_KEYS or key.startswith(("pager.", "credential.")):
            found.append((f"git -c {key}", value.lstrip("!")))
    args = [w.text for w in call.args]
    sub = call.subcommand.text if call.subcommand is not None else ""
    for index, text in enumerate(args):
        option, eq, value = text.partition("=")
        takes_command = (
            option in ("--upload-pack", "--receive-pack", "--exec")
            or (sub == "rebase" and option in ("-x", "--exec"))
            or (sub == "filter-branch" and option.endswith("-filter"))
        )
        if takes_command:
            command = value if eq else (args[index + 1] if index + 1 < len(args) else "")
            if command:
                found.append((f"git {sub} {option}", command))
    positionals = [t for t in args if not t.startswith("-")]
    if sub == "submodule" and positionals[:1] == ["foreach"]:
        rest = args[args.index("foreach") + 1 :]
        found.append(("git submodule foreach", " ".join(rest)))
    if sub == "bisect" and positionals[:1] == ["run"]:
        found.append(("git bisect run", " ".join(shlex.quote(t) for t in args[args.index("run") + 1 :])))
    return found


def _git(argv: Sequence[Word]) -> ReadOnly:
    call = git_call(argv)
    if call.config or call.config_env or call.exec_path_set or call.unknown_global:
        return ReadOnly(False, (), "git options that change its configuration")
    if not all(w.resolved for w in argv):
        return ReadOnly(False, (), "an argument the analyser cannot resolve")
    paths: list[tuple[Word, Direction]] = [(w, "enter") for w in call.chdirs]
    if call.subcommand is None:
        return ReadOnly(True, tuple(paths))  # `git --version`, `git -C x` alone prints help
    sub = call.subcommand.text
    args = call.args
    texts = [w.text for w in args]
    if sub not in GIT_READ_ONLY:
        return ReadOnly(False, (), f"git {sub} is not read-only")
    for text in texts:
        if text.split("=", 1)[0] in GIT_ANYWHERE_FORBIDDEN:
            return ReadOnly(False, (), f"git {sub} {text.split('=', 1)[0]} writes or runs something")
    if any(w.glob for w in args):
        return ReadOnly(False, (), "a glob could expand into an option")
    options = [t for t in texts if t.startswith("-")]
    positionals = [t for t in texts if not t.startswith("-")]
    if sub == "grep" and any(t == "-O" or t.startswith("-O") for t in options):
        return ReadOnly(False, (), "git grep -O opens files in a program")
    if sub == "grep":  # it reads the files of the work tree below where it runs
        paths.append((git_folder(call), "search"))
    if sub in ("diff", "log", "show") and "--no-index" in texts:
        paths.extend((w, "read") for w in args if not w.text.startswith("-"))
    if sub in ("blame", "annotate"):
        for index, text in enumerate(texts):
            if text == "--contents" and index + 1 < len(args):
                paths.append((args[index + 1], "read"))
    if sub == "branch":
        result = scan(args, _BRANCH_VALUED, start=0)
        if _forbidden_hit(result.options, _BRANCH_WRITES):
            return ReadOnly(False, (), "git branch changes branches")
        if result.operands and not any(name in ("-l", "--list") for name, _ in result.options):
            return ReadOnly(False, (), "git branch NAME creates a branch")
    elif sub == "tag":
        result = scan(
            args,
            _s("--contains --no-contains --merged --no-merged --points-at --format --sort -n --color --column"),
            start=0,
        )
        if _forbidden_hit(result.options, _TAG_WRITES):
            return ReadOnly(False, (), "git tag changes tags")
        if result.operands and not any(name in ("-l", "--list") for name, _ in result.options):
            return ReadOnly(False, (), "git tag NAME creates a tag")
    elif sub == "remote":
        if positionals and positionals[0] not in ("get-url", "show"):
            return ReadOnly(False, (), "git remote changes remotes")
    elif sub == "config":
        reading = any(t.split("=", 1)[0] in _CONFIG_READS for t in options) or (positionals[:1] in (["get"], ["list"]))
        if not reading or any(t in _CONFIG_WRITES for t in options):
            return ReadOnly(False, (), "git config changes configuration")
        for index, text in enumerate(texts):
            if text in ("-f", "--file", "--blob") and index + 1 < len(args):
                paths.append((args[index + 1], "read"))
    elif sub in _GIT_READ_SUBCOMMANDS and positionals[:1] not in _GIT_READ_SUBCOMMANDS[sub]:
        return ReadOnly(False, (), f"git {sub} {positionals[0] if positionals else ''} changes the repository")
    return ReadOnly(True, tuple(paths))


# ---- others


def _date(argv: Sequence[Word]) -> ReadOnly:
    result = scan(argv, _s("-d --date -f --file -r --reference --rfc-3339"))
    if result.unresolved:
        return ReadOnly(False, (), "an argument the analyser cannot resolve")
    if _forbidden_hit(result.options, _s("-s --set")) or any(not w.text.startswith("+") for w in result.operands):
        return ReadOnly(False, (), "date can set the clock")
    return ReadOnly(
        True, tuple((v, "read") for n, v in result.options if n in ("-f", "--file", "-r", "--reference") and v)
    )


def _hostname(argv: Sequence[Word]) -> ReadOnly:
    if any(not w.text.startswith("-") or w.text in ("-F", "--file", "-b", "--boot") for w in argv[1:]):
        return ReadOnly(False, (), "hostname can set the host name")
    return ReadOnly(True)


def _command_lookup(argv: Sequence[Word]) -> ReadOnly:
    if len(argv) > 1 and argv[1].text in ("-v", "-V"):
        return ReadOnly(True)
    return NOT


CUSTOM: dict[str, Callable[[Sequence[Word]], ReadOnly]] = {
    "find": _find,
    "sed": _sed,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "nawk": _awk,
    "jq": _jq,
    "git": _git,
    "date": _date,
    "hostname": _hostname,
    "command": _command_lookup,
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
    return _by_spec(argv, spec)


# ---------------------------------------------------------------------------- writers

_WRITERS: dict[str, frozenset[str]] = {
    "rm": frozenset(),
    "rmdir": frozenset(),
    "unlink": frozenset(),
    "shred": _s("-n --iterations -s --size --random-source"),
    "mkdir": _s("-m --mode --context"),
    "touch": _s("-r --reference -d --date -t"),
    "tee": frozenset(),
    "mv": _s("-t --target-directory -S --suffix"),
    "ln": _s("-t --target-directory -S --suffix"),
}
# options of otherwise read-only commands that name a file they write
_OUTPUT_OPTIONS: dict[str, frozenset[str]] = {
    "sort": _s("-o --output"),
    "tree": _s("-o"),
    "base64": _s("-o --output"),
    "git": _s("--output"),
}


# commands whose arguments name files (read, written, searched): an argument the analyser cannot read there
# is a file it cannot check
FILE_NAMING: frozenset[str] = (
    frozenset(n for n, spec in SPECS.items() if spec.operands != "none" or spec.path_options or spec.forbidden)
    | frozenset(CUSTOM)
    | frozenset(ALIASES)
    | frozenset(_WRITERS)
    | frozenset(_OUTPUT_OPTIONS)
    | _s("chmod chown chgrp cp install truncate dd curl wget tar zip unzip rsync scp ln printf")
)


def follows_links(argv: Sequence[Word]) -> bool:
    """Whether a command that reads folders recursively follows the links it meets (`grep -R`, `rg -L`, `cp -rL`)."""
    if not argv or not argv[0].resolved:
        return False
    verdict = read_only(argv)
    if verdict.read_only:
        return verdict.follows_links
    return argv[0].text == "cp" and any(w.text in ("-L", "--dereference") for w in argv[1:])


def touched_paths(argv: Sequence[Word]) -> tuple[tuple[Word, Direction], ...]:
    """Files a command's own arguments read or write: read-only commands and common writers."""
    if not argv or not argv[0].resolved:
        return ()
    name = ALIASES.get(argv[0].text, argv[0].text)
    verdict = read_only(argv)
    if verdict.read_only:
        return verdict.paths
    if name in _WRITERS:
        result = scan(argv, _WRITERS[name])
        targets = [v for n, v in result.options if n in ("-t", "--target-directory") and v is not None]
        return tuple((w, "write") for w in (*result.operands, *targets))
    if name in _OUTPUT_OPTIONS:
        found: list[tuple[Word, Direction]] = []
        options = _OUTPUT_OPTIONS[name]
        for index, word in enumerate(argv[1:], start=1):
            option, eq, value = word.text.partition("=")
            if option in options and eq:
                found.append((Word(value, value, word.mask[len(option) + 1 :], word.resolved), "write"))
            elif option in options and index + 1 < len(argv):
                found.append((argv[index + 1], "write"))
            elif name != "git" and word.text.startswith("-o") and len(word.text) > 2 and "-o" in options:
                found.append((Word(word.text[2:], word.text[2:], word.mask[2:], word.resolved), "write"))
        return tuple(found)
    if name in ("chmod", "chown", "chgrp"):
        result = scan(argv, _s("--reference --from"))
        operands = result.operands if any(n == "--reference" for n, _ in result.options) else result.operands[1:]
        return tuple((w, "write") for w in operands)
    if name in ("cp", "install"):
        result = scan(
            argv,
            _s("-t --target-directory -S --suffix -m --mode -o --owner -g --group --reflink --sparse --backup"),
        )
        target = [v for n, v in result.options if n in ("-t", "--target-directory") and v is not None]
        recursive = name == "cp" and any(n in ("-r", "-R", "--recursive", "-a", "--archive") for n, _ in result.options)
        source: Direction = "search" if recursive else "read"
        if target:
            return (*((w, source) for w in result.operands), (target[0], "write"))
        if len(result.operands) >= 2:
            return (*((w, source) for w in result.operands[:-1]), (result.operands[-1], "write"))
        return tuple((w, "write") for w in result.operands)
    if name == "truncate":
        result = scan(argv, _s("-s --size -r --reference"))
        return tuple((w, "write") for w in result.operands)
    if name == "dd":
        found = []
        for word in argv[1:]:
            if word.text.startswith("of="):
                found.append((Word(word.text[3:], word.text[3:], word.mask[3:], word.resolved), "write"))
            elif word.text.startswith("if="):
                found.append((Word(word.text[3:], word.text[3:], word.mask[3:], word.resolved), "read"))
        return tuple(found)
    if name == "sed":
        call = sed_call(argv)
        return tuple((w, "write" if call.in_place else "read") for w in call.files if w.text != "-")
    if name in ("curl", "wget"):
        result = scan(
            argv,
            _s(
                "-o --output -O --output-document -P --directory-prefix -d --data -H --header -X "
                "--request -u --user -A --user-agent -e --referer -T --upload-file -F --form -b --cookie "
                "-c --cookie-jar -w --write-out -m --max-time --connect-timeout"
            ),
        )
        out: list[tuple[Word, Direction]] = []
        for flag, argument in result.options:
            if argument is None:
                continue
            if flag in ("-o", "--output", "--output-document", "-c", "--cookie-jar", "-P", "--directory-prefix") or (
                flag == "-O" and name == "wget"
            ):
                out.append((argument, "write"))
            elif flag in ("-T", "--upload-file"):
                out.append((argument, "read"))
        return tuple(out)
    return ()


# ---------------------------------------------------------------------------- command facts

_DESTRUCTIVE = frozenset(
    {
        "rm",
        "rmdir",
        "shred",
        "dd",
        "mkfs",
        "wipefs",
        "fdisk",
        "sfdisk",
        "parted",
        "truncate",
        "kill",
        "killall",
        "pkill",
        "reboot",
        "shutdown",
        "halt",
        "poweroff",
        "srm",
        "unlink",
        "crontab",
        "chown",
        "userdel",
        "sudo",
        "doas",
        "su",
    }
)


def is_destructive(argv: Sequence[Word]) -> bool:
    """Commands never offered as an "always allow" rule: deleting, overwriting, force-pushing..."""
    if not argv:
        return False
    name = argv[0].text
    texts = [w.text for w in argv[1:]]
    if name in _DESTRUCTIVE or name.startswith("mkfs"):
        return True
    if name in ("chmod", "chgrp") and any(t in ("-R", "--recursive") for t in texts):
        return True
    if name == "find" and any(t in ("-delete", "-exec", "-execdir") for t in texts):
        return True
    if name == "git" and texts:
        sub = next((t for t in texts if not t.startswith("-")), "")
        rest = texts[texts.index(sub) + 1 :] if sub in texts else []
        if sub == "push" and any(
            t in ("-f", "--force", "--mirror", "--delete", "-d")
            or t.startswith("--force")
            or t.startswith("+")
            or t.startswith(":")
            for t in rest
        ):
            return True
        if sub == "reset" and "--hard" in rest:
            return True
        if sub in ("clean", "filter-branch", "filter-repo", "gc", "prune", "update-ref"):
            return True
        if sub in ("checkout", "restore") and ("." in rest or "--" in rest or "-f" in rest or "--force" in rest):
            return True
        if sub == "branch" and any(t in ("-D", "-d", "--delete", "-f", "--force") for t in rest):
            return True
        if sub == "stash" and rest[:1] in (["drop"], ["clear"]):
            return True
        if sub == "rebase" or (sub == "reflog" and rest[:1] in (["expire"], ["delete"])):
            return True
    if name in ("docker", "podman") and any(t in ("rm", "rmi", "prune", "kill") for t in texts[:3]):
        return True
    if name == "kubectl" and texts[:1] == ["delete"]:
        return True
    if name == "terraform" and texts[:1] in (["destroy"], ["apply"]):
        return True
    return name in ("npm", "yarn", "pnpm") and texts[:1] == ["publish"]


_MUST_FINISH_GIT = frozenset(
    {
        "commit",
        "push",
        "pull",
        "merge",
        "rebase",
        "cherry-pick",
        "revert",
        "am",
        "apply",
        "stash",
        "fetch",
        "clone",
        "checkout",
        "switch",
        "reset",
        "tag",
        "mv",
        "rm",
        "gc",
        "submodule",
        "worktree",
        "filter-branch",
    }
)
_INSTALLERS: dict[str, frozenset[str]] = {
    "npm": _s("install i ci add uninstall remove rm update up publish link"),
    "yarn": _s("install add remove upgrade up publish"),
    "pnpm": _s("install i add remove rm update up publish"),
    "bun": _s("install i add remove update"),
    "pip": _s("install uninstall download"),
    "pip3": _s("install uninstall download"),
    "uv": _s("sync add remove pip lock tool"),
    "poetry": _s("install add remove update lock"),
    "cargo": _s("install add remove update publish uninstall"),
    "go": _s("get install mod"),
    "gem": _s("install uninstall update"),
    "bundle": _s("install update"),
    "composer": _s("install require update remove"),
    "apt": _s("install remove purge upgrade dist-upgrade autoremove"),
    "apt-get": _s("install remove purge upgrade dist-upgrade autoremove"),
    "dnf": _s("install remove upgrade update"),
    "yum": _s("install remove update"),
    "brew": _s("install uninstall upgrade update reinstall"),
    "conda": _s("install remove update create"),
    "mamba": _s("install remove update create"),
}


def must_not_interrupt(argv: Sequence[Word]) -> bool:
    """Commands that leave a mess when killed half way: commits, pushes, merges, installs, migrations."""
    if not argv:
        return False
    name = argv[0].text
    texts = [w.text for w in argv[1:]]
    sub = next((t for t in texts if not t.startswith("-")), "")
    if name == "git":
        return sub in _MUST_FINISH_GIT
    if name in _INSTALLERS:
        return sub in _INSTALLERS[name]
    if name in ("python", "python3") and texts[:2] == ["-m", "pip"]:
        return len(texts) > 2 and texts[2] in ("install", "uninstall")
    return name in ("dd", "rsync", "terraform", "alembic", "flyway") or (name == "make" and "install" in texts)
