"""A Bash output over its limit is saved whole in the session's results folder; the model gets its ends and
the path, and can read the file back."""

from __future__ import annotations

from pathlib import Path

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, tool_results


async def test_a_big_output_is_saved_and_its_path_given(editor: Editor, model: FakeModel, workspace: Path) -> None:
    run = ToolUse("Bash", {"command": "seq 1 50000"})
    model.add(Reply.of(run), Reply.of(Text("seen it")))
    editor.answers.append("Allow once")
    await editor.ask("count to fifty thousand")
    (result,) = tool_results(model.requests[-1])
    text = result_text(result)
    saved = workspace.parent / "state" / "sessions"
    (path,) = saved.glob(f"*/tool-results/{run.id}.txt")
    assert path.read_text() == "".join(f"{i}\n" for i in range(1, 50001))
    assert str(path) in text and text.startswith("1\n2\n") and "49999\n50000" in text
    assert len(text) < 3_000
    assert model.errors == []
