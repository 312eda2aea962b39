"""A Bash command that changes a file the user has open with unsaved changes (issue 19, item 11).

The command runs without a prompt (a rule allows it), so nothing showed the user what it does: the
user is told, in the editor, that the file on disk now differs from their buffer, naming the file.
Files open without unsaved changes, and unsaved buffers the command did not touch, raise nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from lsprotocol import types

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, tool_results

COMMAND = "cp fresh.txt notes.txt && cp fresh.txt app.py"


def _allow(workspace: Path, *rules: str) -> None:
    config = workspace.parent / "state" / "xdg-config" / "handrail"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"permissions": {"allow": list(rules)}}))


def _warnings(editor: Editor) -> list[str]:
    return [m.message for m in editor.client.messages if m.type == types.MessageType.Warning]


async def test_the_user_hears_of_a_command_changing_their_unsaved_file(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    _allow(workspace, "Bash(cp:*)", "Edit(./**)")  # a Bash rule allows the command, an Edit rule what it writes
    notes, app, other = workspace / "notes.txt", workspace / "app.py", workspace / "other.txt"
    other.write_text("beta\n")
    (workspace / "fresh.txt").write_text("from the command\n")
    editor.open(notes)
    editor.type(notes, "alpha\nbeta, and my unsaved work\ngamma\n")  # unsaved
    editor.open(app)  # open, nothing unsaved
    editor.open(other)
    editor.type(other, "beta, unsaved too\n")  # unsaved, but the command leaves it alone
    model.add(Reply.of(ToolUse("Bash", {"command": COMMAND})), Reply.of(Text("done")))
    await editor.ask("refresh them")
    assert editor.prompts == []  # the rule allowed it: the user saw nothing of the command

    (warning,) = _warnings(editor)
    assert str(notes) in warning and "unsaved changes" in warning and "differs from your buffer" in warning
    assert COMMAND in warning and str(app) not in warning and str(other) not in warning
    assert notes.read_text() == app.read_text() == "from the command\n"  # the command did change the disk ...
    assert editor.buffer(notes) == "alpha\nbeta, and my unsaved work\ngamma\n"  # ... and not the user's text
    (block,) = tool_results(model.requests[1])
    assert "the user was told" in result_text(block) and "notes.txt" in result_text(block)


async def test_nothing_is_said_when_no_unsaved_file_changed(editor: Editor, model: FakeModel, workspace: Path) -> None:
    _allow(workspace, "Bash(touch new.txt)")
    notes = workspace / "notes.txt"
    editor.open(notes)
    editor.type(notes, "alpha\nunsaved\n")
    model.add(Reply.of(ToolUse("Bash", {"command": "touch new.txt"})), Reply.of(Text("done")))
    await editor.ask("make a file")
    assert (workspace / "new.txt").exists() and _warnings(editor) == []
