"""MCP end to end against the reference server, `@modelcontextprotocol/server-everything` (pinned, installed by the
test setup), through `handrail lsp` with the scripted model: tools, an image, a prompt run as a slash command, a
resource template and a text blob, an elicitation answered, roots, sampling refused, the server's log, a long call
with progress and cancellation, a task-only tool left out, a crash and restart."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, server_env, start_editor, system_text, tool_results
from tests.e2e.mcp_support import children, command, until, user_settings, wait_state

EVERYTHING_VERSION = "2026.8.31"
EVERYTHING_PACKAGE = "@modelcontextprotocol/server-everything"
ALLOWED = {"permissions": {"allow": ["mcp__everything"]}}


@pytest.fixture(scope="session")
def everything_server(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The reference server's stdio definition, installed once per run with npm (the pinned version)."""
    prefix = tmp_path_factory.mktemp("npm")
    package = f"{EVERYTHING_PACKAGE}@{EVERYTHING_VERSION}"
    argv = ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), package]
    installed = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, f"npm install failed: {installed.stderr[-2000:]}"
    entry = prefix / "node_modules" / EVERYTHING_PACKAGE / "dist" / "index.js"
    version = json.loads((entry.parent.parent / "package.json").read_text())["version"]
    assert version == EVERYTHING_VERSION
    return {"command": "node", "args": [str(entry), "stdio"]}


async def _start(workspace: Path, model: FakeModel, *, rich: bool = False) -> Editor:
    env = {**server_env(model.base_url, workspace.parent / "state"), "HANDRAIL_MCP_RESTART_DELAY": "0"}
    return await start_editor(workspace, env, rich=rich, extra={"elicitation": True} if rich else None)


@pytest_asyncio.fixture
async def everything(workspace: Path, model: FakeModel, everything_server: dict[str, Any]) -> AsyncIterator[Editor]:
    """A plain-LSP editor with the reference server connected (its tools allowed)."""
    user_settings(workspace, {"mcpServers": {"everything": everything_server}, **ALLOWED})
    editor = await _start(workspace, model)
    await wait_state(editor, "everything", "running")
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


@pytest_asyncio.fixture
async def everything_rich(
    workspace: Path, model: FakeModel, everything_server: dict[str, Any]
) -> AsyncIterator[Editor]:
    """A VS Code-like editor (it shows elicitation forms itself) with the reference server connected."""
    user_settings(workspace, {"mcpServers": {"everything": everything_server}, **ALLOWED})
    editor = await _start(workspace, model, rich=True)
    await wait_state(editor, "everything", "running")
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


