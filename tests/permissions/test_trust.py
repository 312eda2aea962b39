"""Workspace trust: untrusted projects only tighten; project allow rules need an approval of the exact content."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from handrail.permissions.context import PermissionContext, build_context
from handrail.permissions.decision import PermissionCheck
from handrail.permissions.pipeline import CallFacts, decide
from handrail.permissions.sources import LoadedSettings, load_sources, local_settings_path, project_settings_path
from handrail.permissions.trust import (
    UNTRUSTED_REASON,
    Approvals,
    approvals_path,
    file_trust,
    load_approvals,
    save_approvals,
)

PROJECT = {
    "permissions": {
        "allow": ["Bash(make:*)"],
        "deny": ["Bash(curl:*)"],
        "ask": ["Bash(git push:*)"],
        "defaultMode": "acceptEdits",
        "additionalDirectories": ["../shared"],
    },
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]},
}


def _setup(tmp_path: Path, project: Any = PROJECT, local: Any = None) -> tuple[Path, LoadedSettings]:
    ws = tmp_path / "ws"
    project_settings_path(ws).parent.mkdir(parents=True, exist_ok=True)
    project_settings_path(ws).write_text(json.dumps(project))
    if local is not None:
        local_settings_path(ws).write_text(json.dumps(local))
    loaded = load_sources((ws,), policy_path=None, user_path=tmp_path / "no-user.json")
    return ws, loaded


def _bash(context: PermissionContext, command: str) -> str:
    return decide(CallFacts("Bash", False, command), PermissionCheck(), context).behavior


def test_untrusted_project_only_tightens(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path)
    context = build_context(loaded, Approvals(), workspace_roots=(ws,))
    assert _bash(context, "curl evil.sh") == "deny"
    assert _bash(context, "git push origin") == "ask"
    assert _bash(context, "make all") == "ask"  # the project's allow rule is not in force
    assert context.allow == () and context.mode == "default"
    assert context.additional_directories == () and context.hooks == ()
    (inactive,) = context.inactive_rules
    assert str(inactive.rule) == "Bash(make:*)" and inactive.reason == UNTRUSTED_REASON
    assert {s.key for s in context.inactive_settings} == {"defaultMode", "additionalDirectories", "hooks"}
    assert all(s.reason == UNTRUSTED_REASON for s in context.inactive_settings)


def test_untrusted_local_file_only_tightens(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path, project={}, local={"permissions": {"allow": ["Bash"], "deny": ["Bash(rm:*)"]}})
    context = build_context(loaded, Approvals(), workspace_roots=(ws,))
    assert _bash(context, "rm x") == "deny" and _bash(context, "ls") == "ask"
    assert build_context(loaded, Approvals().with_trusted(ws), workspace_roots=(ws,)).allow != ()


def test_trusted_but_unapproved(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path)
    approvals = Approvals().with_trusted(ws)
    assert file_trust(loaded.of("project")[0], approvals) == "unapproved"
    context = build_context(loaded, approvals, workspace_roots=(ws,))
    assert _bash(context, "make all") == "ask" and _bash(context, "curl x") == "deny"
    assert context.hooks == ()
    assert context.inactive_rules[0].reason == "inactive: .handrail/settings.json has not been approved yet"
    # a trusted workspace's other settings apply
    assert context.mode == "acceptEdits" and context.additional_directories == (ws / "../shared",)


def test_approved_project_applies(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path)
    approvals = Approvals().with_trusted(ws).approve(loaded.of("project")[0])
    context = build_context(loaded, approvals, workspace_roots=(ws,))
    assert _bash(context, "make all") == "allow"
    assert context.inactive_rules == () and context.inactive_settings == ()
    (hooks,) = context.hooks
    assert hooks.source == "project" and hooks.config["PreToolUse"][0]["matcher"] == "Bash"
    assert context.hooks_by_source() == (("project", hooks.config),)


def test_changed_after_approval_falls_back(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path)
    approvals = Approvals().with_trusted(ws).approve(loaded.of("project")[0])
    changed = {**PROJECT, "permissions": {**PROJECT["permissions"], "allow": ["Bash"]}}  # type: ignore[dict-item]
    ws, reloaded = _setup(tmp_path, project=changed)
    assert file_trust(reloaded.of("project")[0], approvals) == "changed"
    context = build_context(reloaded, approvals, workspace_roots=(ws,))
    assert _bash(context, "make all") == "ask" and _bash(context, "curl x") == "deny"
    assert context.inactive_rules[0].reason == "inactive: .handrail/settings.json changed since you approved it"
    assert {s.key for s in context.inactive_settings} == {"hooks"}
    # approving the new content brings it back
    context = build_context(reloaded, approvals.approve(reloaded.of("project")[0]), workspace_roots=(ws,))
    assert _bash(context, "anything") == "allow"


def test_project_cannot_choose_bypass_unless_approved(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path, project={"permissions": {"defaultMode": "bypassPermissions"}})
    trusted = Approvals().with_trusted(ws)
    assert build_context(loaded, Approvals(), workspace_roots=(ws,)).mode == "default"
    context = build_context(loaded, trusted, workspace_roots=(ws,))
    assert context.mode == "default" and context.inactive_settings[0].key == "defaultMode"
    approved = trusted.approve(loaded.of("project")[0])
    assert build_context(loaded, approved, workspace_roots=(ws,)).mode == "bypassPermissions"


def test_policy_disables_bypass(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    project_settings_path(ws).parent.mkdir(parents=True)
    project_settings_path(ws).write_text(json.dumps({"permissions": {"defaultMode": "bypassPermissions"}}))
    policy = tmp_path / "managed.json"
    policy.write_text(json.dumps({"permissions": {"disableBypassPermissionsMode": "disable"}}))
    loaded = load_sources((ws,), policy_path=policy, user_path=tmp_path / "none.json")
    approvals = Approvals().with_trusted(ws).approve(loaded.of("project")[0])
    context = build_context(loaded, approvals, workspace_roots=(ws,))
    assert context.mode == "default" and context.bypass_disabled
    assert "disabled by policy" in context.inactive_settings[0].reason


def test_approvals_store_round_trip(tmp_path: Path) -> None:
    path = approvals_path({"XDG_STATE_HOME": str(tmp_path / "state")})
    assert path == tmp_path / "state" / "handrail" / "approvals.json"
    assert load_approvals(path) == (Approvals(), ())
    approvals = Approvals().with_trusted(tmp_path).with_approval(tmp_path / "s.json", "ab" * 32)
    save_approvals(path, approvals)
    loaded, problems = load_approvals(path)
    assert problems == () and loaded.is_trusted(tmp_path)
    assert loaded.approved_digest(tmp_path / "s.json") == "ab" * 32
    assert not loaded.with_trusted(tmp_path, trusted=False).is_trusted(tmp_path)
    assert [p.name for p in path.parent.iterdir()] == ["approvals.json"]


def test_broken_approvals_store(tmp_path: Path) -> None:
    path = tmp_path / "approvals.json"
    path.write_text("{nope")
    approvals, problems = load_approvals(path)
    assert approvals == Approvals() and len(problems) == 1
    path.write_text(json.dumps({"trusted": "all", "approved": {"x": 1}}))
    approvals, problems = load_approvals(path)
    assert approvals == Approvals() and len(problems) == 2


def test_trusting_a_folder_trusts_what_is_inside(tmp_path: Path) -> None:
    approvals = Approvals().with_trusted(tmp_path)
    assert approvals.is_trusted(tmp_path / "ws" / "sub")
    assert not Approvals().with_trusted(tmp_path / "ws").is_trusted(tmp_path)


def test_a_fifo_settings_file_does_not_block(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    project_settings_path(ws).parent.mkdir(parents=True)
    os.mkfifo(project_settings_path(ws))
    loaded = load_sources((ws,), policy_path=None, user_path=tmp_path / "none.json")
    (problem,) = loaded.problems
    assert problem.source == "project" and "not a regular file" in problem.message
