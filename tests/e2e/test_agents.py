"""Sub-agents (Task) end to end: parallel delegation, restricted tools, cancellation, prompts and progress."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from handrail.fake_model import Conversations, FakeModel, Hold, Reply, Text, ToolUse
from handrail.tools.builtin_agents import EXPLORE_PROMPT, GENERAL_PURPOSE_PROMPT
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, system_text, tool_results


def task(description: str, prompt: str, agent: str | None = None) -> ToolUse:
    """A Task call."""
    value: dict[str, Any] = {"description": description, "prompt": prompt}
    if agent is not None:
        value["subagent_type"] = agent
    return ToolUse("Task", value)


def requests_of(model: FakeModel, first_user_text: str) -> list[dict[str, Any]]:
    """The requests of the conversation that began with `first_user_text`."""
    found = []
    for request in model.requests:
        content = request["messages"][0]["content"]
        text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
        if text == first_user_text:
            found.append(request)
    return found


def tool_names(request: dict[str, Any]) -> list[str]:
    """The names of the tools a request offered."""
    return [tool["name"] for tool in request.get("tools", [])]


async def test_two_parallel_subagents_return_in_the_models_order(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    first, second = task("find alpha", "Find alpha", "Explore"), task("find beta", "Find beta", "Explore")
    slow = Hold(Reply.of(Text("alpha report")))
    talk = Conversations()
    talk.script("delegate", Reply.of("Asking two agents.", first, second), Reply.of(Text("both done")))
    talk.script("Find alpha", slow)
    talk.script(
        "Find beta",
        Reply.of(ToolUse("Read", {"file_path": str(workspace / "notes.txt")})),
        Reply.of(Text("beta report")),
    )
    model.add(*talk.steps())

    ask = asyncio.create_task(editor.ask("delegate"))
    # the second agent finishes while the first is still held: they run in parallel
    await editor.wait_for_chat(lambda e: e["kind"] == "toolResult" and e["toolUseId"] == second.id)
    assert slow.held.is_set() and not slow.release.is_set()
    slow.release.set()
    result = await ask

    assert result["stopReason"] == "end_turn" and result["text"] == "both done"
    assert model.errors == []
    results = tool_results(model.requests[-1])
    assert [r["tool_use_id"] for r in results] == [first.id, second.id]
    assert [result_text(r) for r in results] == ["alpha report", "beta report"]
    assert not any(r.get("is_error") for r in results)

    (explore,) = requests_of(model, "Find alpha")
    assert system_text(explore).startswith(EXPLORE_PROMPT)
    assert tool_names(explore) == ["Bash", "Glob", "Grep", "Read", "WebFetch"]
    # the sub-agent's tool call shows under its Task call, its text does not stream
    read_start = next(e for e in editor.chat if e["kind"] == "toolStart" and e["name"] == "Read")
    assert read_start["parentToolUseId"] == second.id
    read_end = next(e for e in editor.chat if e["kind"] == "toolResult" and e["toolUseId"] == read_start["toolUseId"])
    assert read_end["parentToolUseId"] == second.id and not read_end["isError"]
    lines = [e["message"] for e in editor.chat if e["kind"] == "toolProgress" and e["toolUseId"] == second.id]
    assert lines == [f"Read {workspace / 'notes.txt'}"]
    streamed = "".join(e["text"] for e in editor.chat if e["kind"] == "text")
    assert streamed == "Asking two agents.both done"
    # usage sums every request of the turn: the parent's two and the agents' three
    (end,) = [e for e in editor.chat if e["kind"] == "turnEnd"]
    assert (end["usage"]["inputTokens"], end["usage"]["outputTokens"]) == (50, 50)


async def test_a_subagent_is_refused_tools_it_was_not_given(editor: Editor, model: FakeModel, workspace: Path) -> None:
    target = workspace / "notes.txt"
    call = task("look around", "Look around", "Explore")
    talk = Conversations()
    talk.script("explore", Reply.of(call), Reply.of(Text("ok")))
    talk.script(
        "Look around",
        Reply.of(
            ToolUse("Edit", {"file_path": str(target), "old_string": "alpha", "new_string": "ALPHA"}),
            ToolUse("Task", {"description": "nested", "prompt": "Go deeper"}),
            ToolUse("Bash", {"command": "touch explorer-was-here.txt"}),
        ),
        Reply.of(Text("I could not change anything")),
    )
    model.add(*talk.steps())
    result = await editor.ask("explore")

    assert result["stopReason"] == "end_turn" and model.errors == []
    agent_requests = requests_of(model, "Look around")
    edit, nested, bash = tool_results(agent_requests[-1])
    assert edit["is_error"] and result_text(edit).startswith("No such tool available: Edit")
    assert nested["is_error"] and result_text(nested).startswith("No such tool available: Task")
    assert bash["is_error"] and "read-only" in result_text(bash)
    assert editor.prompts == []  # denied outright: the user is never asked for a read-only agent's write
    assert target.read_text().startswith("alpha") and not (workspace / "explorer-was-here.txt").exists()
    (report,) = tool_results(model.requests[-1])
    assert result_text(report) == "I could not change anything"


async def test_general_purpose_agents_never_get_task(editor: Editor, model: FakeModel, workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("Use British spelling.\n")
    talk = Conversations()
    talk.script("delegate once", Reply.of(task("sub", "Sub work")), Reply.of(Text("done")))
    talk.script("Sub work", Reply.of(Text("sub done")))
    model.add(*talk.steps())
    await editor.ask("delegate once")
    (parent, _) = requests_of(model, "delegate once")
    (child,) = requests_of(model, "Sub work")
    assert "Task" in tool_names(parent) and "TodoWrite" in tool_names(parent)
    assert "Task" not in tool_names(child) and "Read" in tool_names(child)
    assert system_text(child).startswith(GENERAL_PURPOSE_PROMPT)
    assert "Use British spelling." in system_text(child) and "Use British spelling." in system_text(parent)


async def test_agent_types_are_found_whatever_their_case(editor: Editor, model: FakeModel) -> None:
    talk = Conversations()
    unknown_type, lower_case = task("bad", "Never runs", "reviewer"), task("scan", "Scan", "explore")
    talk.script("look around", Reply.of(unknown_type), Reply.of(lower_case), Reply.of(Text("done")))
    talk.script("Scan", Reply.of(Text("scanned")))
    model.add(*talk.steps())
    await editor.ask("look around")
    (_, after_unknown, after_explore) = requests_of(model, "look around")
    (unknown,) = tool_results(after_unknown)
    assert unknown["is_error"] and "'reviewer' not found. Available agents: general-purpose, Explore" in (
        result_text(unknown)
    )
    (scanned,) = tool_results(after_explore)
    assert result_text(scanned) == "scanned" and system_text(requests_of(model, "Scan")[0]).startswith(EXPLORE_PROMPT)


async def test_cancel_reaches_a_running_subagent(editor: Editor, model: FakeModel) -> None:
    call = task("wait forever", "Wait forever")
    held = Hold(Reply.of(Text("too late")))
    talk = Conversations()
    talk.script("start an agent", Reply.of(call))
    talk.script("Wait forever", held)
    model.add(*talk.steps())

    ask = asyncio.create_task(editor.ask("start an agent"))
    await asyncio.to_thread(held.held.wait, 10)
    session_id = editor.chat[0]["sessionId"]
    assert await editor.cancel(session_id) == {"cancelled": True}
    result = await ask
    assert result["stopReason"] == "cancelled"
    # the sub-agent's request was dropped: nothing keeps running
    assert await asyncio.to_thread(held.abandoned.wait, 60)
    assert not held.release.is_set()
    (end,) = [e for e in editor.chat if e["kind"] == "turnEnd"]
    assert end["stopReason"] == "cancelled"
    task_end = next(e for e in editor.chat if e["kind"] == "toolResult" and e["toolUseId"] == call.id)
    assert task_end["isError"]

    # the history is valid: the Task call was answered (FakeModel rejects a request otherwise)
    model.add(Reply.of(Text("after cancel")))
    again = await editor.ask("and now?", session_id=result["sessionId"])
    assert again["text"] == "after cancel" and model.errors == []
    answered = [
        block
        for message in model.requests[-1]["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert [b["tool_use_id"] for b in answered] == [call.id] and answered[0]["is_error"]


async def test_subagent_permission_prompt_is_marked_and_answered(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    call = task("make a file", "Make a file")
    talk = Conversations()
    talk.script("delegate a write", Reply.of(call), Reply.of(Text("done")))
    talk.script(
        "Make a file",
        Reply.of(ToolUse("Bash", {"command": "touch made-by-agent.txt", "description": "create the file"})),
        Reply.of(Text("made it")),
    )
    model.add(*talk.steps())
    editor.answers.append("Allow once")
    result = await editor.ask("delegate a write")

    assert result["text"] == "done" and model.errors == []
    (prompt,) = editor.prompts
    assert "\nhandrail's sub-agent (make a file) asks to run this" in prompt.message
    assert "touch made-by-agent.txt" in prompt.message or "create the file" in prompt.message
    assert (workspace / "made-by-agent.txt").exists()
    (decision,) = [e for e in editor.chat if e["kind"] == "permission"]
    assert decision["decision"] == "allow" and decision["parentToolUseId"] == call.id
    (report,) = tool_results(model.requests[-1])
    assert result_text(report) == "made it"


def _project_agents(workspace: Path) -> None:
    agents = workspace / ".handrail" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code for bugs\ntools: Read, Grep, Task\nmodel: haiku\n"
        "color: blue\n---\n"
        "You review code. Report bugs with file and line.\n"
    )
    (agents / "broken.md").write_text("---\nname: broken\ndescription: [unclosed\n---\nbody\n")


async def test_project_agents_wait_for_a_trusted_workspace(editor: Editor, model: FakeModel, workspace: Path) -> None:
    _project_agents(workspace)
    model.add(Reply.of(Text("fine")))
    await editor.ask("review")
    task_tool = next(t for t in model.requests[0]["tools"] if t["name"] == "Task")
    assert "reviewer" not in task_tool["description"] and "- Explore:" in task_tool["description"]


async def test_custom_project_agent_gets_its_tools_and_prompt(
    trusted_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    editor = trusted_editor
    _project_agents(workspace)
    talk = Conversations()
    call = ToolUse("Agent", {"description": "review app", "prompt": "Review app.py", "subagent_type": "reviewer"})
    talk.script("review", Reply.of(call), Reply.of(Text("reviewed")))
    talk.script("Review app.py", Reply.of(Text("no bugs")))
    model.add(*talk.steps())
    result = await editor.ask("review")

    assert result["text"] == "reviewed" and model.errors == []
    (parent, _) = requests_of(model, "review")
    task_tool = next(t for t in parent["tools"] if t["name"] == "Task")
    assert "- reviewer: Reviews code for bugs" in task_tool["description"]
    (child,) = requests_of(model, "Review app.py")
    assert tool_names(child) == ["Grep", "Read"]  # Task is never given to a sub-agent
    assert child["model"] == "claude-haiku-5-5" and parent["model"] != child["model"]
    assert system_text(child).startswith("You review code. Report bugs with file and line.")
    lines = [e["message"] for e in editor.chat if e["kind"] == "toolProgress" and e["toolUseId"] == call.id]
    assert lines == ["not available to the reviewer agent: Task"]
    (report,) = tool_results(model.requests[-1])
    assert result_text(report) == "no bugs" and report["tool_use_id"] == call.id
    warnings = [m.message for m in editor.client.messages]
    assert any("broken.md" in w and "line 3" in w for w in warnings)


async def test_cancel_while_a_subagent_waits_for_permission(editor: Editor, model: FakeModel, workspace: Path) -> None:
    editor.release_prompt = asyncio.Event()  # the user does not answer in time
    call = task("make a file", "Make a file")
    talk = Conversations()
    talk.script("delegate and cancel", Reply.of(call))
    talk.script("Make a file", Reply.of(ToolUse("Bash", {"command": "touch never.txt"})))
    model.add(*talk.steps())

    ask = asyncio.create_task(editor.ask("delegate and cancel"))
    await editor.prompt_started.wait()
    assert await editor.cancel(editor.chat[0]["sessionId"]) == {"cancelled": True}
    result = await ask
    assert result["stopReason"] == "cancelled"
    editor.release_prompt.set()
    assert not (workspace / "never.txt").exists()
    (prompt,) = editor.prompts
    assert "handrail's sub-agent (make a file) asks to run this" in prompt.message

    model.add(Reply.of(Text("fine")))
    again = await editor.ask("still there?", session_id=result["sessionId"])
    assert again["text"] == "fine" and model.errors == []
