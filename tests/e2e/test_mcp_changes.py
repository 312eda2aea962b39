"""MCP servers that change: tools added and removed at runtime (tools/list_changed), and restarting a failed server.

Real servers only (the SDK fixture), driven through the agent loop by the scripted fake model.
Waiting is on the server's window/logMessage notifications, which say when a server
connected, failed or changed its tools.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e import test_mcp
from tests.e2e.editor import Editor, tool_results
from tests.e2e.mcp_support import DEADLINE, FIXTURE, command, fixture_server, server_status, tool_names, user_settings

mcp_editor = test_mcp.mcp_editor  # the fixtures this module shares with test_mcp
http_fixture = test_mcp.http_fixture
ERAS = {"modern": (), "handshake": ("--handshake",)}


async def logged(editor: Editor, text: str) -> str:
    """The first window/logMessage containing `text`, already received or still to come."""
    async with asyncio.timeout(DEADLINE):
        while True:
            for message in editor.client.log_messages:
                if text in message.message:
                    return message.message
            params = await editor.client.wait_for_notification(types.WINDOW_LOG_MESSAGE)
            if text in params.message:
                return str(params.message)


async def configure(editor: Editor, workspace: Path, settings: dict[str, Any]) -> None:
    """Write the user settings and have the server read them now (handrail.mcpStatus reconciles the servers)."""
    user_settings(workspace, settings)
    await command(editor, "handrail.mcpStatus")


def cached_prefix(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool definitions up to the prompt-cache breakpoint (the built-ins)."""
    tools: list[dict[str, Any]] = request["tools"]
    end = max(i for i, tool in enumerate(tools) if "cache_control" in tool)
    return tools[: end + 1]


@pytest.mark.parametrize("era", ERAS)
async def test_a_tool_added_at_runtime_is_offered_at_the_next_request(
    mcp_editor: Editor, model: FakeModel, workspace: Path, era: str
) -> None:
    await configure(
        mcp_editor, workspace, {"mcpServers": {"fx": fixture_server(*ERAS[era])}, "permissions": {"allow": ["mcp__fx"]}}
    )
    await logged(mcp_editor, "MCP server 'fx' connected")
    model.add(
        Reply.of(ToolUse("mcp__fx__add_tool", {"name": "greet", "text": "hello from greet"})),
        Reply.of(ToolUse("mcp__fx__greet", {})),
        Reply.of(ToolUse("mcp__fx__remove_tool", {"name": "greet"})),
        Reply.of(Text("done")),
    )
    result = await mcp_editor.ask("add a tool, use it, remove it")
    assert result["stopReason"] == "end_turn"
    first, second, third, fourth = model.requests
    assert "mcp__fx__greet" not in tool_names(first)
    assert "mcp__fx__greet" in tool_names(second)  # the same turn's next request
    assert result_text(tool_results(second)[0]) == "added greet"
    assert result_text(tool_results(third)[0]) == "hello from greet"
    assert "mcp__fx__greet" not in tool_names(fourth)
    assert cached_prefix(second) == cached_prefix(first)  # built-ins first: the cached prefix did not move
    names = tool_names(second)
    mcp_names = [n for n in names if n.startswith("mcp__")]
    assert mcp_names == sorted(mcp_names) and names.index(mcp_names[0]) > names.index("Read")
    await logged(mcp_editor, "MCP server 'fx' changed its tools: added mcp__fx__greet")
    await logged(mcp_editor, "MCP server 'fx' changed its tools: removed mcp__fx__greet")
    status = await server_status(mcp_editor, "fx")
    assert status["toolsChanged"] == {"added": [], "removed": ["mcp__fx__greet"]}
    assert "mcp__fx__greet" not in status["tools"] and "mcp__fx__add_tool" in status["tools"]


