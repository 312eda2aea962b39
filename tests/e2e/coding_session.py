"""A scripted coding session for caching tests and the billed-input benchmark: three questions, each
answered with several Reads and Edits (one response reads a dozen files at once), thinking before some
calls, and a final answer: 30 model requests in all."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from handrail.fake_model import FakeModel, Reply, Text, Thinking, ToolUse
from tests.e2e.editor import Editor

QUESTIONS = ("Make the first module count from one.", "Tidy the helpers.", "Bump every limit by one.")
PARALLEL_READS = 12


def write_workspace(root: Path) -> None:
    """Three modules of sixty numbered lines each, and a dozen small helpers."""
    for name in ("alpha", "beta", "gamma"):
        (root / f"{name}.py").write_text("".join(f"{name}_limit_{i} = {i}\n" for i in range(60)))
    helpers = root / "helpers"
    helpers.mkdir(exist_ok=True)
    for i in range(PARALLEL_READS):
        (helpers / f"helper_{i}.py").write_text(f"def helper_{i}(value):\n    return value + {i}\n")


def _edit(root: Path, name: str, line: int) -> ToolUse:
    old = f"{name}_limit_{line} = {line}\n"
    return ToolUse("Edit", {"file_path": str(root / f"{name}.py"), "old_string": old,
                            "new_string": f"{name}_limit_{line} = {line + 1}\n"})


def _read(root: Path, name: str) -> ToolUse:
    return ToolUse("Read", {"file_path": str(root / name)})


def question_replies(root: Path, number: int) -> list[Reply]:
    """The ten responses answering question `number` (0, 1 or 2)."""
    name = ("alpha", "beta", "gamma")[number]
    other = ("beta", "gamma", "alpha")[number]
    replies = [
        Reply.of(Thinking(f"Question {number}: look at {name}.py before changing it."), _read(root, f"{name}.py")),
        Reply.of(_read(root, f"{other}.py")),
        Reply.of(Thinking("The limits are plain assignments; one edit each."), _edit(root, name, 1)),
        Reply.of(_edit(root, name, 2)),
        Reply.of(_read(root, f"{name}.py")),
        Reply.of(_edit(root, name, 3)),
        Reply.of(Text("Checking the neighbour too."), _read(root, f"{other}.py")),
        Reply.of(_edit(root, other, 10 + number)),
    ]
    if number == 1:
        reads = [_read(root, f"helpers/helper_{i}.py") for i in range(PARALLEL_READS)]
        replies.append(Reply.of(Text("Reading every helper."), *reads))
    else:
        replies.append(Reply.of(_read(root, f"{name}.py")))
    replies.append(Reply.of(Text(f"Done with question {number}: {name}.py counts as asked.")))
    return replies


async def run_session(
    editor: Editor,
    model: FakeModel,
    root: Path,
    *,
    between: Callable[[int], Any] | None = None,
    script: Callable[[list[Reply]], Any] | None = None,
) -> str:
    """Ask the three questions in one session (opening the modules first); returns the session id.
    `between(n)` runs after question n; `script` queues a question's replies (by default on the model)."""
    for name in ("alpha", "beta", "gamma"):
        editor.open(root / f"{name}.py")
    session: str | None = None
    for number, question in enumerate(QUESTIONS):
        (script or (lambda replies: model.add(*replies)))(question_replies(root, number))
        result = await editor.ask(question, session)
        assert result["stopReason"] == "end_turn", result
        session = result["sessionId"]
        if between is not None:
            between(number)
    assert session is not None
    return session


EDIT_RULES: dict[str, Any] = {"permissions": {"allow": ["Edit"]}}
"""Initialization options that let the session's edits run without asking."""
