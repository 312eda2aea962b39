"""jq: whether a program runs, imports or reads the environment, and the call's files."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from handrail.permissions.bash.model import Word
from handrail.permissions.bash.options import option_set, scan
from handrail.permissions.bash.readonly.verdict import UNRESOLVED, ReadOnly, reads_files

_JQ_FILE_OPTIONS = option_set("-f --from-file --rawfile --slurpfile -L --library-path")
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
        option_set("--indent -f --from-file -L --library-path"),
        two_valued=option_set("--arg --argjson --slurpfile --rawfile"),
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


def jq_read_only(argv: Sequence[Word]) -> ReadOnly:
    """jq reads its files unless it loads a program or data from files, or its program runs, imports or reads
    the environment."""
    call = jq_call(argv)
    if call.unresolved:
        return UNRESOLVED
    if call.file_options:
        return ReadOnly(False, (), f"jq {call.file_options[0]} reads a program or data from a file")
    if call.program is not None:
        runs, imports = jq_program(call.program.text)
        if runs or imports:
            return ReadOnly(False, (), "the jq program runs or imports something")
        if _JQ_ENV.search(call.program.text):
            return ReadOnly(False, (), "the jq program reads the environment")
    return reads_files(call.files)
