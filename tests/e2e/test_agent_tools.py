"""Agent tools as the editor sees them: AskUserQuestion, plan mode, WebFetch, and diagnostics fed back after edits."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.workspace import TextDocument

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, server_env, start_editor, tool_results
from tests.local_http import serve_http

QUESTIONS = [
    {
        "question": "Which database should the cache use?",
        "header": "Database",
        "options": [
            {"label": "SQLite", "description": "a file next to the project"},
            {"label": "Redis", "description": "a server"},
        ],
        "multiSelect": False,
    },
    {
        "question": "Which checks should run?",
        "header": "Checks",
        "options": [
            {"label": "Lint", "description": "ruff"},
            {"label": "Types", "description": "mypy"},
            {"label": "Tests", "description": "pytest"},
        ],
        "multiSelect": True,
    },
]


@pytest_asyncio.fixture
async def full_editor(workspace: Path, model: FakeModel) -> AsyncIterator[Editor]:
    """An editor that declares handrail/permission, handrail/askUser and forwards its diagnostics."""
    env = server_env(model.base_url, workspace.parent / "state")
    editor = await start_editor(workspace, env, rich=True, extra={"askUser": True, "diagnostics": True})
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


async def _command(editor: Editor, command: str, argument: dict[str, object] | None = None) -> Any:
    return await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=[argument or {}])
    )


# ---------------------------------------------------------------- AskUserQuestion


async def test_ask_user_question_through_handrail_ask_user(full_editor: Editor, model: FakeModel) -> None:
    model.add(Reply.of(ToolUse("AskUserQuestion", {"questions": QUESTIONS})), Reply.of(Text("thanks")))
    full_editor.question_answers.append(
        {"answers": {QUESTIONS[0]["question"]: "Keep it in memory", QUESTIONS[1]["question"]: "Lint, Tests"}}
    )
    result = await full_editor.ask("set up the cache")
    assert result["text"] == "thanks"
    (prompt,) = full_editor.prompts
    assert prompt["questions"] == QUESTIONS and prompt["toolUseId"].startswith("toolu_")
    (block,) = tool_results(model.requests[1])
    text = result_text(block)
    assert not block.get("is_error")
    assert '"Which database should the cache use?" = "Keep it in memory"' in text  # an "Other" answer
    assert '"Which checks should run?" = "Lint, Tests"' in text


async def test_ask_user_question_through_show_message_request(editor: Editor, model: FakeModel) -> None:
    model.add(Reply.of(ToolUse("AskUserQuestion", {"questions": QUESTIONS})), Reply.of(Text("thanks")))
    editor.answers.extend(["Redis", "Types"])
    await editor.ask("set up the cache")
    first, second = editor.prompts
    assert first.message.startswith("[Database] Which database") and [a.title for a in first.actions] == [
        "SQLite",
        "Redis",
    ]
    assert "this editor can take one" in second.message  # multi-select reduced to one choice
    (block,) = tool_results(model.requests[1])
    assert not block.get("is_error")
    assert '= "Redis"' in result_text(block) and '= "Types"' in result_text(block)
    # a dismissed question is an error result
    model.add(Reply.of(ToolUse("AskUserQuestion", {"questions": QUESTIONS[:1]})), Reply.of(Text("ok")))
    await editor.ask("again")
    (declined,) = tool_results(model.requests[3])
    assert declined["is_error"] and "declined" in result_text(declined)


# ---------------------------------------------------------------- plan mode


async def test_plan_mode_denies_an_edit_and_exit_restores_the_mode(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    await _command(editor, "handrail.setMode", {"mode": "acceptEdits", "sessionId": "s1"})
    write = {"file_path": str(workspace / "new.txt"), "content": "x\n"}
    model.add(
        Reply.of(ToolUse("EnterPlanMode", {})),
        Reply.of(ToolUse("Write", write)),
        Reply.of(ToolUse("ExitPlanMode", {"plan": "1. write new.txt"})),
        Reply.of(ToolUse("ExitPlanMode", {"plan": "1. write new.txt\n2. nothing else"})),
        Reply.of(ToolUse("Write", write)),
        Reply.of(Text("done")),
    )
    editor.answers.extend(["Keep planning", "Approve plan"])
    result = await editor.ask("plan, then write", session_id="s1")
    assert result["stopReason"] == "end_turn"
    entered, denied, kept, approved, written = (tool_results(r)[0] for r in model.requests[1:6])
    assert "Entered plan mode" in result_text(entered)
    assert denied["is_error"] and "plan mode" in result_text(denied)
    assert kept["is_error"] and "stays in plan mode" in result_text(kept)
    assert not approved.get("is_error") and "acceptEdits" in result_text(approved)
    assert not written.get("is_error") and (workspace / "new.txt").read_text() == "x\n"
    assert "1. write new.txt" in editor.prompts[0].message
    modes = [event["mode"] for event in editor.chat if event["kind"] == "mode"]
    assert modes == ["acceptEdits", "plan", "acceptEdits"]  # setMode, EnterPlanMode, ExitPlanMode
    described = await _command(editor, "handrail.permissions", {"sessionId": "s1"})
    assert described["mode"] == "acceptEdits"


async def test_exit_plan_mode_through_handrail_permission(full_editor: Editor, model: FakeModel) -> None:
    model.add(
        Reply.of(ToolUse("EnterPlanMode", {})),
        Reply.of(ToolUse("ExitPlanMode", {"plan": "# Plan\nrefactor"})),
        Reply.of(Text("done")),
    )
    full_editor.answers.append("allow")
    await full_editor.ask("plan")
    (prompt,) = full_editor.prompts
    assert prompt["tool"] == "ExitPlanMode" and prompt["input"] == {"plan": "# Plan\nrefactor"}
    (approved,) = tool_results(model.requests[2])
    assert not approved.get("is_error") and "mode now: default" in result_text(approved)


# ---------------------------------------------------------------- WebFetch


class _Site(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/page":
            body = b"<html><head><title>Cache guide</title><script>evil()</script></head><body>"
            body += b"<h2>Eviction</h2><p>Entries expire after <b>15 minutes</b>.</p></body></html>"
            self._send(200, "text/html; charset=utf-8", body)
        elif self.path == "/moved":
            self.send_response(301)
            self.send_header("Location", "/page")
            self.end_headers()
        elif self.path == "/elsewhere":
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{self.server.server_port}/page")
            self.end_headers()
        elif self.path == "/image":
            self._send(200, "image/png", b"\x89PNG\r\n")
        else:
            self._send(404, "text/plain", b"no")

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    """A small web site on 127.0.0.1 (an ephemeral port)."""
    with serve_http(_Site) as url:
        yield url


async def test_web_fetch_answers_from_the_page_with_the_small_model(
    editor: Editor, model: FakeModel, site: str
) -> None:
    seen: list[dict[str, Any]] = []

    def small_model(request: dict[str, Any]) -> Reply:
        seen.append(request)
        return Reply.of(Text("Entries expire after 15 minutes."))

    model.add(
        Reply.of(ToolUse("WebFetch", {"url": f"{site}/moved", "prompt": "How long do entries live?"})),
        small_model,
        Reply.of(ToolUse("WebFetch", {"url": f"{site}/elsewhere", "prompt": "?"})),
        Reply.of(ToolUse("WebFetch", {"url": f"{site}/image", "prompt": "?"})),
        Reply.of(Text("done")),
    )
    editor.answers.extend(["Always allow", "Allow once"])  # the second: localhost is another domain
    await editor.ask("read the guide")
    assert "WebFetch(domain:127.0.0.1)" in [a.title for a in editor.prompts[0].actions][2]  # after Deny, Allow once
    (request,) = seen
    assert request["model"] == "claude-haiku-5-5" and not request.get("tools")
    content = request["messages"][0]["content"]
    assert "# Cache guide" in content and "## Eviction" in content and "**15 minutes**" in content
    assert "evil()" not in content and "How long do entries live?" in content
    (answered,) = tool_results(model.requests[2])
    assert "Entries expire after 15 minutes." in result_text(answered) and not answered.get("is_error")
    (redirect,) = tool_results(model.requests[3])
    assert "REDIRECT DETECTED" in result_text(redirect) and "http://localhost:" in result_text(redirect)
    (image,) = tool_results(model.requests[4])
    assert image["is_error"] and "image/png" in result_text(image)


async def test_web_fetch_without_small_model_returns_markdown(
    workspace: Path, model: FakeModel, site: str
) -> None:
    env = server_env(model.base_url, workspace.parent / "state")
    editor = await start_editor(workspace, env, init_options={"smallModel": False})
    try:
        model.add(Reply.of(ToolUse("WebFetch", {"url": f"{site}/page", "prompt": "?"})), Reply.of(Text("done")))
        editor.answers.append("Allow once")
        await editor.ask("read")
        (block,) = tool_results(model.requests[1])
        text = result_text(block)
        assert "not answered (no small model is configured)" in text and "## Eviction" in text
    finally:
        await editor.client.shutdown_session()
        await editor.client.stop()


async def test_web_fetch_denied_by_a_domain_rule(editor: Editor, model: FakeModel, workspace: Path, site: str) -> None:
    settings = workspace / ".handrail" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"deny": ["WebFetch(domain:127.0.0.1)"]}}))
    model.add(Reply.of(ToolUse("WebFetch", {"url": f"{site}/page", "prompt": "?"})), Reply.of(Text("done")))
    await editor.ask("read")
    (block,) = tool_results(model.requests[1])
    assert block["is_error"] and "Permission denied" in result_text(block) and "domain:127.0.0.1" in result_text(block)
    assert editor.prompts == []


# ---------------------------------------------------------------- diagnostics


def _diagnostics_after_edit(editor: Editor) -> None:
    """Like a language server: an error on the line that now calls an undefined name."""

    def publish(document: TextDocument) -> None:
        found = [
            {
                "range": {"start": {"line": n, "character": 11}, "end": {"line": n, "character": 20}},
                "severity": 1,
                "source": "pyright",
                "message": '"undefined" is not defined',
            }
            for n, line in enumerate(document.source.splitlines())
            if "undefined" in line
        ]
        editor.client.protocol.notify(
            "handrail/diagnostics", {"uri": document.uri, "version": document.version, "diagnostics": found}
        )

    editor.after_edit = publish


async def test_diagnostics_fed_back_after_an_edit(full_editor: Editor, model: FakeModel, workspace: Path) -> None:
    app = workspace / "app.py"
    full_editor.open(app)
    _diagnostics_after_edit(full_editor)
    edit = {"file_path": str(app), "old_string": "'hello ' + name", "new_string": "undefined + name"}
    model.add(
        Reply.of(ToolUse("Read", {"file_path": str(app)})),
        Reply.of(ToolUse("Edit", edit)),
        Reply.of(ToolUse("Diagnostics", {"file_path": str(app)})),
        Reply.of(Text("done")),
    )
    full_editor.answers.append("allow")
    await full_editor.ask("break it")
    (edited,) = tool_results(model.requests[2])
    text = result_text(edited)
    assert "1 new error(s) in the lines just changed" in text
    assert '2:12 error: "undefined" is not defined [pyright]' in text
    (listed,) = tool_results(model.requests[3])
    assert "app.py (1 error)" in result_text(listed)


# ---------------------------------------------------------------- abandoned prompts


async def _cancel_while_prompting(editor: Editor) -> dict[str, Any]:
    editor.release_prompt = asyncio.Event()  # the user never answers in time
    ask = asyncio.create_task(editor.ask("go", session_id="s1"))
    await editor.prompt_started.wait()
    await _command(editor, "handrail.cancel", {"sessionId": "s1"})
    result = await ask
    editor.release_prompt.set()
    return result


async def test_cancelling_the_turn_closes_the_open_prompts(full_editor: Editor, model: FakeModel) -> None:
    model.add(Reply.of(ToolUse("Bash", {"command": "touch never.txt"})))
    assert (await _cancel_while_prompting(full_editor))["stopReason"] == "cancelled"
    bash_id = full_editor.prompts[0]["toolUseId"]
    assert {"kind": "permission", "toolUseId": bash_id, "decision": "cancelled"} in [
        {k: e.get(k) for k in ("kind", "toolUseId", "decision")} for e in full_editor.chat
    ]
    full_editor.prompt_started.clear()
    model.add(Reply.of(ToolUse("AskUserQuestion", {"questions": QUESTIONS[:1]})))
    assert (await _cancel_while_prompting(full_editor))["stopReason"] == "cancelled"
    question_id = full_editor.prompts[1]["toolUseId"]
    cancelled = [e for e in full_editor.chat if e["kind"] == "permission" and e["decision"] == "cancelled"]
    assert [e["toolUseId"] for e in cancelled] == [bash_id, question_id]
