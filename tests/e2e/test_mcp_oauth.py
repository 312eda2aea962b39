"""OAuth for a remote MCP server, end to end: an SDK-built protected server (its own authorization server) on
127.0.0.1, `handrail lsp` signing in through the editor's browser (`window/showDocument`), the tokens in a 0600
file, refreshed on reconnect without the browser, and revoked on sign-out."""

from __future__ import annotations

import json
import stat
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx2
import pytest
import pytest_asyncio

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.mcp.sign_in_files import sign_in_path
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, server_env, start_editor, tool_results
from tests.e2e.mcp_support import command, free_port, listening, read_text, until, user_settings, wait_state

OAUTH_SERVER = Path(__file__).with_name("mcp_oauth_server.py")


@pytest.fixture
def auth_log(tmp_path: Path) -> Path:
    return tmp_path / "oauth.log"


@pytest.fixture
def protected(auth_log: Path) -> Iterator[str]:
    """The protected server; yields its URL once it listens."""
    port = free_port()
    with listening([sys.executable, str(OAUTH_SERVER), str(port), str(auth_log)], port):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest_asyncio.fixture
async def oauth_editor(
    protected: str,  # first, so it stops after the editor
    workspace: Path,
    model: FakeModel,
) -> AsyncIterator[Editor]:
    env = {**server_env(model.base_url, workspace.parent / "state"), "HANDRAIL_MCP_RESTART_DELAY": "0"}
    editor = await start_editor(workspace, env)
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


async def browse(url: str) -> None:
    """What the user's browser does: open the authorization page, which (approving at once) redirects to handrail."""
    async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as http:
        page = await http.get(url)
    assert page.status_code == 200, page.text


async def test_sign_in_through_the_browser_refresh_and_sign_out(
    oauth_editor: Editor, model: FakeModel, workspace: Path, protected: str, auth_log: Path
) -> None:
    editor = oauth_editor
    editor.answers.append("Sign in")
    user_settings(
        workspace,
        {"mcpServers": {"remote": {"type": "http", "url": protected}}, "permissions": {"allow": ["mcp__remote"]}},
    )
    await until(lambda: bool(editor.prompts), "never asked to sign in")
    (asked,) = editor.prompts
    assert asked.message == f"The MCP server 'remote' needs you to sign in at {protected.removesuffix('/mcp')}."
    await until(lambda: bool(editor.client.shown_documents), "the browser was never opened")
    (opened,) = editor.client.shown_documents
    assert opened.external and "/authorize?" in opened.uri and "code_challenge=" in opened.uri
    await browse(opened.uri)
    status = await wait_state(editor, "remote", "running")
    assert status["tools"] == ["mcp__remote__whoami"]
    assert status["remote"] is True  # so the clients offer Sign out
    assert any("Signed in to the MCP server 'remote'" in m.message for m in editor.client.log_messages)

    file = sign_in_path(workspace.parent / "state", "remote", protected)
    assert stat.S_IMODE(file.stat().st_mode) == 0o600 and stat.S_IMODE(file.parent.stat().st_mode) == 0o700
    assert "refresh_token" in file.read_text()

    model.add(Reply.of(ToolUse("mcp__remote__whoami", {})), Reply.of(Text("ok")))
    await editor.ask("who am I?")
    assert result_text(tool_results(model.requests[1])[0]) == "a signed-in client"

    # the access token expires (as the file says); a fresh connection refreshes it: no browser, no question
    kept = json.loads(file.read_text())
    file.write_text(json.dumps({**kept, "expires_at": 1}))
    assert (await command(editor, "handrail.restartMcpServer", {"name": "remote"}))["restarted"] is True
    await until(lambda: "refreshed" in read_text(auth_log), "the token was never refreshed")
    await wait_state(editor, "remote", "running")
    assert len(editor.client.shown_documents) == 1 and len(editor.prompts) == 1

    signed_out = await command(editor, "handrail.signOutMcpServer", {"name": "remote"})
    assert signed_out["signedOut"] is True and "revoked the refresh token" in signed_out["detail"]
    assert "revoked refresh" in read_text(auth_log)
    # no tokens are left; the connection started afresh may already keep its loopback port (and registration)
    assert "tokens" not in stored(file)
    await wait_state(editor, "remote", "needsSignIn")  # it asks again; no browser opens by itself
    assert "tokens" not in stored(file)
    assert len(editor.client.shown_documents) == 1


def stored(file: Path) -> dict[str, object]:
    """What a sign-in file holds ({} when there is none)."""
    try:
        found: dict[str, object] = json.loads(file.read_text())
    except FileNotFoundError:
        return {}
    return found


async def test_the_tools_of_a_server_that_needs_a_sign_in_are_not_offered(
    oauth_editor: Editor, model: FakeModel, workspace: Path, protected: str, auth_log: Path
) -> None:
    editor = oauth_editor
    editor.answers.append("Not now")
    user_settings(workspace, {"mcpServers": {"remote": {"type": "http", "url": protected}}})
    status = await wait_state(editor, "remote", "needsSignIn")
    assert status["signInAt"] == protected.removesuffix("/mcp")
    model.add(Reply.of(Text("hello")))
    await editor.ask("hi")
    assert not any(t["name"].startswith("mcp__remote") for t in model.requests[0].get("tools", []))
    assert editor.client.shown_documents == []  # no browser without the user's word
    assert "authorized" not in read_text(auth_log)
