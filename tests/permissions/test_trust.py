"""Workspace trust: workspace files only tighten until trusted and approved, item by item, as shown."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from handrail.permissions.context import PermissionContext, build_context
from handrail.permissions.decision import PermissionCheck
from handrail.permissions.loosening import allow_item, loosenings
from handrail.permissions.pipeline import CallFacts, decide
from handrail.permissions.sources import LoadedSettings, load_sources, local_settings_path, project_settings_path
from handrail.permissions.trust import (
    UNTRUSTED_REASON,
    Approvals,
    approvals_path,
    believe,
    load_approvals,
    pending,
    save_approvals,
    with_rules_written,
)
from tests.permissions.support import trusting

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


def test_a_local_file_that_came_with_the_checkout_needs_approval_too(tmp_path: Path) -> None:
    local = {"permissions": {"allow": ["Bash"], "deny": ["Bash(rm:*)"], "defaultMode": "bypassPermissions"}}
    ws, loaded = _setup(tmp_path, project={}, local=local)
    context = build_context(loaded, Approvals(), workspace_roots=(ws,))
    assert _bash(context, "rm x") == "deny" and _bash(context, "ls") == "ask"
    trusted = trusting(ws)
    context = build_context(loaded, trusted, workspace_roots=(ws,))
    assert context.allow == () and context.mode == "default" and _bash(context, "rm x") == "deny"
    assert context.inactive_rules[0].reason == "inactive: .handrail/settings.local.json has not been approved yet"
    (source,) = loaded.of("local")
    assert [item.shown for item in pending(source, trusted)] == [
        "allow Bash", "defaultMode bypassPermissions: every call runs without asking",
    ]
    context = build_context(loaded, trusted.approve(source), workspace_roots=(ws,))
    assert context.mode == "bypassPermissions" and str(context.allow[0]) == "Bash"


def test_trusted_but_unapproved_loosens_nothing(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path)
    approvals = trusting(ws)
    context = build_context(loaded, approvals, workspace_roots=(ws,))
    assert _bash(context, "make all") == "ask" and _bash(context, "curl x") == "deny"
    assert _bash(context, "git push origin") == "ask"
    assert context.hooks == () and context.mode == "default" and context.additional_directories == ()
    assert context.inactive_rules[0].reason == "inactive: .handrail/settings.json has not been approved yet"
    held = {(s.key, s.value) for s in context.inactive_settings}
    assert ("defaultMode", "defaultMode acceptEdits: file edits in the working directories run without asking") in held
    assert any(key == "additionalDirectories" and value and "../shared" in value for key, value in held)
    assert ("hooks", "PreToolUse hook (for Bash) runs: true") in held
    assert all(s.digest for s in context.inactive_settings) and context.inactive_rules[0].digest


def test_stricter_modes_apply_at_once(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path, project={"permissions": {"defaultMode": "plan"}})
    assert build_context(loaded, Approvals(), workspace_roots=(ws,)).mode == "plan"
    assert pending(loaded.of("project")[0], trusting(ws)) == ()


def test_unknown_keys_are_held_back_until_approved(tmp_path: Path) -> None:
    project = {"$schema": "https://x", "env": {"PATH": "/evil"}, "permissions": {"futureGrant": ["everything"]}}
    ws, loaded = _setup(tmp_path, project=project)
    trusted = trusting(ws)
    (source,) = loaded.of("project")
    assert [item.shown for item in pending(source, trusted)] == [
        'permissions.futureGrant: ["everything"]', 'env: {"PATH": "/evil"}',
    ]
    context = build_context(loaded, trusted, workspace_roots=(ws,))
    assert {s.key for s in context.inactive_settings} == {"permissions.futureGrant", "env"}
    assert pending(source, trusted.with_items(source.path or ws, [i.digest for i in loosenings(source)])) == ()


def test_items_are_approved_one_by_one(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path)
    trusted = trusting(ws)
    (source,) = loaded.of("project")
    items = loosenings(source)
    make = next(i for i in items if i.kind == "allow")
    approved = trusted.with_items(ws / ".handrail" / "settings.json", [make.digest])
    context = build_context(loaded, approved, workspace_roots=(ws,))
    assert _bash(context, "make all") == "allow" and context.hooks == () and context.mode == "default"
    # the same rule in a changed file stays approved; a new rule waits
    changed = {**PROJECT, "permissions": {**PROJECT["permissions"], "allow": ["Bash(make:*)", "Bash"]}}  # type: ignore[dict-item]
    ws, reloaded = _setup(tmp_path, project=changed)
    context = build_context(reloaded, approved, workspace_roots=(ws,))
    assert _bash(context, "make all") == "allow" and _bash(context, "ls -la /") == "ask"
    assert {str(r.rule) for r in context.inactive_rules} == {"Bash"}
    assert context.inactive_rules[0].reason == "inactive: .handrail/settings.json changed since you approved it"


def test_writing_a_rule_approves_that_rule_alone(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path)
    trusted = trusting(ws)
    (before,) = loaded.of("project")
    written = with_rules_written(trusted, before, ["Bash(npm test:*)"])
    changed = {**PROJECT, "permissions": {**PROJECT["permissions"], "allow": ["Bash(make:*)", "Bash(npm test:*)"]}}  # type: ignore[dict-item]
    ws, reloaded = _setup(tmp_path, project=changed)
    context = build_context(reloaded, written, workspace_roots=(ws,))
    assert _bash(context, "npm test") == "allow" and _bash(context, "make all") == "ask"
    assert context.hooks == () and context.mode == "default"
    # written into a file approved as a whole, the rest stays approved
    whole = with_rules_written(trusted.approve(before), before, ["Bash(npm test:*)"])
    context = build_context(reloaded, whole, workspace_roots=(ws,))
    assert _bash(context, "npm test") == "allow" and _bash(context, "make all") == "allow"
    assert context.mode == "acceptEdits" and len(context.hooks) == 1
    assert allow_item("Bash(npm test:*)").digest in whole.approved_items(before.path or ws)


def test_belief_keeps_only_what_tightens_and_what_was_approved(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path)
    (source,) = loaded.of("project")
    belief = believe(source, trusting(ws))
    permissions = belief.source.settings.permissions
    assert permissions.deny == ("Bash(curl:*)",) and permissions.ask == ("Bash(git push:*)",)
    assert permissions.allow == () and permissions.default_mode is None and permissions.additional_directories == ()
    assert belief.source.settings.hooks is None and len(belief.held_back) == 4


def test_approved_project_applies(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path)
    approvals = trusting(ws).approve(loaded.of("project")[0])
    context = build_context(loaded, approvals, workspace_roots=(ws,))
    assert _bash(context, "make all") == "allow"
    assert context.inactive_rules == () and context.inactive_settings == ()
    (hooks,) = context.hooks
    assert hooks.source == "project" and hooks.config["PreToolUse"][0]["matcher"] == "Bash"
    assert context.hooks_by_source() == (("project", hooks.config),)


def test_changed_after_approval_falls_back(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path)
    approvals = trusting(ws).approve(loaded.of("project")[0])
    changed = {**PROJECT, "permissions": {**PROJECT["permissions"], "allow": ["Bash"]}}  # type: ignore[dict-item]
    ws, reloaded = _setup(tmp_path, project=changed)
    context = build_context(reloaded, approvals, workspace_roots=(ws,))
    assert _bash(context, "make all") == "ask" and _bash(context, "curl x") == "deny"
    assert context.inactive_rules[0].reason == "inactive: .handrail/settings.json changed since you approved it"
    # the approval was of the whole earlier content: nothing of the new one is in force
    assert {s.key for s in context.inactive_settings} == {"hooks", "defaultMode", "additionalDirectories"}
    # approving the new content brings it back
    context = build_context(reloaded, approvals.approve(reloaded.of("project")[0]), workspace_roots=(ws,))
    assert _bash(context, "anything") == "allow"


def test_project_cannot_choose_bypass_unless_approved(tmp_path: Path) -> None:
    ws, loaded = _setup(tmp_path, project={"permissions": {"defaultMode": "bypassPermissions"}})
    trusted = trusting(ws)
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
    approvals = trusting(ws).approve(loaded.of("project")[0])
    context = build_context(loaded, approvals, workspace_roots=(ws,))
    assert context.mode == "default" and context.bypass_disabled
    assert "disabled by policy" in context.inactive_settings[0].reason


def test_approvals_store_round_trip(tmp_path: Path) -> None:
    path = approvals_path({"XDG_STATE_HOME": str(tmp_path / "state")})
    assert path == tmp_path / "state" / "handrail" / "approvals.json"
    assert load_approvals(path) == (Approvals(), ())
    approvals = trusting(tmp_path).with_approval(tmp_path / "s.json", "ab" * 32)
    save_approvals(path, approvals)
    loaded, problems = load_approvals(path)
    assert problems == () and loaded.is_trusted(tmp_path)
    assert loaded.approved_digest(tmp_path / "s.json") == "ab" * 32
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
    approvals = trusting(tmp_path)
    assert approvals.is_trusted(tmp_path / "ws" / "sub")
    assert not trusting(tmp_path / "ws").is_trusted(tmp_path)


def test_a_fifo_settings_file_does_not_block(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    project_settings_path(ws).parent.mkdir(parents=True)
    os.mkfifo(project_settings_path(ws))
    loaded = load_sources((ws,), policy_path=None, user_path=tmp_path / "none.json")
    (problem,) = loaded.problems
    assert problem.source == "project" and "not a regular file" in problem.message
