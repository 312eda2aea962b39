"""Settings files: lenient loading, sources and their locations, precedence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from handrail.permissions.context import build_context
from handrail.permissions.rules import PermissionRule
from handrail.permissions.settings import parse_settings
from handrail.permissions.sources import (
    LoadedSettings,
    load_file,
    load_sources,
    local_settings_path,
    project_settings_path,
    user_settings_path,
)
from tests.permissions.support import session_source, trusting


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_full_file_is_read() -> None:
    settings, problems = parse_settings(
        json.dumps(
            {
                "permissions": {
                    "allow": ["Bash(npm test:*)"],
                    "deny": ["Read(./.env)"],
                    "ask": ["WebFetch"],
                    "defaultMode": "acceptEdits",
                    "additionalDirectories": ["../lib"],
                    "disableBypassPermissionsMode": "disable",
                },
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]},
                "model": "something else",
            }
        )
    )
    assert problems == ()
    p = settings.permissions
    assert (p.allow, p.deny, p.ask) == (("Bash(npm test:*)",), ("Read(./.env)",), ("WebFetch",))
    assert p.default_mode == "acceptEdits" and p.additional_directories == ("../lib",)
    assert p.disable_bypass_permissions_mode == "disable"
    assert settings.hooks is not None and "PreToolUse" in settings.hooks


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (b"\xff\xfe{", "not UTF-8"),
        ('{"permissions": []}', "'permissions' must be an object"),
        ('{"hooks": 3}', "'hooks' must be an object of lists"),
    ],
)
def test_broken_files_give_empty_settings_and_a_problem(text: str | bytes, message: str, tmp_path: Path) -> None:
    settings, problems = parse_settings(text, file=tmp_path / "s.json", source="user")
    assert settings.permissions.allow == () and settings.hooks is None
    assert len(problems) == 1 and message in problems[0].message
    assert problems[0].file == tmp_path / "s.json" and problems[0].source == "user"


def test_bad_parts_are_dropped_alone() -> None:
    settings, problems = parse_settings(
        {
            "permissions": {
                "allow": ["Bash(ls)", "Bash(", 3, "Edit"],
                "deny": "Bash",
                "ask": ["Read(~bob/x)"],
                "defaultMode": "yolo",
                "additionalDirectories": [1],
                "disableBypassPermissionsMode": "please",
                "alow": [],
            }
        }
    )
    assert settings.permissions.allow == ("Bash(ls)", "Edit")
    assert settings.permissions.deny == () and settings.permissions.ask == ()
    assert settings.permissions.default_mode is None
    bad_rules = {p.rule for p in problems if p.rule is not None}
    assert bad_rules == {"Bash(", "3", "Read(~bob/x)"}
    text = " | ".join(p.message for p in problems)
    for fragment in ("must be a list of rules", "defaultMode", "additionalDirectories", "disableBypass", "alow"):
        assert fragment in text
    assert any("at 5" in p.message for p in problems if p.rule == "Read(~bob/x)")


def test_empty_and_missing_files(tmp_path: Path) -> None:
    assert parse_settings("  ")[1] == ()
    missing = load_file(tmp_path / "nope.json", "user")
    assert not missing.exists and missing.problems == ()
    folder = load_file(tmp_path, "user")  # a folder where a file should be
    assert not folder.exists and len(folder.problems) == 1


def test_locations(tmp_path: Path) -> None:
    assert user_settings_path({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "handrail" / "settings.json"
    assert user_settings_path({"HOME": "/x"}).name == "settings.json"
    assert project_settings_path(tmp_path) == tmp_path / ".handrail" / "settings.json"
    assert local_settings_path(tmp_path) == tmp_path / ".handrail" / "settings.local.json"


def _load(tmp_path: Path, **files: Any) -> LoadedSettings:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    paths = {
        "policy": tmp_path / "etc" / "managed-settings.json",
        "user": tmp_path / "config" / "handrail" / "settings.json",
        "project": project_settings_path(ws),
        "local": local_settings_path(ws),
    }
    for name, data in files.items():
        if name in paths:
            _write(paths[name], data)
    return load_sources(
        (ws,),
        policy_path=paths["policy"],
        env={"XDG_CONFIG_HOME": str(tmp_path / "config")},
        cli=files.get("cli"),
        session=session_source(allow=files.get("session", ())),
    )


def _mode(mode: str) -> dict[str, Any]:
    return {"permissions": {"defaultMode": mode}}


def test_sources_come_in_precedence_order_and_rules_know_their_source(tmp_path: Path) -> None:
    loaded = _load(
        tmp_path,
        policy={"permissions": {"deny": ["Bash(curl:*)"]}},
        user={"permissions": {"allow": ["Bash(ls)"]}},
        project={"permissions": {"deny": ["Edit(/secret/**)"]}},
        local={"permissions": {"ask": ["WebFetch"]}},
        cli={"permissions": {"allow": ["Read"]}},
        session=["Bash(pwd)"],
    )
    assert [s.source for s in loaded.sources] == ["policy", "cli", "local", "project", "user", "session"]
    ws = tmp_path / "ws"
    (project_rule,) = loaded.of("project")[0].rules("deny")
    assert project_rule == PermissionRule("Edit", "/secret/**", "project", ws)
    assert loaded.of("user")[0].rules("allow")[0].source == "user"
    context = build_context(loaded, trusting(ws), workspace_roots=(ws,))
    assert {str(r) for r in context.allow} == {"Bash(ls)", "Read", "Bash(pwd)"}
    assert {(str(r), r.source) for r in context.deny} == {("Bash(curl:*)", "policy"), ("Edit(/secret/**)", "project")}


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"user": _mode("plan"), "session": ()}, "plan"),
        ({"user": _mode("plan"), "project": _mode("acceptEdits")}, "acceptEdits"),
        ({"project": _mode("acceptEdits"), "local": _mode("dontAsk")}, "dontAsk"),
        ({"local": _mode("dontAsk"), "cli": _mode("plan")}, "plan"),
        ({"cli": _mode("plan"), "policy": _mode("default")}, "default"),
        ({}, "default"),
    ],
)
def test_scalar_precedence(tmp_path: Path, files: dict[str, Any], expected: str) -> None:
    loaded = _load(tmp_path, **files)
    ws = tmp_path / "ws"
    approvals = trusting(ws)
    for source in (*loaded.of("project"), *loaded.of("local")):
        approvals = approvals.approve(source)
    assert build_context(loaded, approvals, workspace_roots=(ws,)).mode == expected


def test_problems_of_all_sources_are_collected(tmp_path: Path) -> None:
    loaded = _load(tmp_path, user="{oops", project={"permissions": {"allow": ["Bash("]}})
    assert [(p.source, p.rule) for p in loaded.problems] == [("project", "Bash("), ("user", None)]
    assert loaded.problems[1].file == tmp_path / "config" / "handrail" / "settings.json"


def test_additional_directories_are_relative_to_the_source_root(tmp_path: Path) -> None:
    loaded = _load(tmp_path, local={"permissions": {"additionalDirectories": ["../lib", "/abs"]}})
    ws = tmp_path / "ws"
    context = build_context(loaded, trusting(ws).approve(loaded.of("local")[0]), workspace_roots=(ws,))
    assert context.additional_directories == (ws / ".." / "lib", Path("/abs"))
    assert context.working_directories == (ws, ws / ".." / "lib", Path("/abs"))
