"""Skills as the editor sees them: trust-gated project skills, the body reaching the model, allowed-tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, system_text, tool_results

SKILL = """---
name: release
description: Cut a release of this project
allowed-tools: Bash(touch made.txt), Read
---
Follow [the checklist](checklist.md) step by step. Never push tags.
"""
# writes a file, so it asks unless a rule allows it (a prefix rule would allow touch, not the file: this one names it)
MAKE = {"command": "touch made.txt"}


def _skill(workspace: Path, text: str = SKILL) -> Path:
    folder = workspace / ".handrail" / "skills" / "release"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "checklist.md").write_text("1. bump the version\n")
    (folder / "SKILL.md").write_text(text)
    return folder / "SKILL.md"


def _tool_names(request: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in request.get("tools", [])]


async def _approve(editor: Editor) -> Any:
    return await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="handrail.approveProjectSettings", arguments=[{}])
    )


async def test_a_project_skill_is_inactive_until_the_workspace_is_trusted(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    _skill(workspace)
    model.add(Reply.of(Text("no skills here")))
    await editor.ask("cut a release")
    (untrusted,) = model.requests
    assert "Skill" not in _tool_names(untrusted) and "release" not in system_text(untrusted)

    editor.client.protocol.notify("handrail/didChangeTrust", {"trusted": True})
    model.add(Reply.of(ToolUse("Skill", {"skill": "release", "args": "1.2"})), Reply.of(Text("following it")))
    await editor.ask("cut a release")
    trusted, after = model.requests[1:]
    assert "Skill" in _tool_names(trusted)
    assert "- release: Cut a release of this project" in system_text(trusted)
    assert "Never push tags" not in system_text(trusted)  # names and descriptions only, until invoked
    (loaded,) = tool_results(after)
    text = result_text(loaded)
    assert not loaded.get("is_error")
    assert "Never push tags." in text and "1. bump the version" in text and "ARGUMENTS: 1.2" in text
    assert "not in force" in text and "not been approved" in text  # its allowed-tools wait for approval


async def test_allowed_tools_of_an_approved_skill_run_unasked_for_the_rest_of_the_turn(
    trusted_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    _skill(workspace)
    # unapproved (the start-of-turn offer is declined): the skill loads, but its Bash rule is not granted,
    # so the user is asked (and declines)
    model.add(Reply.of(ToolUse("Skill", {"skill": "release"})), Reply.of(ToolUse("Bash", MAKE)), Reply.of(Text("x")))
    trusted_editor.answers.extend(["Not now", "Deny"])
    await trusted_editor.ask("release")
    offer = trusted_editor.prompts[0]
    assert isinstance(offer, types.ShowMessageRequestParams)
    assert "Skills that allow tools while they are active:\n• release (" in offer.message
    (declined,) = tool_results(model.requests[2])
    assert declined["is_error"] and len(trusted_editor.prompts) == 2
    assert not (workspace / "made.txt").exists()

    assert (await _approve(trusted_editor))["approved"] == 1
    model.add(Reply.of(ToolUse("Skill", {"skill": "release"})), Reply.of(ToolUse("Bash", MAKE)), Reply.of(Text("y")))
    await trusted_editor.ask("release")
    loaded = tool_results(model.requests[4])[0]
    assert "run without asking for the rest of this turn: Bash(touch made.txt), Read" in result_text(loaded)
    (made,) = tool_results(model.requests[5])
    assert not made.get("is_error") and (workspace / "made.txt").exists()
    assert len(trusted_editor.prompts) == 2  # no new prompt, and no second offer for approved content

    # the next turn starts without the skill's rules
    model.add(Reply.of(ToolUse("Bash", {"command": "touch again.txt"})), Reply.of(Text("z")))
    trusted_editor.answers.append("Deny")
    await trusted_editor.ask("again")
    (asked,) = tool_results(model.requests[7])
    assert asked["is_error"] and len(trusted_editor.prompts) == 3


async def test_the_start_of_turn_offer_approves_a_skill_once_per_content(
    trusted_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    _skill(workspace)
    model.add(Reply.of(ToolUse("Skill", {"skill": "release"})), Reply.of(ToolUse("Bash", MAKE)), Reply.of(Text("x")))
    trusted_editor.answers.append("Approve")
    await trusted_editor.ask("release")
    (made,) = tool_results(model.requests[2])
    assert not made.get("is_error") and (workspace / "made.txt").exists()
    assert len(trusted_editor.prompts) == 1  # the offer only: the Bash rule came from the approved skill

    _skill(workspace, SKILL.replace("Never push tags.", "Push the tags."))  # changed: offered again, declined
    model.add(Reply.of(Text("y")), Reply.of(Text("z")))
    trusted_editor.answers.append("Not now")
    await trusted_editor.ask("release")
    await trusted_editor.ask("release")  # declined content is not offered twice in one run
    assert len(trusted_editor.prompts) == 2


async def test_a_changed_skill_needs_approval_again_and_deny_rules_still_win(
    trusted_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    settings = workspace / ".handrail" / "settings.local.json"
    _skill(workspace)
    settings.write_text('{"permissions": {"deny": ["Bash(touch made.txt)"]}}\n')
    assert (await _approve(trusted_editor))["approved"] == 1
    model.add(Reply.of(ToolUse("Skill", {"skill": "release"})), Reply.of(ToolUse("Bash", MAKE)), Reply.of(Text("x")))
    await trusted_editor.ask("release")
    (denied,) = tool_results(model.requests[2])
    assert denied["is_error"] and "Permission denied" in result_text(denied) and trusted_editor.prompts == []
    assert not (workspace / "made.txt").exists()

    _skill(workspace, SKILL.replace("Never push tags.", "Push the tags."))
    model.add(Reply.of(ToolUse("Skill", {"skill": "release"})), Reply.of(Text("y")))
    await trusted_editor.ask("release")
    assert "not been approved" in result_text(tool_results(model.requests[4])[0])
