"""The first cut of the permission policy: rule grammar and the decision pipeline."""

from __future__ import annotations

from pathlib import Path

import pytest

from handrail.permissions.context import PermissionContext
from handrail.permissions.decision import PermissionCheck
from handrail.permissions.pipeline import CallFacts, decide
from handrail.permissions.rules import PermissionRule, RuleError, parse_rule, rule_matches_call


@pytest.mark.parametrize(
    ("text", "tool", "spec"),
    [("Edit", "Edit", None), ("Bash(npm test:*)", "Bash", "npm test:*"), (" Read(./src/**) ", "Read", "./src/**")],
)
def test_parse_rule(text: str, tool: str, spec: str | None) -> None:
    assert parse_rule(text) == PermissionRule(tool, spec)


@pytest.mark.parametrize("text", ["", "Bash(", "Bash()", "(x)", "9lives", "Bash(x) y"])
def test_malformed_rules_are_reported_not_raised(text: str) -> None:
    assert isinstance(parse_rule(text, source="project"), RuleError)


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [
        ("npm test:*", "npm test", True),
        ("npm test:*", "npm test -- -x", True),
        ("npm test:*", "npm testing", False),
        ("npm test *", "npm test unit", True),
        ("git status", "git status", True),
        ("git status", "git status; rm -rf ~", False),
    ],
)
def test_bash_rule_matching(rule: str, command: str, expected: bool) -> None:
    assert rule_matches_call(PermissionRule("Bash", rule), "Bash", command) is expected


def _context(tmp_path: Path, **rules: tuple[PermissionRule, ...]) -> PermissionContext:
    return PermissionContext(workspace_roots=(tmp_path,), **rules)


def test_read_only_inside_workspace_is_allowed(tmp_path: Path) -> None:
    facts = CallFacts("Read", read_only=True, paths=(tmp_path / "a.py",))
    assert decide(facts, PermissionCheck(), _context(tmp_path)).behavior == "allow"


def test_read_only_outside_workspace_asks(tmp_path: Path) -> None:
    facts = CallFacts("Read", read_only=True, paths=(tmp_path / ".." / "elsewhere",))
    decision = decide(facts, PermissionCheck(), _context(tmp_path / "ws"))
    assert decision.behavior == "ask" and decision.reason.type == "outside_workspace"


def test_writes_ask_by_default_and_keep_the_diff(tmp_path: Path) -> None:
    facts = CallFacts("Edit", read_only=False, paths=(tmp_path / "a.py",))
    decision = decide(facts, PermissionCheck(diff="-a\n+b"), _context(tmp_path))
    assert decision.behavior == "ask" and decision.diff == "-a\n+b"


def test_deny_rule_beats_allow_rule(tmp_path: Path) -> None:
    context = _context(tmp_path, allow=(PermissionRule("Bash"),), deny=(PermissionRule("Bash", "rm:*", "project"),))
    decision = decide(CallFacts("Bash", False, "rm -rf x"), PermissionCheck(), context)
    assert decision.behavior == "deny" and decision.reason.rule == "Bash(rm:*)"
    assert decide(CallFacts("Bash", False, "ls"), PermissionCheck(), context).behavior == "allow"


def test_session_rule_added_by_always_allow(tmp_path: Path) -> None:
    context = _context(tmp_path).with_rule("allow", PermissionRule("Bash", "echo hi"))
    assert context.with_rule("allow", PermissionRule("Bash", "echo hi")) is context
    assert decide(CallFacts("Bash", False, "echo hi"), PermissionCheck(), context).behavior == "allow"
    assert decide(CallFacts("Bash", False, "echo ho"), PermissionCheck(), context).behavior == "ask"


def test_tool_deny_wins_over_allow_rule(tmp_path: Path) -> None:
    context = _context(tmp_path, allow=(PermissionRule("Edit"),))
    decision = decide(CallFacts("Edit", False), PermissionCheck("deny", "no"), context)
    assert decision.behavior == "deny"


def test_symlink_out_of_the_workspace_is_not_inside(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "escape").symlink_to(tmp_path)
    facts = CallFacts("Read", read_only=True, paths=(ws / "escape" / "secret",))
    assert decide(facts, PermissionCheck(), _context(ws)).behavior == "ask"
