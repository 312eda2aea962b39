"""Who may turn auto mode on: the user, policy or the cli; never a file that comes with the workspace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handrail.permissions.context import AUTO_FROM_WORKSPACE_REASON, build_context
from handrail.permissions.decision import PermissionCheck
from handrail.permissions.pipeline import CallFacts, decide
from handrail.permissions.sources import SourceName, load_sources, local_settings_path, project_settings_path
from handrail.permissions.trust import Approvals
from tests.permissions.support import trusting

AUTO = {"permissions": {"defaultMode": "auto"}}


@pytest.mark.parametrize("source", ["project", "local"])
def test_workspace_files_cannot_turn_auto_mode_on_even_approved(tmp_path: Path, source: SourceName) -> None:
    ws = tmp_path / "ws"
    path = project_settings_path(ws) if source == "project" else local_settings_path(ws)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(AUTO))
    loaded = load_sources((ws,), policy_path=None, user_path=tmp_path / "none.json")
    approvals = trusting(ws).approve(loaded.of(source)[0])
    context = build_context(loaded, approvals, workspace_roots=(ws,))
    assert context.mode == "default"
    (inactive,) = context.inactive_settings
    assert (inactive.source, inactive.key, inactive.reason) == (source, "defaultMode", AUTO_FROM_WORKSPACE_REASON)
    assert inactive.path == path


def test_a_workspace_auto_does_not_hide_the_users_mode(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    project_settings_path(ws).parent.mkdir(parents=True)
    project_settings_path(ws).write_text(json.dumps(AUTO))
    user = tmp_path / "user.json"
    user.write_text(json.dumps({"permissions": {"defaultMode": "acceptEdits"}}))
    loaded = load_sources((ws,), policy_path=None, user_path=user)
    context = build_context(loaded, trusting(ws), workspace_roots=(ws,))
    assert context.mode == "acceptEdits"


@pytest.mark.parametrize("where", ["user", "policy", "cli"])
def test_user_policy_and_cli_may_turn_auto_mode_on(tmp_path: Path, where: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    file = tmp_path / "settings.json"
    file.write_text(json.dumps(AUTO))
    loaded = load_sources(
        (ws,),
        policy_path=file if where == "policy" else None,
        user_path=file if where == "user" else tmp_path / "none.json",
        cli=AUTO if where == "cli" else None,
    )
    context = build_context(loaded, Approvals(), workspace_roots=(ws,))
    assert context.mode == "auto" and context.inactive_settings == ()


def test_the_pipeline_asks_in_auto_mode_as_in_default_mode(tmp_path: Path) -> None:
    loaded = load_sources((tmp_path,), policy_path=None, user_path=tmp_path / "none.json", cli=AUTO)
    context = build_context(loaded, Approvals(), workspace_roots=(tmp_path,))
    decision = decide(CallFacts("Bash", False, "touch made.txt"), PermissionCheck(), context)
    assert decision.behavior == "ask" and decision.reason.type == "default"
