"""Auto permission mode as the editor sees it: a small-model classifier answers plain asks, and only those."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsprotocol import types

from handrail.fake_model import FakeModel, HttpError, Reply, Text, ToolUse
from handrail.permissions.context import AUTO_FROM_WORKSPACE_REASON
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, tool_results

MAKE = {"command": "touch made.txt"}  # writes a file: a plain ask in default mode


def _user_settings(workspace: Path, permissions: dict[str, Any]) -> None:
    home = workspace.parent / "state" / "xdg-config" / "handrail"
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"permissions": permissions}))


def _audit(workspace: Path, session_id: str) -> list[dict[str, Any]]:
    log = workspace.parent / "state" / "sessions" / session_id / "audit.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()]


def _is_classifier(request: dict[str, Any]) -> bool:
    return not request.get("tools") and "<tool_call>" in json.dumps(request["messages"])


async def test_auto_mode_lets_the_classifier_allow_a_benign_call(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    _user_settings(workspace, {"defaultMode": "auto"})
    seen: list[dict[str, Any]] = []

    def classifier(request: dict[str, Any]) -> Reply:
        seen.append(request)
        return Reply.of(Text('{"decision": "allow", "reason": "the user asked for this file"}'))

    model.add(Reply.of(ToolUse("Bash", MAKE)), classifier, Reply.of(Text("done")))
    result = await editor.ask("please create an empty made.txt")
    assert editor.prompts == [] and (workspace / "made.txt").exists()
    (request,) = seen
    prompt = request["messages"][0]["content"]
    assert "please create an empty made.txt" in prompt and "touch made.txt" in prompt and "tool: Bash" in prompt
    assert '{\\"decision\\"' in json.dumps(request["system"])  # the strict answer format is asked for
    (block,) = tool_results(model.requests[2])
    assert not block.get("is_error")
    (entry,) = _audit(workspace, result["sessionId"])
    assert (entry["outcome"], entry["answeredBy"], entry["reasonType"]) == ("allow", "classifier", "classifier")
    assert entry["reason"] == "the user asked for this file"


async def test_auto_mode_never_overrides_a_deny_rule(editor: Editor, model: FakeModel, workspace: Path) -> None:
    _user_settings(workspace, {"defaultMode": "auto", "deny": ["Bash(touch:*)"]})
    model.add(Reply.of(ToolUse("Bash", MAKE)), Reply.of(Text("done")))
    await editor.ask("please create an empty made.txt")
    assert len(model.requests) == 2 and not any(_is_classifier(r) for r in model.requests)
    (block,) = tool_results(model.requests[1])
    assert block["is_error"] and "Permission denied" in result_text(block)
    assert editor.prompts == [] and not (workspace / "made.txt").exists()


async def test_auto_mode_leaves_a_safety_flag_to_the_user(editor: Editor, model: FakeModel, workspace: Path) -> None:
    _user_settings(workspace, {"defaultMode": "auto"})
    model.add(Reply.of(ToolUse("Bash", {"command": "touch $(cat list)"})), Reply.of(Text("done")))
    editor.answers.append("Deny")
    await editor.ask("touch the files in list")
    assert len(editor.prompts) == 1
    assert len(model.requests) == 2 and not any(_is_classifier(r) for r in model.requests)
    (block,) = tool_results(model.requests[1])
    assert block["is_error"] and "declined" in result_text(block)


async def _fails_closed(editor: Editor, model: FakeModel, workspace: Path, answer: Any, words: str) -> None:
    result = await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="handrail.setMode", arguments=[{"mode": "auto"}])
    )
    assert result == {"mode": "auto", "scope": "server"}
    model.add(Reply.of(ToolUse("Bash", MAKE)), answer, Reply.of(Text("done")))
    editor.answers.append("Allow once")
    asked = await editor.ask("please create an empty made.txt")
    (prompt,) = editor.prompts
    assert "auto mode" in prompt.message and words in prompt.message
    assert _is_classifier(model.requests[1]) and len(model.requests) == 3
    assert (workspace / "made.txt").exists()  # the user allowed it
    (entry,) = _audit(workspace, asked["sessionId"])
    assert (entry["outcome"], entry["answeredBy"], entry["reasonType"]) == ("allow", "user", "classifier")


async def test_a_failing_classifier_leaves_the_call_to_the_user(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    await _fails_closed(editor, model, workspace, HttpError(400, message="no such model"), "classifier failed")


async def test_a_garbled_classifier_answer_leaves_the_call_to_the_user(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    garbage = Reply.of(Text("Sure, that looks fine: allow"))
    await _fails_closed(editor, model, workspace, garbage, "unreadable")


async def test_a_workspace_settings_file_cannot_turn_auto_mode_on(
    trusted_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    local = workspace / ".handrail" / "settings.local.json"  # needs trust only, no approval
    local.parent.mkdir()
    local.write_text(json.dumps({"permissions": {"defaultMode": "auto"}}))
    model.add(Reply.of(ToolUse("Bash", MAKE)), Reply.of(Text("done")))
    trusted_editor.answers.append("Deny")
    await trusted_editor.ask("please create an empty made.txt")
    assert len(trusted_editor.prompts) == 1 and len(model.requests) == 2
    described = await trusted_editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="handrail.permissions", arguments=[{}])
    )
    assert described["mode"] == "default"
    assert {"setting": "defaultMode", "source": "local", "reason": AUTO_FROM_WORKSPACE_REASON} in described["inactive"]


async def test_a_subagents_call_is_judged_by_the_users_prompt(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    _user_settings(workspace, {"defaultMode": "auto"})
    seen: list[str] = []

    def classifier(request: dict[str, Any]) -> Reply:
        seen.append(request["messages"][0]["content"])
        return Reply.of(Text('{"decision": "ask", "reason": "not sure the user wants this"}'))

    task = ToolUse("Task", {"description": "tidy", "prompt": "The user wants made.txt: make it"})
    # one request at a time: main, sub-agent, classifier, sub-agent, main
    model.add(
        Reply.of(task), Reply.of(ToolUse("Bash", MAKE)), classifier, Reply.of(Text("asked")), Reply.of(Text("ok"))
    )
    editor.answers.append("Deny")
    await editor.ask("tidy up the notes")
    (prompt,) = seen
    assert "<user_intent>\ntidy up the notes\n</user_intent>" in prompt and "made.txt: make it" in prompt
    assert len(editor.prompts) == 1 and "not sure the user wants this" in editor.prompts[0].message
    assert not (workspace / "made.txt").exists()
