"""sed: the commands a script uses (`e`, `w`, `r` and the `s` flags that run or write), and the call's files."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from handrail.permissions.bash.model import Word
from handrail.permissions.bash.options import option_set, scan
from handrail.permissions.bash.readonly.verdict import UNRESOLVED, ReadOnly, reads_files

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
    result = scan(argv, option_set("-e --expression -f --file -l --line-length"))
    in_place = any(name in ("-i", "--in-place", "-I") for name, _ in result.options)
    script_file = any(name in ("-f", "--file") for name, _ in result.options)
    scripts = [v for name, v in result.options if name in ("-e", "--expression") and v is not None]
    operands = list(result.operands)
    if not scripts and not script_file and operands:
        scripts.append(operands.pop(0))
    unresolved = result.unresolved or any(not w.resolved for w in scripts)
    return SedCall(in_place, script_file, tuple(scripts), tuple(operands), unresolved)


def sed_read_only(argv: Sequence[Word]) -> ReadOnly:
    """sed reads its files unless it edits in place, runs a script file, or its script runs, reads or writes."""
    call = sed_call(argv)
    if call.unresolved:
        return UNRESOLVED
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
    return reads_files(call.files)
