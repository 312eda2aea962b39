"""Hooks: matching, decisions, blocking, updated input, and failing closed — with real shell commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from handrail.permissions.hooks import HookCommand, commands_for, matches, run_hooks


@pytest.mark.parametrize(
    ("matcher", "tool", "expected"),
    [("", "Bash", True), ("*", "Edit", True), ("Bash", "Bash", True), ("Bash", "BashOutput", False),
     ("Edit|Write", "Write", True), ("mcp__.*", "mcp__git__status", True), ("Notebook.*", "Read", False),
     ("([", "Read", False)],
)
def test_matchers(matcher: str, tool: str, expected: bool) -> None:
    assert matches(matcher, tool) is expected


def test_commands_for_picks_matching_groups_in_source_order() -> None:
    config = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a", "timeout": 5}]},
                             {"matcher": "Edit", "hooks": [{"type": "command", "command": "b"}]},
                             {"matcher": "*", "hooks": [{"command": "c"}, {"type": "prompt", "command": "x"}]}]}
    found = commands_for([("user", config), ("project", {"PreToolUse": [{"hooks": [{"command": "d"}]}]})],
                         "PreToolUse", "Bash")
    assert [(c.command, c.timeout, c.source) for c in found] == [("a", 5.0, "user"), ("c", 60.0, "user"),
                                                                  ("d", 60.0, "project")]



def test_commands_for_matches_a_tool_by_its_aliases() -> None:
    config = {"PreToolUse": [{"matcher": "Agent", "hooks": [{"command": "old-name"}]},
                             {"matcher": "Ag.*", "hooks": [{"command": "regex"}]},
                             {"matcher": "Task", "hooks": [{"command": "new-name"}]}]}
    found = commands_for([("user", config)], "PreToolUse", "Task", ("Agent",))
    assert [c.command for c in found] == ["old-name", "regex", "new-name"]
    assert [c.command for c in commands_for([("user", config)], "PreToolUse", "Task")] == ["new-name"]

def _py(code: str) -> str:
    return f"{sys.executable} -c {json.dumps(code)}"


def _cmd(code: str, timeout: float = 10) -> HookCommand:
    return HookCommand(_py(code), timeout, "test")


PAYLOAD = {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"}


async def test_hook_sees_the_call_and_allows(tmp_path: Path) -> None:
    code = (
        "import json,sys; d=json.load(sys.stdin); assert d['hook_event_name']=='PreToolUse';"
        "print(json.dumps({'hookSpecificOutput': {'permissionDecision': 'allow',"
        " 'permissionDecisionReason': 'saw ' + d['tool_input']['command']}}))"
    )
    outcome = await run_hooks("PreToolUse", [_cmd(code)], PAYLOAD, tmp_path)
    assert outcome.decision == "allow" and outcome.reason == "saw ls"


async def test_exit_code_two_blocks_with_stderr_for_the_model(tmp_path: Path) -> None:
    code = "import sys; sys.stderr.write('no rm here'); sys.exit(2)"
    outcome = await run_hooks("PreToolUse", [_cmd(code)], PAYLOAD, tmp_path)
    assert outcome.decision == "deny" and outcome.feedback == "no rm here"


async def test_deny_beats_ask_beats_allow_and_updated_input_is_passed(tmp_path: Path) -> None:
    allow = "import json; print(json.dumps({'hookSpecificOutput': {'permissionDecision': 'allow',"
    allow += " 'updatedInput': {'command': 'ls -la'}}}))"
    ask = "import json; print(json.dumps({'hookSpecificOutput': {'permissionDecision': 'ask'}}))"
    outcome = await run_hooks("PreToolUse", [_cmd(allow), _cmd(ask)], PAYLOAD, tmp_path)
    assert outcome.decision == "ask" and outcome.updated_input == {"command": "ls -la"}


async def test_hanging_or_crashing_hooks_fail_closed(tmp_path: Path) -> None:
    hang = _cmd("import time; time.sleep(60)", timeout=0.5)
    crash = _cmd("raise SystemExit(3)")
    outcome = await run_hooks("PreToolUse", [hang, crash], PAYLOAD, tmp_path)
    assert outcome.decision == "deny"
    assert len(outcome.failures) == 2 and "timed out" in outcome.failures[0]


async def test_post_tool_use_block_becomes_feedback(tmp_path: Path) -> None:
    code = "import json; print(json.dumps({'decision': 'block', 'reason': 'tests must pass first'}))"
    outcome = await run_hooks("PostToolUse", [_cmd(code)], {**PAYLOAD, "tool_response": "ok"}, tmp_path)
    assert outcome.feedback == "tests must pass first"


async def test_no_hooks_no_opinion(tmp_path: Path) -> None:
    assert (await run_hooks("PreToolUse", [], PAYLOAD, tmp_path)).decision is None
