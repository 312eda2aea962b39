"""Background agents end to end: started by Task, polled with TaskOutput, messaged, stopped, ended with the server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types

from handrail.fake_model import Conversations, FakeModel, Hold, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, server_env, start_editor, tool_results
from tests.e2e.test_agents import requests_of, tool_names

LONG_JOB = "Survey the notes"


def background_task(description: str, prompt: str) -> ToolUse:
    """A Task call that runs its agent in the background."""
    return ToolUse("Task", {"description": description, "prompt": prompt, "run_in_background": True})


async def held(hold: Hold) -> None:
    """Wait until the fake model is holding this step's answer."""
    assert await asyncio.to_thread(hold.held.wait, 10)


async def background_tasks(editor: Editor, session_id: str) -> Any:
    """The result of `handrail.backgroundTasks` for a session."""
    return await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="handrail.backgroundTasks", arguments=[{"sessionId": session_id}])
    )


def last_result(model: FakeModel, conversation: str) -> str:
    """The text of the last tool result the conversation's latest request carried."""
    return result_text(tool_results(requests_of(model, conversation)[-1])[-1])


async def test_background_agent_polled_messaged_and_stopped(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    reading = Hold(Reply.of(ToolUse("Read", {"file_path": str(workspace / "notes.txt")})))
    resumed = Hold(Reply.of(Text("never sent")))
    talk = Conversations()
    parent = "work in the background"
    talk.script(
        parent,
        Reply.of(background_task("survey notes", LONG_JOB)),
        Reply.of(Text("started")),
        # second ask: poll without waiting, then queue a follow-up while the agent's request is held
        Reply.of(ToolUse("TaskOutput", {"task_id": "agent_1", "block": False})),
        Reply.of(ToolUse("SendMessage", {"to": "agent_1", "message": "Also count the lines."})),
        Reply.of(Text("queued")),
        # third ask: wait for the report, then message the finished agent (it starts a new turn)
        Reply.of(ToolUse("TaskOutput", {"task_id": "agent_1", "block": True, "timeout": 600_000})),
        Reply.of(ToolUse("SendMessage", {"to": "agent_1", "message": "Now summarise app.py."})),
        Reply.of(Text("resumed")),
        # fourth ask: stop it mid-request
        Reply.of(ToolUse("TaskStop", {"task_id": "agent_1"})),
        Reply.of(ToolUse("TaskOutput", {"task_id": "agent_1", "block": False})),
        Reply.of(Text("stopped")),
    )
    talk.script(LONG_JOB, reading, Reply.of(Text("alpha, 1 line")), resumed)
    model.add(*talk.steps())

    first = await editor.ask(parent)
    session = first["sessionId"]
    assert first["text"] == "started"
    started = result_text(tool_results(requests_of(model, parent)[1])[0])
    assert started.startswith("Started agent agent_1 in the background (survey notes).")
    await held(reading)  # the agent runs on after the turn that started it ended
    (child,) = requests_of(model, LONG_JOB)
    assert "Task" not in tool_names(child) and "TaskOutput" not in tool_names(child)
    assert set(tool_names(child)) <= {"Bash", "Edit", "Glob", "Grep", "MultiEdit", "NotebookEdit", "Read",
                                      "TodoWrite", "WebFetch", "Write"}
    assert await background_tasks(editor, session) == [
        {"id": "agent_1", "kind": "agent", "description": "survey notes", "status": "running"}
    ]

    assert (await editor.ask("how is it going?", session_id=session))["text"] == "queued"
    poll, queued = (result_text(tool_results(r)[0]) for r in requests_of(model, parent)[3:5])
    assert poll.startswith("<task_id>agent_1</task_id>\n<status>running</status>") and "(no new output)" in poll
    assert queued.startswith("Message queued for agent agent_1")
    reading.release.set()

    assert (await editor.ask("wait for it", session_id=session))["text"] == "resumed"
    report = result_text(tool_results(requests_of(model, parent)[6])[0])
    assert "<status>completed</status>" in report and "<report>alpha, 1 line</report>" in report
    # the follow-up reached the agent with its Read result, as a user message of the same request
    second = requests_of(model, LONG_JOB)[1]["messages"][-1]["content"]
    assert [b["type"] for b in second] == ["tool_result", "text"] and second[1]["text"] == "Also count the lines."
    resumed_note = result_text(tool_results(requests_of(model, parent)[7])[0])
    assert resumed_note.startswith("Agent agent_1 had completed; it started a new turn")
    await held(resumed)
    assert requests_of(model, LONG_JOB)[2]["messages"][-1]["content"][-1]["text"] == "Now summarise app.py."

    assert (await editor.ask("stop it", session_id=session))["text"] == "stopped"
    stop, after = (result_text(tool_results(r)[0]) for r in requests_of(model, parent)[9:11])
    assert stop == "Stopped agent agent_1 (survey notes)."
    assert "<status>stopped</status>" in after
    assert await asyncio.to_thread(resumed.abandoned.wait, 10)  # its model request was dropped
    assert model.errors == []

    listed = [e["tasks"] for e in editor.chat if e["kind"] == "background"]
    statuses = [tasks[0]["status"] for tasks in listed]
    assert statuses == ["running", "completed", "running", "stopped"]
    assert await background_tasks(editor, session) == [
        {"id": "agent_1", "kind": "agent", "description": "survey notes", "status": "stopped"}
    ]
    assert await background_tasks(editor, "not-started-yet") == []


async def test_a_background_agent_is_denied_what_would_need_asking(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    talk = Conversations()
    talk.script(
        "delegate quietly",
        Reply.of(background_task("make a file", "Make a file")),
        Reply.of(ToolUse("TaskOutput", {"task_id": "agent_1", "timeout": 600_000})),
        Reply.of(Text("done")),
    )
    talk.script(
        "Make a file",
        Reply.of(ToolUse("Bash", {"command": "touch made-in-background.txt"})),
        Reply.of(Text("could not make it")),
    )
    model.add(*talk.steps())
    assert (await editor.ask("delegate quietly"))["text"] == "done"
    assert editor.prompts == []  # no one is asked: the agent has no turn to attach a prompt to
    assert not (workspace / "made-in-background.txt").exists()
    denied = tool_results(requests_of(model, "Make a file")[-1])[0]
    assert denied["is_error"] and "without a user interface" in result_text(denied)
    assert "<report>could not make it</report>" in last_result(model, "delegate quietly")


async def test_background_agents_and_shells_end_with_the_server(model: FakeModel, workspace: Path) -> None:
    editor = await start_editor(workspace, server_env(model.base_url, workspace.parent / "state"), rich=False)
    waiting = Hold(Reply.of(Text("too late")))
    talk = Conversations()
    talk.script(
        "start and leave",
        Reply.of(background_task("wait", "Wait for ever"),
                 ToolUse("Bash", {"command": "sleep 60", "run_in_background": True})),
        Reply.of(Text("left running")),
    )
    talk.script("Wait for ever", waiting)
    model.add(*talk.steps())
    editor.answers.append("Allow once")
    try:
        result = await editor.ask("start and leave")
        assert result["text"] == "left running"
        await held(waiting)
        tasks = await background_tasks(editor, result["sessionId"])
        assert [(t["id"], t["kind"], t["status"]) for t in tasks] == [
            ("agent_1", "agent", "running"), ("shell_1", "shell", "running")
        ]
    finally:
        await editor.client.shutdown_session()
        await editor.client.stop()
    assert await asyncio.to_thread(waiting.abandoned.wait, 10)
    assert not waiting.release.is_set() and model.errors == []
