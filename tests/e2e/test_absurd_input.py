"""Absurd tool input from the model (issue 19, item 10): an error for that call, and the turn goes on.

The fake model streams each input as raw JSON text, the way a model (or whatever stands between it
and handrail) could send it: nested 100,000 levels deep, with numbers JSON has no place for, with
text that is not valid Unicode, not an object at all. Every tool_use gets exactly one tool_result, the
conversation (and its transcript) stays one the API and a restarted server accept.
"""

from __future__ import annotations

import json
from pathlib import Path

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, tool_results
from tests.e2e.test_mcp import fixture_server, user_settings, wait_state

DEEP = 100_000


def _deep(field: str, value: str) -> str:
    return '{"%s": %s, "x": %s%s}' % (field, value, "[" * DEEP, "]" * DEEP)  # noqa: UP031


async def test_absurd_inputs_are_errors_of_their_calls_only(editor: Editor, model: FakeModel, workspace: Path) -> None:
    notes = json.dumps(str(workspace / "notes.txt"))
    absurd = {
        "nested 100,000 levels": _deep("file_path", notes),
        "nested 70 levels": '{"file_path": %s, "x": %s1%s}' % (notes, "[" * 70, "]" * 70),  # noqa: UP031
        "NaN": '{"file_path": %s, "limit": NaN}' % notes,  # noqa: UP031
        "Infinity": '{"file_path": %s, "limit": 1e999}' % notes,  # noqa: UP031
        "a 5,000-digit number": '{"file_path": %s, "limit": 1%s}' % (notes, "0" * 5000),  # noqa: UP031
        "an unpaired surrogate": '{"file_path": "\\ud800"}',
        "not an object": "[1, 2, 3]",
        "a string": '"read it"',
    }
    uses = [ToolUse("Read", raw) for raw in absurd.values()]
    fine = ToolUse("Read", {"file_path": str(workspace / "notes.txt")})
    model.add(Reply.of(*uses, fine), Reply.of(Text("done")))
    result = await editor.ask("read it, somehow")
    assert result["stopReason"] == "end_turn" and result["text"] == "done"

    blocks = tool_results(model.requests[1])
    assert [b["tool_use_id"] for b in blocks] == [u.id for u in [*uses, fine]]  # one each, in order
    for (what, _), block in zip(absurd.items(), blocks, strict=False):
        text = result_text(block)
        assert block["is_error"] and "could not be used" in text and "did not run" in text, (what, text)
    assert "nested more than 64 levels deep" in result_text(blocks[0])
    assert "NaN or Infinity" in result_text(blocks[2]) and "unpaired surrogate" in result_text(blocks[5])
    assert not blocks[-1].get("is_error") and "beta" in result_text(blocks[-1])
    # the history sent back holds no absurd input
    assistant = model.requests[1]["messages"][1]["content"]
    assert [b["input"] for b in assistant if b["type"] == "tool_use"][:-1] == [{}] * len(absurd)

    # the transcript is plain JSON, and a restarted server's session goes on from it
    transcript = workspace.parent / "state" / "sessions" / result["sessionId"] / "transcript.jsonl"
    assert all(isinstance(json.loads(line), dict) for line in transcript.read_text().splitlines())
    model.add(Reply.of(Text("still here")))
    again = await editor.ask("and now?", session_id=result["sessionId"])
    assert again["text"] == "still here"


async def test_absurd_input_for_an_mcp_tool_never_reaches_its_server(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    user_settings(workspace, {"mcpServers": {"fx": fixture_server()}, "permissions": {"allow": ["mcp__fx"]}})
    await wait_state(editor, "fx", "running")
    deep = ToolUse("mcp__fx__echo", _deep("text", '"hi"'))
    fine = ToolUse("mcp__fx__echo", {"text": "after"})
    model.add(Reply.of(deep, fine), Reply.of(Text("done")))
    result = await editor.ask("echo")
    assert result["stopReason"] == "end_turn"
    first, second = tool_results(model.requests[1])
    assert first["is_error"] and "nested more than 64 levels deep" in result_text(first)
    assert "did not run" in result_text(first)  # turned away before the call was sent
    assert not second.get("is_error") and "after" in result_text(second)