def user_blocks(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks of the first user message of a model request."""
    content = request["messages"][0]["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


async def test_tools_an_image_structured_content_and_the_servers_instructions(
    everything: Editor, model: FakeModel
) -> None:
    model.add(
        Reply.of(
            ToolUse("mcp__everything__echo", {"message": "hi there"}),
            ToolUse("mcp__everything__get-sum", {"a": 2, "b": 40}),
            ToolUse("mcp__everything__get-tiny-image", {}),
            ToolUse("mcp__everything__get-structured-content", {"location": "New York"}),
        ),
        Reply.of(Text("done")),
    )
    await everything.ask("use the tools")
    names = [t["name"] for t in model.requests[0]["tools"]]
    assert "mcp__everything__simulate-research-query" not in names  # callable only as an MCP task: not offered
    system = system_text(model.requests[0])
    assert '<mcp-server-instructions server="everything">' in system and "get-roots-list" in system
    echo, total, image, structured = tool_results(model.requests[1])
    assert "hi there" in result_text(echo)
    assert "42" in result_text(total)
    assert [b["type"] for b in image["content"]].count("image") == 1
    assert not structured.get("is_error") and "temperature" in result_text(structured)


async def test_the_servers_prompts_run_as_slash_commands_and_through_a_command(
    everything: Editor, model: FakeModel
) -> None:
    listed = await command(everything, "handrail.mcpPrompts")
    by_command = {p["command"]: p for p in listed["prompts"]}
    args_prompt = by_command["/mcp__everything__args-prompt"]
    assert args_prompt["usage"] == "/mcp__everything__args-prompt <city> [state]"
    assert [a["name"] for a in args_prompt["arguments"]] == ["city", "state"]
    model.add(Reply.of(Text("sunny")))
    result = await everything.ask("/mcp__everything__args-prompt Springfield Illinois")
    assert result["text"] == "sunny"
    assert "What's weather in Springfield, Illinois?" in json.dumps(user_blocks(model.requests[0]))
    model.add(Reply.of(Text("plain")))
    await command(everything, "handrail.runMcpPrompt", {"server": "everything", "prompt": "simple-prompt"})
    assert "This is a simple prompt without arguments." in json.dumps(user_blocks(model.requests[1]))
    # a prompt that embeds a resource: its text reaches the model
    model.add(Reply.of(Text("read")))
    await everything.ask("/mcp__everything__resource-prompt Text 7")
    assert "Resource 7: This is a plaintext resource" in json.dumps(user_blocks(model.requests[2]))
    with pytest.raises(JsonRpcException, match="city"):  # the required argument is missing: says how to call it
        await everything.ask("/mcp__everything__args-prompt")
    with pytest.raises(JsonRpcException, match="no MCP prompt"):
        await everything.ask("/mcp__everything__no-such-prompt")
    assert len(model.requests) == 3  # the wrong calls never reached the model


async def test_resource_templates_are_listed_and_text_blobs_decoded(everything: Editor, model: FakeModel) -> None:
    model.add(
        Reply.of(
            ToolUse("ListMcpResources", {"server": "everything"}),
            ToolUse("ReadMcpResource", {"server": "everything", "uri": "demo://resource/dynamic/text/3"}),
            ToolUse("ReadMcpResource", {"server": "everything", "uri": "demo://resource/dynamic/blob/4"}),
        ),
        Reply.of(Text("done")),
    )
    await everything.ask("what resources are there?")
    listed, text, blob = tool_results(model.requests[1])
    assert "demo://resource/dynamic/text/{resourceId}" in result_text(listed)
    assert "uriTemplate" in result_text(listed)
    assert "Resource 3: This is a plaintext resource" in result_text(text)
    assert "Resource 4: This is a base64 blob" in result_text(blob)  # a text/plain blob, decoded
    assert "bytes not shown" not in result_text(blob)


async def test_a_resource_mentioned_in_the_prompt_is_attached(everything: Editor, model: FakeModel) -> None:
    listed = (await command(everything, "handrail.mcpResources"))["resources"]
    mentions = {item["mention"] for item in listed}
    assert "@everything:demo://resource/dynamic/blob/{resourceId}" in mentions  # a template, to fill in
    assert any(m.startswith("@everything:demo://resource/static/document/") for m in mentions)
    model.add(Reply.of(Text("seen")))
    await everything.ask("summarize @everything:demo://resource/dynamic/blob/5, and mail me at a@everything:x")
    blocks = user_blocks(model.requests[0])
    assert blocks[0]["text"].startswith("summarize @everything:demo://resource/dynamic/blob/5")
    attached = json.dumps(blocks[1:])
    assert "The user attached the resource demo://resource/dynamic/blob/5 of the MCP server everything" in attached
    assert "Resource 5: This is a base64 blob" in attached  # read and decoded
    assert "everything:x" not in attached  # an address, not a mention
    with pytest.raises(JsonRpcException, match="could not read it"):
        await everything.ask("look at @everything:demo://resource/dynamic/text/0")
    assert len(model.requests) == 1


async def test_an_elicitation_is_answered_with_the_editors_form_and_checked(
    everything_rich: Editor, model: FakeModel
) -> None:
    editor = everything_rich
    answer = {"name": "Ada Lovelace", "check": True, "email": "ada@example.org", "integer": 7}
    editor.elicit_answers.extend([
        {"action": "accept", "content": answer},
        {"action": "accept", "content": {"name": "Ada", "integer": 500}},  # outside 1..100: never sent
        {"action": "decline"},
        None,  # dismissed
    ])
    model.add(Reply.of(ToolUse("mcp__everything__trigger-elicitation-request", {})), Reply.of(Text("1")))
    for _ in range(3):
        model.add(Reply.of(ToolUse("mcp__everything__trigger-elicitation-request", {})), Reply.of(Text("n")))
    session = (await editor.ask("ask me"))["sessionId"]
    for _ in range(3):
        await editor.ask("again", session_id=session)
    form = editor.elicitations[0]
    assert form["server"] == "everything" and form["requestedSchema"]["required"] == ["name"]
    accepted, invalid, declined, cancelled = (tool_results(model.requests[i])[0] for i in (1, 3, 5, 7))
    assert "Name: Ada Lovelace" in result_text(accepted) and "Favorite Integer: 7" in result_text(accepted)
    assert "declined" in result_text(invalid)
    assert any("does not fit its form" in m.message and "integer" in m.message for m in editor.client.messages)
    assert "declined" in result_text(declined)
    assert "cancel" in result_text(cancelled)


async def test_a_plain_client_declines_a_form_it_cannot_fill_and_says_why(everything: Editor, model: FakeModel) -> None:
    model.add(Reply.of(ToolUse("mcp__everything__trigger-elicitation-request", {})), Reply.of(Text("ok")))
    await everything.ask("ask me")
    (result,) = tool_results(model.requests[1])
    assert "declined" in result_text(result)
    (told,) = [m for m in everything.client.messages if "everything" in m.message and "declined" in m.message]
    assert "Please provide inputs" in told.message and "VS Code extension" in told.message
    assert everything.prompts == []  # no question it could not finish


async def test_roots_sampling_and_the_servers_log(everything: Editor, model: FakeModel, workspace: Path) -> None:
    model.add(
        Reply.of(
            ToolUse("mcp__everything__get-roots-list", {}),
            ToolUse("mcp__everything__trigger-sampling-request", {"prompt": "hello"}),
            ToolUse("mcp__everything__toggle-simulated-logging", {}),
        ),
        Reply.of(Text("done")),
    )
    await everything.ask("roots, sampling and logging")
    roots, sampling, logging_on = tool_results(model.requests[1])
    assert workspace.as_uri() in result_text(roots)
    assert sampling["is_error"] and "ampling" in result_text(sampling)  # refused, with the reason; no hang
    assert not logging_on.get("is_error")
    await until(
        lambda: any(m.message.startswith("[MCP everything") for m in everything.client.log_messages),
        "the server's log messages never reached window/logMessage",
    )
    assert not any(m.message.startswith("[MCP") for m in everything.client.messages)  # the log, not pop-ups


async def test_a_long_call_reports_progress_and_is_cancelled(everything: Editor, model: FakeModel) -> None:
    model.add(
        Reply.of(ToolUse("mcp__everything__trigger-long-running-operation", {"duration": 1, "steps": 2})),
        Reply.of(ToolUse("mcp__everything__trigger-long-running-operation", {"duration": 600, "steps": 600})),
    )
    ask = asyncio.create_task(everything.ask("run it"))
    await until(lambda: len(model.requests) == 2, "the first call never finished")
    (finished,) = tool_results(model.requests[1])
    assert "Long running operation completed" in result_text(finished)
    progress = [e["message"] for e in everything.chat if e["kind"] == "toolProgress"]
    assert any("1" in line and "2" in line for line in progress)
    await until(lambda: sum(e["kind"] == "toolProgress" for e in everything.chat) > len(progress), "no progress")
    session_id = everything.chat[0]["sessionId"]
    assert await command(everything, "handrail.cancel", {"sessionId": session_id}) == {"cancelled": True}
    assert (await ask)["stopReason"] == "cancelled"
    model.add(Reply.of(ToolUse("mcp__everything__echo", {"message": "still here"})), Reply.of(Text("ok")))
    await everything.ask("echo")
    assert "still here" in result_text(tool_results(model.requests[3])[0])  # requests[2] started this turn


@pytest.mark.cold_server("kills an MCP server among the server process's children")
async def test_a_crashed_server_is_restarted_with_one_notification(everything: Editor, model: FakeModel) -> None:
    server = everything.client._server
    assert server is not None
    (node,) = children(server.pid)
    os.kill(node, signal.SIGKILL)
    await until(lambda: node not in children(server.pid) and len(children(server.pid)) == 1, "never restarted")
    await wait_state(everything, "everything", "running")
    popups = [m.message for m in everything.client.messages if "everything" in m.message]
    assert len(popups) == 1 and "restarting" in popups[0]
    model.add(Reply.of(ToolUse("mcp__everything__echo", {"message": "back"})), Reply.of(Text("ok")))
    await everything.ask("echo")
    assert "back" in result_text(tool_results(model.requests[1])[0])


async def test_the_servers_tool_calls_ask_without_a_rule(
    workspace: Path, model: FakeModel, everything_server: dict[str, Any]
) -> None:
    user_settings(workspace, {"mcpServers": {"everything": everything_server}})
    editor = await _start(workspace, model)
    try:
        await wait_state(editor, "everything", "running")
        model.add(Reply.of(ToolUse("mcp__everything__echo", {"message": "x"})), Reply.of(Text("ok")))
        editor.answers.append("Deny")
        await editor.ask("echo")
        (prompt,) = editor.prompts
        assert isinstance(prompt, types.ShowMessageRequestParams) and "echo" in prompt.message
        assert tool_results(model.requests[1])[0]["is_error"]
    finally:
        await editor.client.shutdown_session()
        await editor.client.stop()