async def test_a_tool_added_to_a_deferring_pool_is_found_by_tool_search(
    mcp_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    await configure(
        mcp_editor,
        workspace,
        {"mcpServers": {"fx": fixture_server("--many", "30")}, "permissions": {"allow": ["mcp__fx"]}},
    )
    await logged(mcp_editor, "MCP server 'fx' connected")
    model.add(
        Reply.of(ToolUse("mcp__fx__add_tool", {"name": "greet", "text": "found me"})),
        Reply.of(ToolUse("ToolSearch", {"query": "select:mcp__fx__greet"})),
        Reply.of(ToolUse("mcp__fx__greet", {})),
        Reply.of(Text("done")),
    )
    await mcp_editor.ask("add a tool and find it")
    assert "mcp__fx__greet" not in tool_names(model.requests[1])  # deferred like the server's other tools
    (search,) = tool_results(model.requests[2])
    assert not search.get("is_error"), result_text(search)
    assert "mcp__fx__greet" in tool_names(model.requests[2])
    (greeted,) = tool_results(model.requests[3])
    assert result_text(greeted) == "found me"


async def test_a_tool_added_over_http_is_offered_once_listed(
    http_fixture: str,  # first, so it stops after the editor: its listen stream would hold the server up
    mcp_editor: Editor,
    model: FakeModel,
    workspace: Path,
) -> None:
    """Over HTTP the listen stream and a call's answer are separate responses, so the change may come after
    the answer: the tool is offered from the first request after handrail listed it (the log says when)."""
    await configure(
        mcp_editor,
        workspace,
        {"mcpServers": {"web": {"type": "http", "url": http_fixture}}, "permissions": {"allow": ["mcp__web"]}},
    )
    await logged(mcp_editor, "MCP server 'web' connected")
    model.add(Reply.of(ToolUse("mcp__web__add_tool", {"name": "greet", "text": "over http"})), Reply.of(Text("ok")))
    await mcp_editor.ask("add a tool over http")
    await logged(mcp_editor, "MCP server 'web' changed its tools: added mcp__web__greet")
    model.add(Reply.of(ToolUse("mcp__web__greet", {})), Reply.of(Text("done")))
    await mcp_editor.ask("use it")
    assert "mcp__web__greet" in tool_names(model.requests[2])
    assert result_text(tool_results(model.requests[3])[0]) == "over http"


async def test_a_server_whose_command_was_missing_runs_after_a_restart(
    mcp_editor: Editor, model: FakeModel, workspace: Path, tmp_path: Path
) -> None:
    script = tmp_path / "bin" / "late-mcp-server"
    await configure(
        mcp_editor,
        workspace,
        {"mcpServers": {"late": {"command": str(script)}}, "permissions": {"allow": ["mcp__late"]}},
    )
    failure = await logged(mcp_editor, "MCP server 'late' failed")
    assert "command not found" in failure and "handrail.restartMcpServer" in failure
    status = await command(mcp_editor, "handrail.mcpStatus")
    assert status["commands"]["restart"] == "handrail.restartMcpServer"
    (late,) = [s for s in status["servers"] if s["name"] == "late"]
    assert late["state"] == "failed" and late["tools"] == []

    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(FIXTURE))}\n")
    script.chmod(0o755)
    restarted = await command(mcp_editor, "handrail.restartMcpServer", {"name": "late"})
    assert restarted == {"restarted": True, "name": "late"}
    await logged(mcp_editor, "MCP server 'late' connected")
    late = await server_status(mcp_editor, "late")
    assert late["state"] == "running" and "mcp__late__echo" in late["tools"]

    model.add(Reply.of(ToolUse("mcp__late__echo", {"text": "at last"})), Reply.of(Text("ok")))
    await mcp_editor.ask("echo")
    (echo,) = tool_results(model.requests[1])
    assert result_text(echo) == "echo: at last"


async def test_restarting_a_running_server_and_an_unknown_one(
    mcp_editor: Editor, workspace: Path, tmp_path: Path
) -> None:
    log_file = tmp_path / "fixture.log"
    await configure(mcp_editor, workspace, {"mcpServers": {"fx": fixture_server("--log", str(log_file))}})
    await logged(mcp_editor, "MCP server 'fx' connected")
    assert await command(mcp_editor, "handrail.restartMcpServer", {"name": "fx"}) == {"restarted": True, "name": "fx"}
    await logged(mcp_editor, "MCP server 'fx' is restarting at your request")
    # a fresh runner logs "connected" (not "connected again"): wait for the second such line
    async with asyncio.timeout(DEADLINE):
        while sum("MCP server 'fx' connected" in m.message for m in mcp_editor.client.log_messages) < 2:
            await mcp_editor.client.wait_for_notification(types.WINDOW_LOG_MESSAGE)
    assert log_file.read_text().count("started") == 2
    assert (await server_status(mcp_editor, "fx"))["state"] == "running"
    unknown = await command(mcp_editor, "handrail.restartMcpServer", {"name": "nope"})
    assert unknown["restarted"] is False and "no MCP server named 'nope'" in unknown["reason"]
