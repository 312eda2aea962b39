"""Grep and Glob through `handrail lsp` in a workspace with denied files and links out of it."""

from __future__ import annotations

import json
from pathlib import Path

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, tool_results

SECRET = "API_KEY=sk-live-e2e"


async def test_grep_and_glob_leave_out_denied_files_and_links_out(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    (workspace / ".handrail").mkdir()
    (workspace / ".handrail" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Read(./.env)", "Read(./secrets/**)"]}})
    )
    (workspace / ".env").write_text(SECRET + "\n")
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "prod.txt").write_text(SECRET + "\n")
    (workspace / "config.py").write_text("API_KEY = os.environ['API_KEY']\n")
    outside = workspace.parent / "outside"
    outside.mkdir()
    (outside / "creds").write_text(SECRET + "\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "o").symlink_to(outside)
    (workspace / "docs" / "env").symlink_to("/proc/self/environ")
    calls = [
        ToolUse("Grep", {"pattern": "API_KEY|ANTHROPIC", "output_mode": "content"}),
        ToolUse("Grep", {"pattern": "API_KEY|ANTHROPIC"}),
        ToolUse("Grep", {"pattern": "API_KEY|ANTHROPIC", "output_mode": "count"}),
        ToolUse("Glob", {"pattern": "**/*"}),
        ToolUse("Grep", {"pattern": "API_KEY", "path": "secrets"}),
        ToolUse("Glob", {"pattern": "*", "path": "secrets"}),
    ]
    model.add(Reply.of(*calls), Reply.of(Text("searched")))
    await editor.ask("find the API key")

    content, files, counts, listed, in_secrets, listed_secrets = tool_results(model.requests[1])
    for result in (content, files, counts, listed):
        text = result_text(result)
        assert not result.get("is_error"), text
        assert "sk-live" not in text and str(workspace / ".env") not in text
        assert str(workspace / "secrets") not in text and str(workspace / "docs") not in text
        assert "config.py" in text
    for denied in (in_secrets, listed_secrets):
        assert denied["is_error"] and "Read(./secrets/**)" in result_text(denied)
    assert editor.prompts == []  # nothing needed asking: the denied parts were simply left out
