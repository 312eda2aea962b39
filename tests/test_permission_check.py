"""`handrail permissions check`: one decision, or one per JSON line, loaded like the server does."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from handrail.permission_check import run_check


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("HANDRAIL_STATE_DIR", raising=False)


def _workspace(tmp_path: Path, settings: dict[str, object] | None = None) -> Path:
    root = tmp_path / "ws"
    (root / ".handrail").mkdir(parents=True)
    if settings is not None:
        (root / ".handrail" / "settings.json").write_text(json.dumps(settings))
    return root


def _check(root: Path, *args: str, mode: str | None = None, trusted: bool = False) -> dict[str, object]:
    out = io.StringIO()
    tool, raw = args
    assert run_check(cwd=root, mode=mode, trusted=trusted, jsonl=False, tool=tool, input_json=raw,  # type: ignore[arg-type]
                     stdout=out) == 0
    result: dict[str, object] = json.loads(out.getvalue())
    return result


def test_project_allow_needs_trust(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"permissions": {"allow": ["Bash(make test)"], "deny": ["Bash(rm:*)"]}})
    command = json.dumps({"command": "make test"})
    assert _check(root, "Bash", command)["behavior"] == "ask"
    assert _check(root, "Bash", command, trusted=True)["behavior"] == "allow"
    denied = _check(root, "Bash", json.dumps({"command": "rm -rf build"}))
    assert denied["behavior"] == "deny" and "Bash(rm:*)" in denied["reason"]["message"]  # type: ignore[index]


def test_mode_and_unknown_tools(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    edit = json.dumps({"file_path": str(root / "a.txt"), "old_string": "a", "new_string": "b"})
    planned = _check(root, "Edit", edit, mode="plan")
    assert planned["behavior"] == "deny" and planned["reason"]["type"] == "mode"  # type: ignore[index]
    assert _check(root, "Teleport", "{}")["behavior"] == "deny"
    assert _check(root, "Read", json.dumps({"file_path": str(root / "x")}))["behavior"] == "allow"


def test_agent_rules_name_the_agent_type_under_either_name(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"permissions": {"deny": ["Agent(Explore)"]}})
    explore = json.dumps({"description": "look", "prompt": "find it", "subagent_type": "Explore"})
    denied = _check(root, "Task", explore)
    assert denied["behavior"] == "deny" and denied["reason"]["rule"] == "Agent(Explore)"  # type: ignore[index]
    assert _check(root, "Agent", explore)["behavior"] == "deny"
    assert _check(root, "Agent", json.dumps({"description": "d", "prompt": "p"}))["behavior"] == "allow"


def test_jsonl_through_the_console_script(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"permissions": {"deny": ["Read(./secret.env)"]}})
    lines = "\n".join([
        json.dumps({"tool": "Read", "input": {"file_path": str(root / "secret.env")}}),
        json.dumps({"tool": "Read", "input": {"file_path": str(root / "ok.txt")}}),
        "not json",
    ])
    handrail = Path(sys.executable).parent / "handrail"
    done = subprocess.run(
        [str(handrail), "permissions", "check", "--cwd", str(root), "--jsonl"],
        input=lines, capture_output=True, text=True, timeout=60, check=True,
    )
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r.get("behavior") for r in results] == ["deny", "allow", None]
    assert "error" in results[2]
