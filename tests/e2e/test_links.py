"""Edits through symbolic and hard links (issue 19, item 8), as a repository would plant them.

A link stays a link and its target changes; the permission decision is about the target (outside the
workspace, a protected folder); a file with several hard links keeps them shared, and editing it asks,
since its other names may be anywhere; an open document gets the edit under the URI the editor has.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from lsprotocol import types

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import Editor, tool_results

NOTEBOOK = {
    "cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "source": ["x = 1\n"], "outputs": [],
               "execution_count": None}],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


async def _accept_edits(editor: Editor) -> None:
    await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="handrail.setMode", arguments=[{"mode": "acceptEdits"}])
    )


def _read(path: Path) -> ToolUse:
    return ToolUse("Read", {"file_path": str(path)})


def _edit(path: Path, old: str, new: str) -> ToolUse:
    return ToolUse("Edit", {"file_path": str(path), "old_string": old, "new_string": new})


def _assert_ok(blocks: list[dict[str, object]]) -> None:
    for block in blocks:
        assert not block.get("is_error"), result_text(block)


async def test_every_edit_tool_writes_through_a_link(editor: Editor, model: FakeModel, workspace: Path) -> None:
    (workspace / "real.txt").write_text("one\ntwo\n")
    (workspace / "link.txt").symlink_to("real.txt")
    (workspace / "data").mkdir()
    (workspace / "data" / "config.txt").write_text("debug = false\n")
    (workspace / "config.txt").symlink_to("data/config.txt")
    (workspace / "real.ipynb").write_text(json.dumps(NOTEBOOK))
    (workspace / "nb.ipynb").symlink_to("real.ipynb")
    await _accept_edits(editor)
    link, config, notebook = workspace / "link.txt", workspace / "config.txt", workspace / "nb.ipynb"
    model.add(
        Reply.of(_read(link), _read(config), _read(notebook)),
        Reply.of(_edit(link, "two", "TWO")),
        Reply.of(ToolUse("MultiEdit", {"file_path": str(link), "edits": [{"old_string": "one", "new_string": "ONE"}]})),
        Reply.of(ToolUse("Write", {"file_path": str(config), "content": "debug = true\n"})),
        Reply.of(ToolUse("NotebookEdit", {"notebook_path": str(notebook), "cell_id": "c1", "new_source": "x = 2\n"})),
        Reply.of(Text("done")),
    )
    await editor.ask("edit them all")
    for request in model.requests[1:]:
        _assert_ok(tool_results(request))
    assert editor.prompts == []  # acceptEdits: the targets are inside the workspace
    assert link.is_symlink() and os.readlink(link) == "real.txt"
    assert (workspace / "real.txt").read_text() == "ONE\nTWO\n"
    assert config.is_symlink() and (workspace / "data" / "config.txt").read_text() == "debug = true\n"
    assert notebook.is_symlink() and "x = 2" in (workspace / "real.ipynb").read_text()


async def test_a_link_out_of_the_workspace_asks_about_its_target(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    outside = workspace.parent / "elsewhere"
    outside.mkdir()
    secret = outside / "profile.txt"
    secret.write_text("export SAFE=1\n")
    docs = workspace / "docs.txt"
    docs.symlink_to(secret)  # committed by the repository
    await _accept_edits(editor)
    model.add(Reply.of(_read(docs)), Reply.of(_edit(docs, "SAFE=1", "SAFE=0")), Reply.of(Text("done")))
    editor.answers.extend(["Allow once", "Allow once"])
    await editor.ask("tweak the docs")
    _, edit = editor.prompts  # reading the target asks too: it is outside the workspace
    assert str(secret) in edit.message and "outside the working directories" in edit.message
    _assert_ok(tool_results(model.requests[2]))
    assert secret.read_text() == "export SAFE=0\n"  # what the user approved is what changed
    assert docs.is_symlink() and os.readlink(docs) == str(secret)


async def test_a_link_into_git_asks_and_a_denial_changes_nothing(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    (workspace / ".git").mkdir()
    config = workspace / ".git" / "config"
    config.write_text("[core]\n\tbare = false\n")
    innocent = workspace / "settings.ini"
    innocent.symlink_to(".git/config")
    await _accept_edits(editor)
    model.add(
        Reply.of(_read(innocent)),
        Reply.of(_edit(innocent, "bare = false", "bare = false\n\tfsmonitor = touch pwned")),
        Reply.of(Text("done")),
    )
    editor.answers.append("Deny")
    await editor.ask("fix settings")
    (prompt,) = editor.prompts
    assert ".git/ folder" in prompt.message
    assert config.read_text() == "[core]\n\tbare = false\n" and innocent.is_symlink()


async def test_hard_links_stay_shared_and_editing_them_asks(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    notes = workspace / "notes.txt"
    twin = workspace / "twin.txt"
    os.link(notes, twin)
    await _accept_edits(editor)
    model.add(Reply.of(_read(twin)), Reply.of(_edit(twin, "beta", "BETA")), Reply.of(Text("done")))
    editor.answers.append("Allow once")
    await editor.ask("shout beta in the twin")
    (prompt,) = editor.prompts  # acceptEdits does not settle it: the other names may be anywhere
    assert "2 hard links" in prompt.message
    _assert_ok(tool_results(model.requests[2]))
    assert twin.read_text() == notes.read_text() == "alpha\nBETA\ngamma\n"
    assert twin.stat().st_ino == notes.stat().st_ino


@pytest.mark.parametrize("opened", ["link", "target"])
async def test_an_open_document_gets_the_edit_under_its_own_uri(
    editor: Editor, model: FakeModel, workspace: Path, opened: str
) -> None:
    real = workspace / "real.txt"
    real.write_text("one\ntwo\n")
    link = workspace / "link.txt"
    link.symlink_to("real.txt")
    shown, edited = (link, real) if opened == "link" else (real, link)
    editor.open(shown)
    await _accept_edits(editor)
    model.add(Reply.of(_read(edited)), Reply.of(_edit(edited, "two", "TWO")), Reply.of(Text("done")))
    await editor.ask("edit")
    _assert_ok(tool_results(model.requests[2]))
    (applied,) = editor.edits
    (change,) = applied.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.uri == editor.uri(shown)
    assert editor.buffer(shown) == "one\nTWO\n" and real.read_text() == "one\nTWO\n"
    assert link.is_symlink()
