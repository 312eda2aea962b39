"""The decision pipeline: order of steps, modes, safety checks, dontAsk, failures, symlinks."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import MappingProxyType

import pytest

from handrail.permissions import protected
from handrail.permissions.context import PermissionContext, SourcedHooks
from handrail.permissions.decision import PermissionCheck, PermissionDecision
from handrail.permissions.modes import PermissionMode
from handrail.permissions.pipeline import CallFacts, decide, suggest_rules
from handrail.permissions.rules import PermissionRule, parse_rule


def _rules(*texts: str) -> tuple[PermissionRule, ...]:
    parsed = tuple(parse_rule(t, source="user") for t in texts)
    assert all(isinstance(r, PermissionRule) for r in parsed)
    return parsed  # type: ignore[return-value]


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def _ctx(ws: Path, mode: PermissionMode = "default", **rules: tuple[str, ...]) -> PermissionContext:
    return PermissionContext(
        workspace_roots=(ws,),
        mode=mode,
        **{k: _rules(*v) for k, v in rules.items()},  # type: ignore[arg-type]
    )


def _edit(path: Path) -> CallFacts:
    return CallFacts("Edit", False, str(path), (path,))


def _read(path: Path) -> CallFacts:
    return CallFacts("Read", True, str(path), (path,))


def _decide(facts: CallFacts, context: PermissionContext, check: PermissionCheck | None = None) -> PermissionDecision:
    return decide(facts, check or PermissionCheck(), context)


# ---------------------------------------------------------------- order of the steps


def test_tool_wide_deny_beats_everything(ws: Path) -> None:
    context = _ctx(ws, "bypassPermissions", deny=("Edit",), allow=("Edit(./**)",))
    decision = _decide(_edit(ws / "a"), context, PermissionCheck("allow"))
    assert decision.behavior == "deny" and decision.reason.rule == "Edit"
    assert _decide(CallFacts("Write", False, None, (ws / "a",)), context).behavior == "deny"


def test_tool_wide_ask_beats_the_tool_and_the_mode(ws: Path) -> None:
    context = _ctx(ws, "bypassPermissions", ask=("Bash",))
    assert _decide(CallFacts("Bash", False, "ls"), context, PermissionCheck("allow")).behavior == "ask"


def test_tool_deny_beats_allow_rules_and_modes(ws: Path) -> None:
    context = _ctx(ws, "bypassPermissions", allow=("Bash",))
    decision = _decide(CallFacts("Bash", False, "ls"), context, PermissionCheck("deny", "no"))
    assert decision.behavior == "deny" and decision.reason.type == "tool" and decision.reason.message == "no"


def test_content_deny_and_ask_beat_modes(ws: Path) -> None:
    context = _ctx(ws, "bypassPermissions", deny=("Edit(./secret/**)",), ask=("Bash(git push:*)",))
    assert _decide(_edit(ws / "secret" / "k"), context).behavior == "deny"
    assert _decide(CallFacts("Bash", False, "git push -f"), context).behavior == "ask"
    assert _decide(CallFacts("Bash", False, "ls && git push"), context).behavior == "ask"
    assert _decide(_edit(ws / "a"), context).behavior == "allow"


def test_deny_from_any_source_wins_then_ask_then_allow(ws: Path) -> None:
    context = PermissionContext(
        workspace_roots=(ws,),
        allow=(PermissionRule("Bash", "npm:*", "policy"),),
        ask=(PermissionRule("Bash", "npm publish:*", "user"),),
        deny=(PermissionRule("Bash", "npm publish --force", "session"),),
    )
    assert _decide(CallFacts("Bash", False, "npm test"), context).behavior == "allow"
    assert _decide(CallFacts("Bash", False, "npm publish"), context).behavior == "ask"
    decision = _decide(CallFacts("Bash", False, "npm publish --force"), context)
    assert decision.behavior == "deny" and "(session)" in decision.reason.message


def test_compound_commands_need_every_part_allowed(ws: Path) -> None:
    context = _ctx(ws, allow=("Bash(npm test:*)", "Bash(git status)"))
    assert _decide(CallFacts("Bash", False, "npm test && git status"), context).behavior == "allow"
    assert _decide(CallFacts("Bash", False, "npm test && rm -rf /"), context).behavior == "ask"
    assert _decide(CallFacts("Bash", False, "npm test $(rm -rf /)"), context).behavior == "ask"


def test_tool_ask_is_overridden_by_a_tool_wide_allow_only(ws: Path) -> None:
    check = PermissionCheck("ask", "looks risky")
    assert _decide(CallFacts("Bash", False, "ls"), _ctx(ws, allow=("Bash(ls)",)), check).behavior == "ask"
    assert _decide(CallFacts("Bash", False, "ls"), _ctx(ws, allow=("Bash",)), check).behavior == "allow"


def test_tool_allow_and_read_only_default(ws: Path) -> None:
    assert _decide(CallFacts("Task", False), _ctx(ws), PermissionCheck("allow", "fine")).behavior == "allow"
    assert _decide(_read(ws / "a"), _ctx(ws)).reason.type == "read_only_in_workspace"
    decision = _decide(_read(ws.parent / "b"), _ctx(ws))
    assert (decision.behavior, decision.reason.type) == ("ask", "outside_workspace")
    assert _decide(CallFacts("Task", False), _ctx(ws)).reason.type == "default"


# ---------------------------------------------------------------- safety checks


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
@pytest.mark.parametrize(
    "target",
    [
        "ws/.git/config", "ws/.handrail/settings.json", "home/.bashrc", "home/.zshrc", "ws/.vscode/tasks.json",
        "ws/.idea/workspace.xml", "ws/.mcp.json", "ws/.gitmodules", "ws/.husky/pre-commit", "ws/.envrc",
        "ws/.npmrc", "ws/sub/.cargo/config.toml", "ws/.devcontainer/devcontainer.json", "ws/.zlogout",
        "ws/.inputrc", "ws/app.code-workspace", "home/.ssh/authorized_keys", "home/.config/git/config",
    ],
)  # fmt: skip
def test_safety_checks_no_mode_skips(ws: Path, mode: PermissionMode, target: str) -> None:
    context = _ctx(ws, mode, allow=("Edit", f"Edit(/{ws.parent}/**)"))
    decision = _decide(_edit(ws.parent / target), context)
    assert (decision.behavior, decision.reason.type) == ("ask", "safety_check")
    assert decision.suggestions == ()


def test_reading_protected_files_is_fine(ws: Path) -> None:
    assert _decide(_read(ws / ".git" / "config"), _ctx(ws)).behavior == "allow"
    assert _decide(_read(ws / ".vscode" / "settings.json"), _ctx(ws)).behavior == "allow"


def test_only_a_rule_naming_a_protected_path_lifts_it(ws: Path) -> None:
    target = ws / ".vscode" / "settings.json"
    named = _decide(_edit(target), _ctx(ws, "acceptEdits", allow=("Edit(./.vscode/settings.json)",)))
    assert named.behavior == "allow"
    assert _decide(_edit(target), _ctx(ws, "acceptEdits", allow=("Edit(.vscode/**)",))).behavior == "allow"
    for broad in ("Edit", "Edit(./**)", "Edit(./.*/*.json)"):
        assert _decide(_edit(target), _ctx(ws, "acceptEdits", allow=(broad,))).reason.type == "safety_check", broad


def test_protected_names_compare_as_the_file_system_does(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    upper = _edit(ws / ".ZSHRC")
    assert _decide(upper, _ctx(ws, "acceptEdits")).behavior == "allow"  # this file system tells case apart
    monkeypatch.setattr(protected, "case_insensitive", lambda folder: True)
    assert _decide(upper, _ctx(ws, "acceptEdits")).reason.type == "safety_check"


def test_a_process_environment_is_never_read_unasked(ws: Path) -> None:
    (ws / "env").symlink_to("/proc/self/environ")
    for path in (Path("/proc/self/environ"), ws / "env"):
        decision = _decide(_read(path), _ctx(ws, "bypassPermissions", allow=("Read",)))
        assert (decision.behavior, decision.reason.type) == ("ask", "safety_check"), path


def test_writes_outside_the_working_dirs_ask_even_in_bypass(ws: Path) -> None:
    outside = ws.parent / "other" / "a.txt"
    for mode in ("default", "acceptEdits", "bypassPermissions"):
        decision = _decide(_edit(outside), _ctx(ws, mode, allow=("Edit",)))
        assert (decision.behavior, decision.reason.type) == ("ask", "working_dir")
    # an allow rule naming the place explicitly is the user's decision
    assert _decide(_edit(outside), _ctx(ws, allow=(f"Edit(/{ws.parent}/other/**)",))).behavior == "allow"
    # additional directories are working directories
    context = dataclasses.replace(_ctx(ws, "acceptEdits"), additional_directories=(ws.parent / "other",))
    assert _decide(_edit(outside), context).behavior == "allow"


def test_symlink_out_of_the_workspace(ws: Path) -> None:
    secret = ws.parent / "secret"
    secret.mkdir()
    (ws / "link").symlink_to(secret)
    through = ws / "link" / "key"
    # allowed only if both the link path and the target are allowed
    assert _decide(_edit(through), _ctx(ws, "acceptEdits", allow=("Edit(./**)",))).reason.type == "working_dir"
    assert _decide(_read(through), _ctx(ws)).behavior == "ask"
    # denied if either is denied
    assert _decide(_read(through), _ctx(ws, deny=(f"Read(/{secret}/**)",))).behavior == "deny"
    assert _decide(_read(through), _ctx(ws, deny=("Read(./link/**)",))).behavior == "deny"


# ---------------------------------------------------------------- modes


def test_plan_mode_denies_what_is_not_read_only(ws: Path) -> None:
    context = _ctx(ws, "plan", allow=("Bash",))
    decision = _decide(CallFacts("Bash", False, "ls"), context)
    assert decision.behavior == "deny" and decision.reason.type == "mode" and "plan mode" in decision.reason.message
    assert _decide(_read(ws / "a"), context).behavior == "allow"


def test_plan_mode_denies_changes_that_an_earlier_step_would_ask_about(ws: Path) -> None:
    context = _ctx(ws, "plan", ask=("Write",))
    cases = [
        _edit(ws / ".git" / "config"),  # a safety check asks
        _edit(ws.parent / "outside.txt"),  # outside the working directories
        CallFacts("Write", False, None, (ws / "a",)),  # a tool-wide ask rule
    ]
    for facts in cases:
        decision = _decide(facts, context)
        assert decision.behavior == "deny" and decision.reason.type == "mode", facts
    flagged = _decide(CallFacts("Bash", False, "rm -rf x"), context, PermissionCheck("ask", "flagged", safety=True))
    assert flagged.behavior == "deny"


def test_accept_edits_allows_file_edits_in_the_working_dirs(ws: Path) -> None:
    context = _ctx(ws, "acceptEdits")
    for tool in ("Edit", "Write", "MultiEdit", "NotebookEdit"):
        decision = _decide(CallFacts(tool, False, None, (ws / "a.py",)), context)
        assert (decision.behavior, decision.reason.type) == ("allow", "mode")
    assert _decide(CallFacts("Bash", False, "touch a"), context).behavior == "ask"


def test_bypass_allows(ws: Path) -> None:
    assert _decide(CallFacts("Bash", False, "rm -rf build"), _ctx(ws, "bypassPermissions")).behavior == "allow"


def test_dont_ask_turns_asks_into_denies(ws: Path) -> None:
    context = _ctx(ws, "dontAsk", allow=("Bash(ls)",))
    assert _decide(CallFacts("Bash", False, "ls"), context).behavior == "allow"
    decision = _decide(CallFacts("Bash", False, "make"), context)
    assert decision.behavior == "deny" and decision.reason.type == "mode" and "dontAsk" in decision.reason.message
    assert _decide(_edit(ws / ".git" / "HEAD"), context).behavior == "deny"


# ---------------------------------------------------------------- failures and suggestions


def test_an_exception_inside_the_pipeline_denies(ws: Path) -> None:
    class Exploding(PermissionContext):
        def rules(self, behavior: str) -> tuple[PermissionRule, ...]:
            raise RuntimeError("boom")

    decision = _decide(CallFacts("Read", True), Exploding(workspace_roots=(ws,)))
    assert decision.behavior == "deny" and decision.reason.type == "other" and "boom" in decision.reason.message


def test_suggestions(ws: Path) -> None:
    kept = _decide(CallFacts("Bash", False, "make"), _ctx(ws), PermissionCheck(suggestions=("Bash(make:*)",)))
    assert kept.suggestions == ("Bash(make:*)",)
    assert _decide(CallFacts("Bash", False, "make"), _ctx(ws)).suggestions == ("Bash(make)",)
    outside = ws.parent / "b.txt"
    (suggestion,) = _decide(_read(outside), _ctx(ws)).suggestions
    assert suggestion == f"Read(/{outside})"
    rule = parse_rule(suggestion)
    assert isinstance(rule, PermissionRule)
    assert _decide(_read(outside), _ctx(ws).with_rule("allow", rule)).behavior == "allow"
    assert suggest_rules(CallFacts("WebFetch", True, "https://Docs.Example.com/x"), ws) == (
        "WebFetch(domain:docs.example.com)",
    )
    assert suggest_rules(CallFacts("mcp__gh__issue", False), ws) == ("mcp__gh__issue",)
    assert suggest_rules(CallFacts("Bash", False, "make && npm test"), ws) == ("Bash(make)", "Bash(npm test:*)")
    assert suggest_rules(CallFacts("Bash", False, "echo $(curl x)"), ws) == ()  # flagged: no "always" offer


# ---------------------------------------------------------------- the context


def test_context_is_immutable(ws: Path) -> None:
    context = PermissionContext(
        workspace_roots=(ws,), hooks=(SourcedHooks("user", {"PreToolUse": [{"matcher": "Bash"}]}),)
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.mode = "bypassPermissions"  # type: ignore[misc]
    config = context.hooks[0].config
    assert isinstance(config, MappingProxyType)
    with pytest.raises(TypeError):
        config["PostToolUse"] = []  # type: ignore[index]
    with pytest.raises(TypeError):
        config["PreToolUse"][0]["matcher"] = "Edit"
    assert isinstance(config["PreToolUse"], tuple)


def test_with_mode_and_with_rule_return_new_contexts(ws: Path) -> None:
    context = _ctx(ws)
    planned = context.with_mode("plan")
    assert (context.mode, planned.mode) == ("default", "plan") and planned.with_mode("plan") is planned
    added = context.with_rule("deny", PermissionRule("Bash"))
    assert context.deny == () and added.deny == (PermissionRule("Bash"),)
    locked = dataclasses.replace(context, bypass_disabled=True)
    with pytest.raises(ValueError, match="disabled by policy"):
        locked.with_mode("bypassPermissions")
    with pytest.raises(ValueError, match="unknown permission mode"):
        context.with_mode("yolo")  # type: ignore[arg-type]


@pytest.mark.parametrize("target", ["config/handrail/settings.json", "state/handrail/approvals.json"])
def test_handrails_own_settings_are_protected(ws: Path, monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(ws / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(ws / "state"))
    decision = _decide(_edit(ws / target), _ctx(ws, "bypassPermissions"))
    assert (decision.behavior, decision.reason.type) == ("ask", "safety_check")
    assert "handrail's own settings" in decision.reason.message


# ---------------------------------------------------------------- a tool's other names


def _task(agent_type: str) -> CallFacts:
    return CallFacts("Task", True, agent_type, aliases=("Agent",))


def test_rules_written_with_an_alias_apply_to_the_tool(ws: Path) -> None:
    assert _decide(_task("Explore"), _ctx(ws, deny=("Agent",))).behavior == "deny"
    asked = _decide(_task("Explore"), _ctx(ws, ask=("Agent(Explore)",)))
    assert asked.behavior == "ask" and asked.reason.rule == "Agent(Explore)"
    assert _decide(_task("general-purpose"), _ctx(ws, ask=("Agent(Explore)",))).behavior == "allow"
    allowed = _decide(_task("Explore"), _ctx(ws, allow=("Agent",)), PermissionCheck("ask", "asks"))
    assert allowed.behavior == "allow" and allowed.reason.rule == "Agent"


def test_an_alias_rule_does_not_reach_tools_without_that_alias(ws: Path) -> None:
    assert _decide(CallFacts("Task", True, "Explore"), _ctx(ws, deny=("Agent",))).behavior == "allow"
    assert _decide(_task("Explore"), _ctx(ws, deny=("Task(Explore)",))).behavior == "deny"
