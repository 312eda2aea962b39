"""The Neovim plugin's MCP side, in a real headless Neovim against `handrail lsp`, the scripted model and the
SDK-built fixture MCP server (tests/e2e/mcp_fixture_server.py): prompts as slash commands and
:HandrailPrompts, `@` resource mentions, elicitation forms, and :HandrailMcp with its actions."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import tool_results
from tests.e2e.mcp_support import FIXTURE, free_port, listening
from tests.nvim.test_neovim import model, pytestmark, run_nvim, workspace

OAUTH_SERVER = FIXTURE.with_name("mcp_oauth_server.py")

__all__ = ["model", "pytestmark", "workspace"]


def fixture(*args: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FIXTURE), *args]}


def user_settings(tmp_path: Path, settings: dict[str, Any]) -> None:
    """The user's handrail settings, where the headless Neovim's server reads them ($XDG_CONFIG_HOME)."""
    path = tmp_path / "xdg" / "config" / "handrail" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))


def last_user_text(request: dict[str, Any]) -> str:
    """Everything the latest user message of a model request says (its blocks as JSON)."""
    users = [m for m in request["messages"] if m["role"] == "user"]
    return json.dumps(users[-1]["content"])


def test_plugin_runs_mcp_prompts_and_attaches_mentioned_resources(
    workspace: Path, model: FakeModel, tmp_path: Path
) -> None:
    user_settings(tmp_path, {"mcpServers": {"fx": fixture()}})
    for answer in ("positional", "named", "picked", "mentioned", "templated"):
        model.add(Reply.of(Text(answer)))
    run = run_nvim("plugin_mcp_prompts", workspace, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        # `/` at the start of the prompt: the prompts, with their usage and arguments
        assert r["slash"]["start"] == 0
        words = {item["word"]: item for item in r["slash"]["items"]}
        assert set(words) >= {"/mcp__fx__review ", "/mcp__fx__picture"}
        review = words["/mcp__fx__review "]
        assert review["abbr"] == "/mcp__fx__review <path> [focus]" and review["menu"] == "[mcp prompt]"
        assert "Review a file" in review["info"] and "arguments: path, focus?" in review["info"]
        assert [i["word"] for i in r["slash_review"]["items"]] == ["/mcp__fx__review "]
        # after the command: the arguments not given yet, as name=
        assert [i["word"] for i in r["arguments"]["items"]] == ["focus="]
        assert r["not_first_line"] == -3  # a slash command is only the prompt's start
        # `@`: files and the server's resources and template
        mentions = {i["word"]: i["menu"] for i in r["mention"]["items"]}
        assert mentions["fx:fixture://readme"] == "[mcp resource]"
        assert mentions["fx:fixture://notes/{name}"] == "[mcp template]"
        # the prompt ran as the turn, with its words bound in order (nothing appended after them)
        requests = model.requests
        assert "Please review app.py, looking for security holes." in last_user_text(requests[0])
        assert "cursor is on line" not in last_user_text(requests[0])
        assert r["positional"]["text"] == "positional"
        # name=value, in any order: bound by name (handrail.runMcpPrompt)
        assert "Please review notes.txt, looking for style issues." in last_user_text(requests[1])
        assert r["named"]["text"] == "named"
        # a required argument missing: the server says how to call it; the model is not asked
        missing = r["missing"]["error"]
        assert "needs path" in missing and "Usage: /mcp__fx__review <path> [focus]" in missing
        # :HandrailPrompts: chosen with vim.ui.select, the arguments asked (the required one again when empty)
        picker = next(s for s in r["selects"] if s["kind"] == "handrail.mcpPrompt")
        assert "/mcp__fx__review <path> [focus]  — Review a file for a kind of problem" in picker["labels"]
        asked = [i["prompt"] for i in r["inputs"][:3]]
        assert asked[0].startswith("/mcp__fx__review path") and "path is required" in asked[1]
        assert asked[2].startswith("/mcp__fx__review focus") and "[optional]" in asked[2]
        assert "Please review app.py, looking for bugs." in last_user_text(requests[2])
        assert r["picked"]["text"] == "picked"
        # a mentioned resource is attached to the turn
        assert "the fixture's readme" in last_user_text(requests[3])
        # a template completed: its variable asked and filled in, and the resource attached
        assert r["template_line"] == "Read @fx:fixture://notes/groceries"
        assert r["inputs"][-1]["prompt"] == "fx:fixture://notes/{name} — name: "
        assert "the note called groceries" in last_user_text(requests[4])
        assert len(requests) == 5


def test_plugin_fills_in_elicitation_forms_with_vim_ui(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    # the handshake era: the server may send requests (elicitation) to the client
    user_settings(tmp_path, {"mcpServers": {"fx": fixture("--handshake")}, "permissions": {"allow": ["mcp__fx"]}})
    model.add(
        Reply.of(ToolUse("mcp__fx__order", {})),
        Reply.of(ToolUse("mcp__fx__ask_name", {})),
        Reply.of(ToolUse("mcp__fx__ask_name", {})),
        Reply.of(ToolUse("mcp__fx__ask_name", {})),
        Reply.of(Text("Ordered.")),
    )
    run = run_nvim("plugin_mcp_elicit", workspace, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["capabilities"]["elicitation"] is True
        assert r["answer"]["text"] == "Ordered."
        texts = [result_text(tool_results(model.requests[i])[0]) for i in (1, 2, 3, 4)]
        assert all(t.startswith("{") for t in texts), texts
        answers = [json.loads(t) for t in texts]
        order, declined, cancelled, named = answers
        assert order == {
            "action": "accept",
            "content": {"gift": True, "size": "l", "count": 3, "toppings": ["cheese"]},
        }
        assert declined == {"action": "decline", "content": None}
        assert cancelled == {"action": "cancel", "content": None}
        assert named == {"action": "accept", "content": {"name": "Ada"}}
        selects = r["selects"]
        # the server's message first, then one question per field: required ones first
        assert selects[0]["prompt"] == "The MCP server 'fx' asks: What would you like?"
        assert selects[0]["labels"] == ["Fill in the form (5 questions)", "Decline"]
        assert selects[1]["prompt"] == "[fx] Gift wrap — Wrap it as a present" and selects[1]["labels"] == ["Yes", "No"]
        assert selects[2]["prompt"] == "[fx] Size" and selects[2]["labels"] == ["Small", "Large"]
        # the number typed wrong is asked again, saying why; its default offered
        count = [i for i in r["inputs"] if "How many" in i["prompt"]]
        assert [i["typed"] for i in count] == ["zero", "0", "3"]
        assert count[0]["default"] == "1" and count[0]["prompt"] == "[fx] How many (optional): "
        assert count[1]["prompt"].startswith("✗ not a number — ") and count[2]["prompt"].startswith("✗ at least 1 — ")
        # an optional multiple choice: Skip offered until one is chosen, then Done
        toppings = [s for s in selects if s["prompt"].startswith("[fx] Toppings")]
        assert toppings[0]["prompt"] == "[fx] Toppings (optional) [pick 1–2]"
        assert toppings[0]["labels"] == ["cheese", "ham", "olives", "Skip"]
        assert toppings[1]["prompt"] == "[fx] Toppings (optional) [pick 1–2] (chosen: cheese)"
        assert toppings[1]["labels"] == ["ham", "olives", "Done"]
        assert len(toppings) == 2
        # what is sent is shown before it is sent
        confirm = next(s for s in selects if s["prompt"].startswith("Send to 'fx'"))
        assert confirm["prompt"] == "Send to 'fx': Gift wrap = yes; Size = Large; How many = 3; Toppings = cheese"
        assert confirm["labels"] == ["Send", "Decline"]
        # Esc cancels; a server's text is shown with what could reorder it escaped
        escaped = r["escaped"]
        assert escaped["answer"] == {"action": "cancel"}
        header, field = escaped["asked"]
        assert "\u202e" not in header + field
        assert header.startswith("The MCP server 'fx\\u202e' asks: Allow \\u202egpj.exe?"), header
        assert field.startswith("[fx\\u202e] T\\u202e"), field


def test_plugin_mcp_status_approves_restarts_and_signs_in_through_the_browser(
    workspace: Path, model: FakeModel, tmp_path: Path
) -> None:
    fx_log = tmp_path / "fx.log"
    port = free_port()
    with listening([sys.executable, str(OAUTH_SERVER), str(port), str(tmp_path / "oauth.log")], port):
        remote = f"http://127.0.0.1:{port}/mcp"
        servers = {
            "fx": fixture("--log", str(fx_log)),
            "broken": fixture("--fail-start"),
            "remote": {"type": "http", "url": remote},
        }
        user_settings(tmp_path, {"mcpServers": servers})
        (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": fixture()}}))
        run = run_nvim(
            "plugin_mcp_status", workspace, model, tmp_path, FX_LOG=str(fx_log), HANDRAIL_MCP_RESTART_DELAY="0"
        )
    with run.explained():
        assert run.ok
        r = run.result
        status = r["status"]
        assert status[0].startswith("handrail MCP servers   <CR> act on one")
        assert "broken  failed  (user)" in status
        assert any(line.startswith("  ") and "database is missing" in line for line in status)
        assert any(line.startswith("fx  running  (user)  ") and line.endswith(" tools") for line in status)
        assert "proj  needs approval  (mcp.json)" in status
        assert "remote  needs sign-in  (user)" in status
        assert f"  sign in at http://127.0.0.1:{port}" in status
        # :checkhealth lists them, a warning for each that needs the user
        health = "\n".join(r["health"])
        assert "MCP server 'fx' (user): running" in health
        assert "WARNING MCP server 'proj' (mcp.json): needs approval" in health
        assert "WARNING MCP server 'broken' (user): failed" in health
        # approving shows the program it starts, then starts it
        menu = next(s for s in r["selects"] if s["kind"] == "handrail.mcpServer")
        assert menu["prompt"] == "MCP server 'proj' (needs approval)" and menu["labels"] == ["Approve and start"]
        approve = next(s for s in r["selects"] if s["kind"] == "handrail.mcpApprove")
        assert approve["prompt"] == (  # the server's question, and its digest sent back with the approval
            f"The workspace's .mcp.json defines the MCP server 'proj', which runs {sys.executable} {FIXTURE}. "
            "It can run any code with your permissions. Start it?"
        )
        assert r["proj"]["state"] == "running"
        # restart: the fixture started again
        assert fx_log.read_text().count("started") == 2
        assert "nothing to do: the MCP server 'fx' is" in r["messages"]  # approving a user's server
        # sign in: the authorization page opened in the browser through vim.ui.open, and the server runs
        (opened,) = r["opened"]
        assert opened.startswith(f"http://127.0.0.1:{port}/authorize?") and "code_challenge=" in opened
        assert f"opened in your browser: {opened}" in r["messages"]
        assert r["remote"]["tools"] == ["mcp__remote__whoami"]
        # Sign out is offered only for the server reached over HTTP; `S` on a local one says why it does nothing
        assert r["actions"] == {"fx": ["Restart"], "remote": ["Restart", "Sign out"]}
        assert "nothing to do: the MCP server 'fx' runs on this machine and has no sign-in" in r["messages"]
        # signed out: it needs a sign-in again
        assert "remote  needs sign-in  (user)" in r["after"]
        assert "Sign out: remote" in r["messages"]
