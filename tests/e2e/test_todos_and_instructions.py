"""TodoWrite notifications, project instructions in the prompt, and token usage at the end of a turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, system_text, tool_results

PLAN = [
    {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
    {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
]


async def test_todo_write_sends_the_whole_list_and_refuses_two_in_progress(editor: Editor, model: FakeModel) -> None:
    two_running = [{**item, "status": "in_progress"} for item in PLAN[1:]]
    blank = [{"content": "  ", "status": "pending", "activeForm": "Waiting"}]
    model.add(
        Reply.of(ToolUse("TodoWrite", {"todos": PLAN})),
        Reply.of(ToolUse("TodoWrite", {"todos": two_running}), ToolUse("TodoWrite", {"todos": blank})),
        Reply.of(ToolUse("TodoWrite", {"todos": []})),
        Reply.of(Text("planned")),
    )
    result = await editor.ask("plan the work")

    assert result["text"] == "planned" and editor.prompts == []  # no permission needed
    (ok,) = tool_results(model.requests[1])
    assert not ok.get("is_error") and "modified successfully" in result_text(ok)
    running, empty = tool_results(model.requests[2])
    assert running["is_error"] and "At most one task may be in_progress" in result_text(running)
    assert empty["is_error"] and "content" in result_text(empty)
    lists = [e["todos"] for e in editor.chat if e["kind"] == "todos"]
    assert lists == [PLAN, []]  # refused lists are never sent


async def test_project_instructions_reach_the_system_prompt_and_nested_ones_join_once(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_text("Always answer in haiku.\n")
    (workspace / ".handrail").mkdir()
    (workspace / ".handrail" / "instructions.md").write_text("Never touch vendor/.\n")
    package = workspace / "pkg" / "inner"
    package.mkdir(parents=True)
    (workspace / "pkg" / "CLAUDE.md").write_text("pkg uses tabs.\n")
    (package / "mod.py").write_text("x = 1\n")
    (package / "other.py").write_text("y = 2\n")
    model.add(
        Reply.of(ToolUse("Read", {"file_path": str(package / "mod.py")})),
        Reply.of(ToolUse("Read", {"file_path": str(package / "other.py")})),
        Reply.of(Text("read both")),
    )
    await editor.ask("read the package")

    first, second, third = model.requests
    system = system_text(first)
    assert "Always answer in haiku." in system and "Never touch vendor/." in system
    assert system.index("Always answer in haiku.") < system.index("Never touch vendor/.")
    assert "pkg uses tabs." not in system
    reminders = [
        block["text"]
        for block in second["messages"][-1]["content"]
        if block.get("type") == "text" and "pkg uses tabs." in block["text"]
    ]
    assert len(reminders) == 1 and reminders[0].startswith("<system-reminder>")
    assert str(workspace / "pkg" / "CLAUDE.md") in reminders[0]
    # joined once: the second read in the same folder adds nothing
    assert not any("pkg uses tabs." in b.get("text", "") for b in third["messages"][-1]["content"])
    assert sum("pkg uses tabs." in str(m["content"]) for m in third["messages"]) == 1


async def test_a_huge_instructions_file_is_cut_with_a_note(editor: Editor, model: FakeModel, workspace: Path) -> None:
    (workspace / "CLAUDE.md").write_text("rule\n" * 10_000)
    model.add(Reply.of(Text("ok")))
    await editor.ask("hello")
    system = system_text(model.requests[0])
    assert "[… cut: 20000 of 49999 characters shown" in system
    assert len(system) < 30_000


async def test_turn_end_reports_usage(editor: Editor, model: FakeModel) -> None:
    model.add(
        Reply(
            [ToolUse("TodoWrite", {"todos": PLAN[:1]})],
            usage_in=120,
            usage_out=7,
        ),
        Reply([Text("done")], usage_in=200, usage_out=30),
    )
    await editor.ask("count tokens")
    (end,) = [e for e in editor.chat if e["kind"] == "turnEnd"]
    usage = end["usage"]
    assert (usage["inputTokens"], usage["outputTokens"]) == (320, 37)
    # the default model's list prices: $2 / $10 per million input / output tokens
    assert usage["costUsd"] == round((320 * 2 + 37 * 10) / 1e6, 6)
    assert (usage["contextTokens"], usage["contextWindow"]) == (230, 200_000)  # the last request and its answer
    assert usage["session"]["inputTokens"] == 320


async def test_instructions_a_call_of_the_message_wrote_join_after_it(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    # a Read beside a Write: the lookup waits for the calls (a read-only message may look while they run)
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "mod.py").write_text("x = 1\n")
    editor.answers.append("Allow once")
    model.add(
        Reply.of(ToolUse("Read", {"file_path": str(workspace / "pkg" / "mod.py")}),
                 ToolUse("Write", {"file_path": str(workspace / "pkg" / "CLAUDE.md"), "content": "pkg uses tabs.\n"})),
        Reply.of(Text("wrote it")),
    )
    await editor.ask("write the package's instructions")
    reminders = [b for b in model.requests[1]["messages"][-1]["content"] if "pkg uses tabs." in b.get("text", "")]
    assert len(reminders) == 1 and reminders[0]["text"].startswith("<system-reminder>")


def _deny(workspace: Path, *rules: str) -> None:
    settings = workspace / ".handrail" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"deny": list(rules)}}))


@pytest.mark.cold_server("/proc/self/environ shows the environment a process was exec'd with")
async def test_instruction_files_that_lead_out_of_the_workspace_are_not_read(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    # an untrusted clone that links its instruction files to the user's secrets and the server's environment
    outside = workspace.parent / "outside"
    outside.mkdir()
    (outside / "credentials").write_text("aws_secret_access_key = SECRET-FROM-HOME\n")
    (workspace / "CLAUDE.md").symlink_to(outside / "credentials")
    (workspace / "AGENTS.md").write_text("Root agents file: kept.\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "team.md").write_text("Linked inside the workspace: kept.\n")
    (workspace / ".handrail").mkdir()
    (workspace / ".handrail" / "instructions.md").symlink_to(workspace / "docs" / "team.md")
    sub = workspace / "sub"
    sub.mkdir()
    (sub / "AGENTS.md").symlink_to("/proc/self/environ")
    (sub / "CLAUDE.md").symlink_to(outside)  # a folder: never read either
    (sub / "mod.py").write_text("x = 1\n")
    model.add(Reply.of(ToolUse("Read", {"file_path": str(sub / "mod.py")})), Reply.of(Text("read it")))
    await editor.ask("read the module")

    first, second = model.requests
    prompt = system_text(first)
    assert "Root agents file: kept." in prompt and "Linked inside the workspace: kept." in prompt
    assert "x = 1" in json.dumps(second["messages"][-1])  # the Read reached sub/, where AGENTS.md leads out
    everything = json.dumps(model.requests)
    assert "SECRET-FROM-HOME" not in everything
    assert "ANTHROPIC_API_KEY" not in everything and "test-key" not in everything
    assert "HANDRAIL_STATE_DIR" not in everything


async def test_instruction_files_a_deny_rule_covers_are_not_read(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    _deny(workspace, "Read(./CLAUDE.md)", "Read(./pkg/**)")
    (workspace / "CLAUDE.md").write_text("DENIED ROOT INSTRUCTIONS\n")
    (workspace / "AGENTS.md").write_text("Allowed root instructions.\n")
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "AGENTS.md").write_text("DENIED NESTED INSTRUCTIONS\n")
    (workspace / "lib").mkdir()
    (workspace / "lib" / "AGENTS.md").write_text("Allowed nested instructions.\n")
    (workspace / "lib" / "m.py").write_text("y = 2\n")
    model.add(
        Reply.of(
            ToolUse("Glob", {"pattern": "*", "path": str(workspace / "pkg")}),
            ToolUse("Read", {"file_path": str(workspace / "lib" / "m.py")}),
        ),
        Reply.of(Text("done")),
    )
    await editor.ask("look around")

    first, second = model.requests
    assert "Allowed root instructions." in system_text(first)
    assert "Allowed nested instructions." in json.dumps(second["messages"])
    assert "DENIED" not in json.dumps(model.requests)
