"""Permissions as the editor sees them: settings files, trust and approval, modes, hooks, saved rules, audit."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from lsprotocol import types

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import WORKSPACE_ALWAYS, Editor, tool_results

PROJECT_SETTINGS = {"permissions": {"deny": ["Read(./notes.txt)"], "allow": ["Bash(touch made.txt)"]}}
MAKE = {"command": "touch made.txt"}  # writes a file, so it asks unless a rule allows it


def _project(workspace: Path, settings: dict[str, object]) -> Path:
    path = workspace / ".handrail" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n")
    return path


async def _command(editor: Editor, command: str, argument: dict[str, object] | None = None) -> object:
    return await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=[argument or {}])
    )


async def test_untrusted_project_settings_only_tighten(editor: Editor, model: FakeModel, workspace: Path) -> None:
    _project(workspace, PROJECT_SETTINGS)
    model.add(
        Reply.of(ToolUse("Read", {"file_path": str(workspace / "notes.txt")}), ToolUse("Bash", MAKE)),
        Reply.of(Text("done")),
    )
    editor.answers.append("Deny")
    await editor.ask("read and echo")
    read, bash = tool_results(model.requests[1])
    assert read["is_error"] and "Permission denied" in result_text(read)  # the project's deny applies
    assert bash["is_error"] and "declined" in result_text(bash)  # its allow did not: the user was asked
    described = await _command(editor, "handrail.permissions")
    assert isinstance(described, dict)
    assert any(i.get("rule") == "Bash(touch made.txt)" and "not trusted" in i["reason"] for i in described["inactive"])


async def test_trusted_project_settings_apply_after_approval(
    trusted_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    _project(workspace, PROJECT_SETTINGS)
    model.add(Reply.of(ToolUse("Bash", MAKE)), Reply.of(Text("done")))
    trusted_editor.answers.append("Approve")  # the approval prompt for .handrail/settings.json
    await trusted_editor.ask("make a file")
    (prompt,) = trusted_editor.prompts
    assert "settings.json" in prompt.message
    (bash,) = tool_results(model.requests[1])
    assert not bash.get("is_error") and (workspace / "made.txt").exists()
    # what a changed file adds needs approval; what was approved stays approved
    _project(workspace, {"permissions": {"allow": ["Bash(touch made.txt)", "Bash(touch other.txt)"]}})
    model.add(Reply.of(ToolUse("Bash", MAKE), ToolUse("Bash", {"command": "touch other.txt"})), Reply.of(Text("done")))
    trusted_editor.answers.extend(["Not now", "Deny"])
    await trusted_editor.ask("echo again")
    _, asked_again, call = trusted_editor.prompts  # the new rule, then the call it would have allowed
    assert "• allow Bash(touch other.txt)" in asked_again.message and "touch made.txt" not in asked_again.message
    assert "touch other.txt" in call.message
    made, other = tool_results(model.requests[3])
    assert not made.get("is_error") and other["is_error"]


async def test_plan_mode_denies_changes(editor: Editor, model: FakeModel, workspace: Path) -> None:
    result = await _command(editor, "handrail.setMode", {"mode": "plan"})
    assert result == {"mode": "plan", "scope": "server"}
    model.add(
        Reply.of(ToolUse("Write", {"file_path": str(workspace / "x.txt"), "content": "x"})), Reply.of(Text("ok"))
    )
    await editor.ask("write")
    (block,) = tool_results(model.requests[1])
    assert block["is_error"] and "plan" in result_text(block).lower()
    assert not (workspace / "x.txt").exists() and editor.prompts == []


async def test_always_allow_in_this_workspace_is_saved(editor: Editor, model: FakeModel, workspace: Path) -> None:
    bash = {"command": "touch saved.txt"}
    model.add(Reply.of(ToolUse("Bash", bash)), Reply.of(Text("one")))
    editor.answers.append(WORKSPACE_ALWAYS)
    await editor.ask("make a file")
    (prompt,) = editor.prompts
    offered = next(a.title for a in prompt.actions if a.title.endswith("in this workspace"))
    rule = offered.removeprefix("Always allow ").removesuffix(" in this workspace")
    local = json.loads((workspace / ".handrail" / "settings.local.json").read_text())
    assert local == {"permissions": {"allow": [rule]}}
    # local settings need trust to allow; in this untrusted workspace the session rule still holds
    model.add(Reply.of(ToolUse("Bash", bash)), Reply.of(Text("two")))
    await editor.ask("echo again", session_id=editor.chat[0]["sessionId"])
    assert len(editor.prompts) == 1


async def test_user_hook_blocks_a_call(editor: Editor, model: FakeModel, workspace: Path) -> None:
    config_home = workspace.parent / "state" / "xdg-config" / "handrail"
    config_home.mkdir(parents=True)
    hook = f"{sys.executable} -c \"import sys; sys.stderr.write('no echo today'); sys.exit(2)\""
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}]}}
    (config_home / "settings.json").write_text(json.dumps(settings))
    model.add(Reply.of(ToolUse("Bash", {"command": "echo hi"})), Reply.of(Text("ok")))
    await editor.ask("echo")
    (block,) = tool_results(model.requests[1])
    assert block["is_error"] and "no echo today" in result_text(block)
    assert editor.prompts == []


async def test_decisions_are_audited(editor: Editor, model: FakeModel, workspace: Path) -> None:
    notes = workspace / "notes.txt"
    model.add(Reply.of(ToolUse("Read", {"file_path": str(notes)}), ToolUse("Bash", MAKE)))
    model.add(Reply.of(Text("ok")))
    editor.answers.append("Deny")
    result = await editor.ask("read and echo")
    log = workspace.parent / "state" / "sessions" / result["sessionId"] / "audit.jsonl"
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(e["tool"], e["outcome"], e["answeredBy"]) for e in entries] == [
        ("Read", "allow", "policy"), ("Bash", "deny", "user"),
    ]
    assert all("inputDigest" in e and "command" not in json.dumps(e) for e in entries)


async def test_bash_commands_are_judged_by_the_analyser(editor: Editor, model: FakeModel, workspace: Path) -> None:
    config_home = workspace.parent / "state" / "xdg-config" / "handrail"
    config_home.mkdir(parents=True)
    rules = {"permissions": {"allow": ["Bash(git status)"], "deny": ["Bash(rm:*)"]}}
    (config_home / "settings.json").write_text(json.dumps(rules))
    model.add(
        Reply.of(
            ToolUse("Bash", {"command": "ls"}),  # read-only inside the workspace: runs without asking
            ToolUse("Bash", {"command": "git status; touch pwned"}),  # piggy-backing on an allowed command: asks
            ToolUse("Bash", {"command": "bash -c 'rm -rf notes.txt'"}),  # a deny rule hidden in a wrapper
        ),
        Reply.of(Text("done")),
    )
    editor.answers.append("Deny")
    await editor.ask("list, piggy-back, delete")
    listed, piggy, wrapped = tool_results(model.requests[1])
    assert not listed.get("is_error") and "notes.txt" in result_text(listed)
    assert piggy["is_error"] and "declined" in result_text(piggy)
    assert wrapped["is_error"] and "Permission denied" in result_text(wrapped)
    assert len(editor.prompts) == 1 and "touch pwned" in editor.prompts[0].message
    assert not (workspace / "pwned").exists() and (workspace / "notes.txt").exists()
