"""The execution engine seen from the editor: batching and order, and tool calls in failing streams."""

from __future__ import annotations

from pathlib import Path

from handrail.fake_model import FakeModel, Reply, StreamError, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, tool_results


async def test_reads_run_before_the_edit_and_results_keep_order(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    app, notes = workspace / "app.py", workspace / "notes.txt"
    (workspace / "more.txt").write_text("more\n")
    uses = [
        ToolUse("Read", {"file_path": str(app)}, id="r1"),
        ToolUse("Read", {"file_path": str(notes)}, id="r2"),
        ToolUse("Read", {"file_path": str(workspace / "more.txt")}, id="r3"),
        ToolUse("Grep", {"pattern": "beta", "path": str(workspace)}, id="g1"),
        ToolUse("Edit", {"file_path": str(notes), "old_string": "beta", "new_string": "BETA"}, id="e1"),
    ]
    model.add(Reply.of(*uses), Reply.of(Text("done")))
    editor.answers.append("Allow once")
    result = await editor.ask("read three files, grep, then edit")
    assert result["stopReason"] == "end_turn"
    results = tool_results(model.requests[1])
    assert [b["tool_use_id"] for b in results] == ["r1", "r2", "r3", "g1", "e1"]
    assert not any(b.get("is_error") for b in results), results
    assert "notes.txt" in result_text(results[3])
    events = [(e["kind"], e.get("toolUseId")) for e in editor.chat if e["kind"] in {"toolStart", "toolResult"}]
    edit_start = events.index(("toolStart", "e1"))
    for other in ("r1", "r2", "r3", "g1"):
        assert events.index(("toolResult", other)) < edit_start  # the non-safe Edit waited for the batch
    assert notes.read_text() == "alpha\nBETA\ngamma\n"


async def test_stream_failing_after_a_tool_started_is_not_replayed(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    notes = workspace / "notes.txt"
    broken = Reply.of(ToolUse("Read", {"file_path": str(notes)}, id="r1"), Text("and then the stream breaks"))
    model.add(StreamError(after_blocks=1, reply=broken), Reply.of(Text("carried on")))
    result = await editor.ask("read notes")
    assert (result["stopReason"], result["text"]) == ("end_turn", "carried on") and "error" not in result
    assert len(model.requests) == 2  # answered and continued, not retried
    assistant = model.requests[1]["messages"][-2]
    assert [b["type"] for b in assistant["content"]] == ["tool_use"]
    (block,) = tool_results(model.requests[1])
    assert block["tool_use_id"] == "r1"
    assert model.errors == []


async def test_tool_call_cut_by_max_tokens_is_answered_not_run(editor: Editor, model: FakeModel) -> None:
    cut = Reply.of(ToolUse("Bash", '{"command": "echo never', id="b1"), stop_reason="max_tokens")
    model.add(cut, Reply.of(Text("shorter this time")))
    result = await editor.ask("run something long")
    assert result["text"] == "shorter this time"
    (block,) = tool_results(model.requests[1])
    assert block["is_error"] and block["tool_use_id"] == "b1"
    assert editor.prompts == []  # never got as far as asking to run it
    assert model.errors == []
