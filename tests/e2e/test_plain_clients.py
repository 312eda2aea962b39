"""Plain LSP clients that cannot ask, block, or confirm late, end to end: clients that answer as Helix 25.07
and Emacs Eglot 1.17 do.

- Helix answers `window/showMessageRequest` with "method not found" and declares no handrail capability.
- Eglot answers a second prompt shown while one is up with an internal error, and a prompt the user quits
  (C-g) is never answered; while a request of its own blocks, it applies edits but sends no `didChange`.

Every one of them must fail closed (nothing runs that was not approved), tell the model why, and tell the
user once, in a way the client shows.
"""

from __future__ import annotations

import ast
import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcMethodNotFound

from handrail.fake_model import Conversations, FakeModel, Hold, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, server_env, start_editor, tool_results


async def _start(workspace: Path, model: FakeModel, **env: str) -> Editor:
    environment = {**server_env(model.base_url, workspace.parent / "state"), **env}
    return await start_editor(workspace, environment, save=False, init_options={"promptTimeout": 0.5})


@pytest_asyncio.fixture
async def helix(workspace: Path, model: FakeModel) -> AsyncIterator[Editor]:
    """A client that answers like Helix 25.07: showMessageRequest is not a method it knows."""
    editor = await _start(workspace, model)

    async def not_found(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        raise JsonRpcMethodNotFound.of(types.WINDOW_SHOW_MESSAGE_REQUEST)

    editor.prompt_reply = not_found
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


@pytest_asyncio.fixture
async def eglot(workspace: Path, model: FakeModel) -> AsyncIterator[Editor]:
    """A client that answers like Eglot: one prompt at a time (a second one is an internal error)."""
    editor = await _start(workspace, model, HANDRAIL_APPLY_CONFIRM_TIMEOUT="0.5")
    yield editor
    await editor.client.shutdown_session()
    await editor.client.stop()


def _warnings(editor: Editor, text: str) -> list[str]:
    return [m.message for m in editor.client.messages if text in m.message]


async def test_helix_cannot_ask_so_nothing_runs_and_the_user_is_told_once(
    helix: Editor, model: FakeModel, workspace: Path
) -> None:
    model.add(Reply.of(ToolUse("Bash", {"command": "touch one.txt"})), Reply.of(Text("could not")))
    model.add(Reply.of(ToolUse("Bash", {"command": "touch two.txt"})), Reply.of(Text("still not")))
    first = await helix.ask("make one")
    await helix.ask("make two", session_id=first["sessionId"])

    assert not (workspace / "one.txt").exists() and not (workspace / "two.txt").exists()
    for request in (model.requests[1], model.requests[3]):
        (block,) = tool_results(request)
        text = result_text(block)
        assert block["is_error"] and "could not ask the user for approval" in text
        assert "method not found" in text.lower() and "crashed" not in text and "failed:" not in text
    (told,) = _warnings(helix, "cannot show approval prompts")  # once, however many calls were denied
    assert "handrail/settings.json" in told and "handrail.setMode" in told
    assert any("cannot show approval prompts" in m.message for m in helix.client.log_messages)


async def test_helix_results_discarded_the_turn_still_reports_through_notifications(
    helix: Editor, model: FakeModel
) -> None:
    """Helix drops command results: a non-blocking ask reports the final text in window/showMessage and
    the turn's progress in $/progress."""
    model.add(Reply.of(Text("the answer is 42")))
    started = await helix.start_ask("what is it")
    assert set(started) == {"sessionId"}
    await helix.wait_for_message(lambda m: "the answer is 42" in m.message)
    ended = await helix.wait_for_chat(lambda e: e["kind"] == "turnEnd")
    assert ended["sessionId"] == started["sessionId"]
    reports = [r for values in helix.client.progress_reports.values() for r in values]
    assert any(isinstance(r, types.WorkDoneProgressBegin) for r in reports)
    assert any(isinstance(r, types.WorkDoneProgressEnd) for r in reports)


async def test_eglot_second_prompt_waits_for_the_first(
    eglot: Editor, model: FakeModel, workspace: Path
) -> None:
    """Two sessions ask at once; the editor is shown one prompt after the other, so none is refused."""
    showing = False
    release = asyncio.Event()

    async def one_at_a_time(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        nonlocal showing
        if showing:
            raise JsonRpcInternalError("a prompt is already up")
        showing = True
        try:
            await release.wait()
            return types.MessageActionItem(title="Allow once")
        finally:
            showing = False

    eglot.prompt_reply = one_at_a_time
    talk = Conversations()
    for name in ("left", "right"):
        talk.script(f"make {name}", Reply.of(ToolUse("Bash", {"command": f"touch {name}.txt"})), Reply.of(Text("ok")))
    model.add(*talk.steps())
    await eglot.start_ask("make left")
    await eglot.start_ask("make right")
    # both calls have started (and so are about to be asked about) before the first prompt is answered
    await eglot.wait_for_chat(lambda e: e["kind"] == "toolStart" and "left" in e["summary"])
    await eglot.wait_for_chat(lambda e: e["kind"] == "toolStart" and "right" in e["summary"])
    release.set()
    ends = [await eglot.wait_for_chat(lambda e, s=s: e["kind"] == "turnEnd" and e["sessionId"] == s)
            for s in {e["sessionId"] for e in eglot.chat}]
    assert len(ends) == 2
    assert (workspace / "left.txt").exists() and (workspace / "right.txt").exists()
    assert len(eglot.prompts) == 2


async def test_eglot_prompt_never_answered_is_denied_after_the_wait(
    eglot: Editor, model: FakeModel, workspace: Path
) -> None:
    never = asyncio.Event()

    async def quit_with_c_g(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        await never.wait()
        return None

    eglot.prompt_reply = quit_with_c_g
    model.add(Reply.of(ToolUse("Bash", {"command": "touch never.txt"})), Reply.of(Text("not approved")))
    result = await eglot.ask("make it")
    assert result["text"] == "not approved"
    assert not (workspace / "never.txt").exists()
    (block,) = tool_results(model.requests[1])
    assert block["is_error"] and "no answer within 0.5 s" in result_text(block)
    (told,) = _warnings(eglot, "counts as Deny")
    assert "handrail/settings.json" in told


async def test_plain_prompts_offer_deny_first_and_name_what_runs_first(eglot: Editor, model: FakeModel) -> None:
    """Eglot pre-selects the first action, so RET denies; the first line is the command itself."""
    eglot.answers.append("Deny")
    model.add(Reply.of(ToolUse("Bash", {"command": "touch x", "description": "Make x"})), Reply.of(Text("ok")))
    await eglot.ask("make x")
    (prompt,) = eglot.prompts
    assert (prompt.actions or [])[0].title == "Deny"
    assert prompt.message.splitlines()[0] == "$ touch x"


async def test_an_edit_applied_while_the_editor_blocks_is_reported_applied_not_failed(
    eglot: Editor, model: FakeModel, workspace: Path
) -> None:
    """Eglot applies an edit during its own blocking request and reports the change only afterwards."""
    notes = workspace / "notes.txt"
    eglot.open(notes)
    eglot.held_changes = []
    eglot.answers.append("Allow once")
    model.add(
        Reply.of(ToolUse("Read", {"file_path": str(notes)})),
        Reply.of(ToolUse("Edit", {"file_path": str(notes), "old_string": "beta", "new_string": "BETA"})),
        Reply.of(Text("edited")),
    )
    await eglot.ask("shout beta")
    (block,) = tool_results(model.requests[2])
    text = result_text(block)
    assert not block.get("is_error"), text
    assert "applied; not yet confirmed by the editor" in text and "did not apply" not in text
    assert eglot.buffer(notes) == "alpha\nbeta\ngamma\n"  # the server's copy: our editor still holds it back
    eglot.report_held_changes()


async def test_an_edit_that_landed_elsewhere_says_so(eglot: Editor, model: FakeModel, workspace: Path) -> None:
    notes = workspace / "notes.txt"
    eglot.open(notes)
    eglot.answers.append("Allow once")
    eglot.edit_transform = lambda text: "a line the user typed\n" + text  # lands with the edit, in one change
    model.add(
        Reply.of(ToolUse("Read", {"file_path": str(notes)})),
        Reply.of(ToolUse("Edit", {"file_path": str(notes), "old_string": "gamma", "new_string": "GAMMA"})),
        Reply.of(Text("edited")),
    )
    await eglot.ask("shout gamma")
    (block,) = tool_results(model.requests[2])
    text = result_text(block)
    assert block["is_error"] and "applied the edit" in text and "at line 4, not line 3" in text


async def test_a_command_without_its_argument_says_what_it_takes(eglot: Editor) -> None:
    with pytest.raises(JsonRpcException) as raised:
        await eglot.client.workspace_execute_command_async(types.ExecuteCommandParams(command="handrail.ask"))
    message = str(raised.value)
    assert '"prompt": …' in message and '"sessionId": … (optional)' in message and "called with none" in message


async def test_the_ask_code_action_asks_about_the_selection_without_blocking(
    eglot: Editor, model: FakeModel, workspace: Path
) -> None:
    app = workspace / "app.py"
    eglot.open(app, "# é ☕ 🐍\ndef greet(name):\n    return 'hello ' + name\n")
    hold = Hold(Reply.of(Text("It greets.")))
    model.add(hold)
    actions = await eglot.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=eglot.uri(app)),
            range=types.Range(start=types.Position(1, 4), end=types.Position(1, 9)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    (command, arguments) = next(_commands(actions or [], "explain"))
    assert command == "handrail.startAsk"
    started = await eglot.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=arguments)
    )
    assert set(started) == {"sessionId"}  # answered while the model is still holding its reply
    hold.release.set()
    await eglot.wait_for_message(lambda m: "It greets." in m.message)
    prompt = model.requests[0]["messages"][0]["content"]
    text = prompt if isinstance(prompt, str) else "".join(b.get("text", "") for b in prompt)
    assert f"{app} line 2" in text and "```\ngreet\n```" in text


def _commands(actions: Sequence[types.Command | types.CodeAction], word: str) -> Iterator[tuple[str, list[Any]]]:
    """The command and arguments of each code action whose title has `word`.

    lsprotocol reads every code action that has a command as a Command (its `command` the action's command
    object, as text); real editors read the JSON, so the test reads that text back.
    """
    for action in actions:
        if word not in action.title:
            continue
        if isinstance(action, types.CodeAction):
            assert action.command is not None
            yield action.command.command, list(action.command.arguments or [])
        else:
            command = ast.literal_eval(action.command)
            yield command["command"], command["arguments"]


async def test_the_server_ends_on_exit_with_the_protocols_code(workspace: Path, model: FakeModel) -> None:
    """After a turn (the agent, its watcher and model client up), `exit` ends the process: 0 after
    `shutdown`, 1 without it (how fast: tests/bench/bench_exit.py)."""
    for shut_down_first, code in ((True, 0), (False, 1)):
        editor = await _start(workspace, model)
        model.add(Reply.of(Text("hi")))
        await editor.ask("hello")
        server = editor.client._server
        assert server is not None
        if shut_down_first:
            await editor.client.shutdown_session()
        else:
            editor.client.exit(None)
            await server.wait()
        await editor.client.stop()
        assert server.returncode == code
