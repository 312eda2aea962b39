"""Bounds (issue 19, item 9): what a huge file or a flooding hook may cost the server.

How much the server reads is taken from its own `/proc/<pid>/io` (`rchar`: bytes it read through
read calls, files, pipes and sockets alike): showing five lines of a 100 MB file must not read it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, tool_results

MB = 1024 * 1024


def _bytes_read(editor: Editor) -> int:
    server = editor.client._server  # the `handrail lsp` process
    assert server is not None
    for line in Path(f"/proc/{server.pid}/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/<pid>/io")


def _log(path: Path, megabytes: int) -> Path:
    line = "2026-12-01T10:00:00 INFO request served in 3 ms " + "." * 15 + "\n"  # 64 bytes
    block = line * (MB // 64)
    with path.open("w") as handle:
        for _ in range(megabytes):
            handle.write(block)
    return path


@pytest.mark.cold_server("reads the server's own /proc/<pid>/io")
async def test_five_lines_of_a_100_mb_file_cost_a_window(editor: Editor, model: FakeModel, workspace: Path) -> None:
    log = _log(workspace / "server.log", 100)
    # a first turn loads the agent's side of the server (its imports are read too)
    model.add(Reply.of(ToolUse("Read", {"file_path": str(workspace / "notes.txt"), "limit": 1})), Reply.of("ok"))
    await editor.ask("warm up")
    read = {"file_path": str(log), "offset": 1, "limit": 5}
    model.add(Reply.of(ToolUse("Read", read)), Reply.of(ToolUse("Read", {"file_path": str(log)})),
              Reply.of(ToolUse("Edit", {"file_path": str(log), "old_string": "INFO", "new_string": "WARN"})),
              Reply.of(Text("done")))
    before = _bytes_read(editor)
    await editor.ask("what is in the log?")
    spent = _bytes_read(editor) - before
    assert spent < 4 * MB, f"the server read {spent} bytes"  # not the 100 MB file

    (window,) = tool_results(model.requests[3])
    lines = result_text(window).splitlines()
    assert lines[0].startswith("     1\t2026-12-01T10:00:00 INFO") and lines[4].startswith("     5\t")
    assert "Showing lines 1-5 of a 100.0 MB file" in result_text(window)
    (whole,) = tool_results(model.requests[4])
    assert whole["is_error"] and "File content (100.0 MB) exceeds the maximum size" in result_text(whole)
    (edit,) = tool_results(model.requests[5])
    assert edit["is_error"] and "more than the 16.0 MB the file tools load at once" in result_text(edit)


async def test_a_window_read_is_enough_to_edit_a_large_file(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    log = _log(workspace / "app.log", 2)
    with log.open("a") as handle:
        handle.write("the last line\n")
    model.add(Reply.of(ToolUse("Read", {"file_path": str(log), "offset": 32_769, "limit": 1})),
              Reply.of(ToolUse("Edit", {"file_path": str(log), "old_string": "the last line",
                                        "new_string": "the very last line"})),
              Reply.of(Text("done")))
    editor.answers.append("Allow once")
    await editor.ask("fix the last line")
    (window,) = tool_results(model.requests[1])
    assert result_text(window) == " 32769\tthe last line"
    (edit,) = tool_results(model.requests[2])
    assert not edit.get("is_error"), result_text(edit)
    assert log.read_text().endswith("the very last line\n")


async def test_a_hook_printing_300_mb_is_cut(editor: Editor, model: FakeModel, workspace: Path) -> None:
    config = workspace.parent / "state" / "xdg-config" / "handrail"
    config.mkdir(parents=True)
    flood = "head -c 300000000 /dev/zero | tr '\\0' e >&2; echo THE-END >&2; exit 2"
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": flood}]}]}
    (config / "settings.json").write_text(json.dumps({"hooks": hooks}))
    model.add(Reply.of(ToolUse("Bash", {"command": "echo hi"})), Reply.of(Text("ok")))
    await editor.ask("echo")
    (block,) = tool_results(model.requests[1])
    text = result_text(block)
    assert block["is_error"] and "bytes of hook output cut" in text and "THE-END" in text
    assert len(text) < 10_000
