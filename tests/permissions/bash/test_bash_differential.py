"""Differential tests against a real bash: what the analyser reads must be what bash runs.

A script made only of calls to `p` (a function that prints its arguments) and shell syntax is
run by bash in an empty temporary directory; every call bash makes must be one the analyser
found, with the same argv, whenever the analyser raised no flag. This is how tree-sitter/bash
differences were found (a line that is only `\\`, words tree-sitter splits or joins, escaped
spaces it drops); the seeded random part keeps looking for more. Skipped without bash.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from handrail.permissions.bash.effective import expand
from handrail.permissions.bash.model import Word
from tests.permissions.bash.conftest import check

BASH = shutil.which("bash")
# one write per call, so calls running in the background do not interleave
PRELUDE = 'p() { local s=; for a in "$@"; do s+="$a"$\'\\037\'; done; printf \'%s\\036\' "$s"; }\n'

pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")

CURATED = [
    "p status\n\\\np -rf x",
    "p a \\\n b",
    "p a\\\nb",
    'p -""\\o out',
    "p ''\\ x",
    "p } {",
    "p ]\t]",
    "p ]$$",
    "p {-$ }",
    "p =~{",
    "p :``:",
    'p b""\\~',
    "p a; p b && p c || p d",
    "p 'a b' \"c d\" e\\ f",
    "p $'a\\tb'",
    "p \"a\\\"b\" 'c'\\''d'",
    "p x # p y",
    "p <<'E'\nbody $x\nE\np after",
    'p "$(p inner)"',
    "{ p a; p b; }",
    "(p a) | p b",
    "if p a; then p b; fi",
    "for i in 1 2; do p i; done",
    "p a & p b",
    "p a\rp b",
    "p {a,b}",
    "p x{1..2}",
    "p a#b",
    "p -<<'E'\nx\nE",
    "p <<<'a'\\x41'b'",
    "p \\\n! x",
    "p ~:",
    "p \\ x",
    "p ,\\\t{-\\:",
]

_PIECES = [
    "a", "b", "x y", "-", "=", ":", ",", ".", "!", "%", "@", "^", "~", "{", "}", "[", "]", "(", ")",
    "'", '"', "''", '""', "\\", "\\\n", "\n", " ", "\t", "$", "$x", "`", ";", "&", "|", "#", "*", "?",
    "$'\\x41'", "p ", "; p ", "\np ", " p",
]  # fmt: skip


def _run(script: str, tmp: Path) -> list[tuple[str, ...]] | None:
    assert BASH is not None
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp), "LC_ALL": "C"}
    try:
        done = subprocess.run(
            [BASH, "--norc", "--noprofile", "-c", PRELUDE + script],
            capture_output=True,
            timeout=5,
            cwd=tmp,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None
    calls = done.stdout.decode("utf-8", "replace").split("\x1e")[:-1]
    return [tuple(call.split("\x1f")[:-1]) for call in calls]


def _ours(script: str, home: Path) -> set[tuple[str, ...]] | None:
    """The calls of `p` the analyser found; None when bash would expand a wildcard or `~user`, or an argument is
    an expansion the analyser let through unread (`p:*` covers `p "$x"`): then there is nothing to compare."""

    def text(word: Word) -> str:
        if word.tilde and word.raw == word.text and (word.text == "~" or word.text.startswith("~/")):
            return str(home) + word.text[1:]  # bash expands `~`; the analyser keeps it and resolves paths
        return word.text

    calls = [e for e in expand(script).effectives if e.argv and e.argv[0].text == "p" and e.source.kind == "command"]
    if any(
        w.glob or not w.resolved or (w.tilde and not (w.text == "~" or w.text.startswith("~/")))
        for e in calls
        for w in e.argv
    ):
        return None
    return {tuple(text(w) for w in e.argv[1:]) for e in calls}


def _assert_bash_runs_nothing_unseen(script: str, tmp: Path) -> bool:
    """Returns whether the script was compared (flagged lines are skipped: they ask anyway)."""
    verdict = check(script, allow=["p:*"])
    if verdict.flagged or verdict.behavior == "deny":
        return False
    ours = _ours(script, tmp)
    if ours is None:
        return False
    with tempfile.TemporaryDirectory(dir=tmp) as fresh:  # no files for wildcards to match
        ran = _run(script, Path(fresh))
        if ran is None:
            return False
        ran = [tuple(arg.replace(fresh, str(tmp)) for arg in call) for call in ran]
    missing = set(ran) - ours  # loops run a call several times: compare as sets
    assert not missing, f"bash ran {sorted(missing)} that the analyser did not see in {script!r}"
    return True


@pytest.mark.parametrize("script", CURATED)
def test_curated_scripts(script: str, tmp_path: Path) -> None:
    _assert_bash_runs_nothing_unseen(script, tmp_path)


def test_random_scripts(tmp_path: Path) -> None:
    rng = random.Random(20261130)
    compared = 0
    for _ in range(400):
        body = "".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 10)))
        compared += _assert_bash_runs_nothing_unseen("p " + body, tmp_path)
    assert compared > 50  # the generator must still produce scripts the analyser accepts
