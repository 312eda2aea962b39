"""The labelled corpus through `handrail permissions check --jsonl`: the CLI (settings, pipeline, Bash's
check) and the analyser agree on every labelled command.

Rows are grouped by their rules; each group gets a workspace whose settings file holds them,
and its commands go through the CLI's JSON-lines mode (its body, `run_check`) in one run. One group also goes
through the installed console script, so the real entry point is covered.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from handrail.permission_check import run_check
from tests.permissions.bash.test_corpus import CORPUS

RuleSet = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def _groups() -> dict[RuleSet, list[dict[str, Any]]]:
    groups: dict[RuleSet, list[dict[str, Any]]] = {}
    for row in CORPUS:
        groups.setdefault((tuple(row["allow"]), tuple(row["deny"]), tuple(row["ask"])), []).append(row)
    return groups


def _rule(spec: str) -> str:
    return spec if spec.startswith("Bash") else f"Bash({spec})"


def _workspace(base: Path, index: int, rules: RuleSet) -> Path:
    root = base / f"ws{index}"
    (root / ".handrail").mkdir(parents=True)
    allow, deny, ask = ([_rule(s) for s in specs] for specs in rules)
    settings = {"permissions": {"allow": allow, "deny": deny, "ask": ask}}
    (root / ".handrail" / "settings.local.json").write_text(json.dumps(settings))
    return root


def _lines(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps({"tool": "Bash", "input": {"command": row["command"]}}) + "\n" for row in rows)


def _mismatch(row: dict[str, Any], result: dict[str, Any]) -> str | None:
    behavior, expect = result.get("behavior"), row["expect"]
    agrees = behavior != "allow" if expect == "not_allow" else behavior == expect
    return None if agrees else f"{expect} expected, CLI said {behavior}: {row['command']!r} ({row['note']}) {result}"


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No user settings or state from the machine; `~` is a fresh home."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("HANDRAIL_STATE_DIR", raising=False)
    return tmp_path


def test_every_labelled_command_through_the_cli(isolated: Path) -> None:
    mismatches: list[str] = []
    checked = 0
    for index, (rules, rows) in enumerate(_groups().items()):
        root = _workspace(isolated, index, rules)
        out = io.StringIO()
        code = run_check(
            cwd=root, mode=None, trusted=True, jsonl=True, tool=None, input_json=None,
            stdin=io.StringIO(_lines(rows)), stdout=out,
        )  # fmt: skip
        assert code == 0
        results = [json.loads(line) for line in out.getvalue().splitlines()]
        assert len(results) == len(rows)
        mismatches += [m for row, result in zip(rows, results, strict=True) if (m := _mismatch(row, result))]
        checked += len(rows)
    assert checked == len(CORPUS)
    assert not mismatches, "\n".join(mismatches)


def test_a_group_through_the_console_script(isolated: Path) -> None:
    handrail = shutil.which("handrail", path=str(Path(sys.executable).parent))
    assert handrail is not None
    rules, rows = max(_groups().items(), key=lambda item: len(item[0][1]) * 1000 + len(item[1]))  # deny rules first
    root = _workspace(isolated, 0, rules)
    done = subprocess.run(
        [handrail, "permissions", "check", "--jsonl", "--trusted", "--cwd", str(root)],
        input=_lines(rows),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(results) == len(rows)
    assert not [m for row, result in zip(rows, results, strict=True) if (m := _mismatch(row, result))]
