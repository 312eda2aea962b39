"""WebSearch as the editor sees it: offered only where supported, domains from WebFetch rules, server blocks kept."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio

from handrail.fake_model import FakeModel, Reply, ServerToolUse, Text, ToolUse, WebSearchResult
from tests.e2e.editor import Editor, server_env, start_editor, tool_results


def _search_tools(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [tool for tool in request.get("tools", []) if tool.get("type", "").startswith("web_search")]


@pytest_asyncio.fixture
async def unsupported_editor(workspace: Path, model: FakeModel) -> AsyncIterator[Editor]:
    """An editor whose configured model is not one known to take the web search tool."""
    env = server_env(model.base_url, workspace.parent / "state")
    editor = await start_editor(workspace, env, init_options={"model": "local-llama-70b"})
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


@pytest_asyncio.fixture
async def search_off_editor(workspace: Path, model: FakeModel) -> AsyncIterator[Editor]:
    """An editor that switched web search off."""
    env = server_env(model.base_url, workspace.parent / "state")
    editor = await start_editor(workspace, env, init_options={"webSearch": False})
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


async def test_web_search_is_absent_without_support(unsupported_editor: Editor, model: FakeModel) -> None:
    model.add(Reply.of(Text("no search")))
    await unsupported_editor.ask("search the web")
    assert _search_tools(model.requests[0]) == []


async def test_web_search_is_absent_when_switched_off(search_off_editor: Editor, model: FakeModel) -> None:
    model.add(Reply.of(Text("no search")))
    await search_off_editor.ask("search the web")
    assert _search_tools(model.requests[0]) == []


async def test_web_search_is_offered_with_domains_from_webfetch_rules(
    trusted_editor: Editor, model: FakeModel, workspace: Path
) -> None:
    settings = workspace / ".handrail" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"deny": ["WebFetch(domain:spam.example)"]}}))
    model.add(Reply.of(Text("blocked ones")))
    await trusted_editor.ask("search")
    (search,) = _search_tools(model.requests[0])
    assert search == {"type": "web_search_20250305", "name": "web_search", "max_uses": 8,
                      "blocked_domains": ["spam.example"]}

    settings.write_text(json.dumps({"permissions": {"allow": ["WebFetch(domain:docs.python.org)"]}}))
    model.add(Reply.of(Text("allowed ones")))
    trusted_editor.answers.append("Approve")  # an allow rule in a workspace file applies once approved
    await trusted_editor.ask("search")
    assert "• allow WebFetch(domain:docs.python.org)" in trusted_editor.prompts[-1].message
    (search,) = _search_tools(model.requests[1])
    assert search["allowed_domains"] == ["docs.python.org"] and "blocked_domains" not in search


async def test_server_search_blocks_stay_in_the_history_and_need_no_tool_result(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    search = ServerToolUse("web_search", {"query": "pygls 2.1 release notes"})
    found = WebSearchResult(search.id, [("https://pygls.example/notes", "pygls notes")])
    model.add(
        Reply.of(Text("Let me search."), search, found, ToolUse("Read", {"file_path": str(workspace / "app.py")})),
        Reply.of(Text("done")),
    )
    result = await editor.ask("what changed in pygls?")
    assert result["text"] == "done" and model.errors == []
    history = model.requests[1]["messages"]
    kinds = [block["type"] for block in history[1]["content"]]
    assert kinds == ["text", "server_tool_use", "web_search_tool_result", "tool_use"]
    assert history[1]["content"][1]["input"] == {"query": "pygls 2.1 release notes"}
    assert history[1]["content"][2]["content"][0]["url"] == "https://pygls.example/notes"
    (read,) = tool_results(model.requests[1])  # only the client tool is answered
    assert not read.get("is_error")


async def test_a_paused_server_turn_is_sent_back_to_continue(editor: Editor, model: FakeModel) -> None:
    search = ServerToolUse("web_search", {"query": "long research"})
    model.add(
        Reply.of(search, WebSearchResult(search.id, [("https://a.example", "a")]), stop_reason="pause_turn"),
        Reply.of(Text("finished the research")),
    )
    result = await editor.ask("research")
    assert result["text"] == "finished the research" and model.errors == []
    resent = model.requests[1]["messages"]
    assert resent[-1]["role"] == "assistant" and resent[-1]["content"][0]["type"] == "server_tool_use"
