"""First end-to-end checks: a text-only turn and a read + edit of an open, clean buffer."""

from __future__ import annotations

from pathlib import Path

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from tests.e2e.editor import Editor


async def test_text_answer(editor: Editor, model: FakeModel) -> None:
    model.add(Reply.of(Text("Hello from the model.")))
    result = await editor.ask("say hello")
    assert result["stopReason"] == "end_turn"
    assert result["text"] == "Hello from the model."
    assert "".join(e["text"] for e in editor.chat if e["kind"] == "text") == "Hello from the model."


async def test_read_then_edit_open_clean_buffer(editor: Editor, model: FakeModel, workspace: Path) -> None:
    app = workspace / "app.py"
    editor.open(app)
    model.add(
        Reply.of(ToolUse("Read", {"file_path": str(app)})),
        Reply.of(ToolUse("Edit", {"file_path": str(app), "old_string": "'hello '", "new_string": "'hi '"})),
        Reply.of(Text("Changed the greeting.")),
    )
    editor.answers.append("Allow once")
    result = await editor.ask("make the greeting shorter")
    assert result["stopReason"] == "end_turn", result
    expected = "def greet(name):\n    return 'hi ' + name\n"
    assert editor.buffer(app) == expected
    assert app.read_text() == expected
    assert len(editor.prompts) == 1  # the Read ran without asking, the Edit asked once
    requests = model.requests
    tool_results = [b for b in requests[2]["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert not tool_results[0].get("is_error"), tool_results
