"""awk: whether a program runs commands, writes files or reads beyond its operands, and the call's files."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from handrail.permissions.bash.model import Word
from handrail.permissions.bash.options import option_set, scan
from handrail.permissions.bash.readonly.verdict import UNRESOLVED, ReadOnly, reads_files

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
_AWK_WRITING_OPTIONS = option_set("-o --pretty-print -p --profile -d --dump-variables -D --debug")


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
        option_set("-F --field-separator -v --assign -f --file -E --exec -i --include -l --load -e --source -W"),
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


def awk_read_only(argv: Sequence[Word]) -> ReadOnly:
    """awk reads its files unless its program (which must be visible) runs, writes or reads beyond them."""
    call = awk_call(argv)
    if call.unresolved:
        return UNRESOLVED
    if call.program_file or call.extension or call.program is None:
        return ReadOnly(False, (), "awk runs a program the analyser cannot see")
    runs, writes = awk_program(call.program.text)
    if runs or writes or call.writes:
        return ReadOnly(False, (), "the awk program runs commands or writes files")
    if awk_reads_more(call.program.text) or {"ARGV", "ARGC"} & set(call.assigns):
        return ReadOnly(False, (), "the awk program reads files or the environment beyond its operands")
    return reads_files(call.files)
