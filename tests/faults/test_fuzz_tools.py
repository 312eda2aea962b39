"""Fuzzing the tool pipeline: inputs drawn from every built-in tool's schema, and random JSON.

Calls go through the StreamingToolExecutor (parse → validate → permission → call)
with in-memory ports. Whatever comes in: nothing crashes, each call gets exactly
one tool_result, and nothing outside the workspace is touched (the prompter allows
edits inside the workspace only, as a careful user would, and denies every command
it is asked about).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import find, given
from hypothesis import strategies as st

from handrail.permissions.context import PermissionContext
from handrail.permissions.modes import PermissionMode
from handrail.tools.context import PermissionAnswer, PermissionRequest, ToolOptions, ToolUseContext
from handrail.tools.execution import ToolUse
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import DiskFileSystem
from handrail.tools.registry import all_base_tools
from handrail.tools.streaming_executor import StreamingToolExecutor
from tests.faults.schema_strategies import from_schema, json_values
from tests.tools.support import ProgressRecorder

TOOLS = all_base_tools()
PATH_FIELDS = ("file_path", "path", "notebook_path")


class DenyingPrompter:
    """Denies whatever it is asked: what runs anyway was allowed by the permission pipeline alone."""

    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        return PermissionAnswer("deny")


class InsideOnlyPrompter:
    """Allows a call only when every path in its input lies inside the workspace; denies commands."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.asked = 0

    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        self.asked += 1
        if request.tool_name == "Bash":
            return PermissionAnswer("deny", feedback="no commands while fuzzing")
        paths = [request.input.get(name) for name in PATH_FIELDS if isinstance(request.input.get(name), str)]
        inside = all((self.root / p).resolve().is_relative_to(self.root) for p in paths)
        return PermissionAnswer("allow" if paths and inside else "deny")


def _snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under `folder` with its modification time and content (symlinks not followed)."""
    found: dict[str, tuple[int, bytes]] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in filenames + dirnames:
            path = Path(dirpath) / name
            stat = path.lstat()
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            found[str(path.relative_to(folder))] = (stat.st_mtime_ns, data)
    return found


def _layout(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace with a few files, and a sentinel folder beside it that must never change."""
    root, sentinel = tmp_path / "ws", tmp_path / "sentinel"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def f():\n    return 1\n")
    (root / "notes.txt").write_text("alpha\nbeta\n")
    (root / "book.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    (root / "escape").symlink_to(sentinel)  # a way out that path checks must see through
    sentinel.mkdir()
    (sentinel / "secret.txt").write_text("do not touch\n")
    return root.resolve(), sentinel.resolve()


def _paths(root: Path, sentinel: Path) -> st.SearchStrategy[str]:
    known = [str(root / "notes.txt"), str(root / "src" / "app.py"), str(root / "book.ipynb"), "notes.txt", "src",
             str(root / "new.txt"), str(root), "escape/secret.txt", str(root / "escape" / "secret.txt"),
             str(sentinel / "secret.txt"), str(sentinel / "new.txt"), "../sentinel/secret.txt",
             "../sentinel/new.txt", str(sentinel), "/etc/hostname", "~/.bashrc", "", "\x00", "src/../../sentinel"]
    return st.sampled_from(known) | st.text(max_size=30)


def _commands(sentinel: Path) -> st.SearchStrategy[str]:
    known = ["ls", "cat notes.txt", "cat ../sentinel/secret.txt", f"cat {sentinel}/secret.txt",
             "echo hi > ../sentinel/new.txt", "touch ../sentinel/x", "rm -rf ../sentinel", "sed -i s/a/b/ notes.txt",
             "cp notes.txt ../sentinel/", "ls escape/", "find .. -name secret.txt -delete", "git status"]
    return st.sampled_from(known) | st.text(max_size=30)


def _calls(root: Path, sentinel: Path) -> st.SearchStrategy[list[tuple[str, Any]]]:
    overrides = {name: _paths(root, sentinel) for name in PATH_FIELDS} | {"command": _commands(sentinel)}
    by_schema = [
        st.tuples(st.just(tool.name), from_schema(tool.definition()["input_schema"], overrides)) for tool in TOOLS
    ]
    names = st.sampled_from([t.name for t in TOOLS]) | st.text(max_size=12)
    random = st.tuples(names, json_values())
    return st.lists(st.one_of(*by_schema, random), min_size=1, max_size=4)


async def _run(
    calls: list[tuple[str, Any]], root: Path, input_errors: list[bool], mode: PermissionMode
) -> list[dict[str, Any]]:
    ctx = ToolUseContext(
        options=ToolOptions(cwd=root, workspace_roots=(root,), bash_timeout_ms=5000),
        fs=DiskFileSystem(),
        file_state=FileStateCache(),
        prompter=InsideOnlyPrompter(root) if mode == "default" else DenyingPrompter(),
        progress=ProgressRecorder(),
        permission_context=PermissionContext(workspace_roots=(root,), mode=mode),
    )
    executor = StreamingToolExecutor(TOOLS, lambda: ctx)
    ids = [f"toolu_fuzz_{i}" for i in range(len(calls))]
    for tool_id, (name, value), broken in zip(ids, calls, input_errors, strict=True):
        executor.add(ToolUse(tool_id, name, value, input_error="Expecting value: line 1" if broken else None))
    executor.finish()
    outcomes = await asyncio.wait_for(executor.collect(), 60)
    blocks = [o.block for o in outcomes]
    assert [b["tool_use_id"] for b in blocks] == ids
    for block in blocks:
        assert block["type"] == "tool_result"
        assert isinstance(block["content"], str | list)
    return blocks


# default: every edit is asked about, and the user allows those inside the workspace;
# acceptEdits: edits inside the workspace run unasked, so path confinement alone must keep the rest out
@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
def test_random_tool_calls_keep_every_invariant(tmp_path: Path, mode: PermissionMode) -> None:
    root, sentinel = _layout(tmp_path)
    outside_before = _snapshot(sentinel)
    neighbours = sorted(p.name for p in tmp_path.iterdir())
    seen: list[tuple[str, bool]] = []

    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        calls = data.draw(_calls(root, sentinel), label="calls")
        broken = data.draw(st.lists(st.booleans().filter(lambda b: not b) | st.just(True),
                                    min_size=len(calls), max_size=len(calls)), label="input_error")
        blocks = asyncio.run(_run(calls, root, broken, mode))
        seen.extend((name, bool(b.get("is_error"))) for (name, _), b in zip(calls, blocks, strict=True))
        assert _snapshot(sentinel) == outside_before
        assert sorted(p.name for p in tmp_path.iterdir()) == neighbours

    check()
    # a tool the draws happened to miss still gets its minimal schema-valid call, under the same checks
    for tool in TOOLS:
        if tool.name not in {name for name, _ in seen}:
            call = find(_calls(root, sentinel), lambda calls, name=tool.name: calls[0][0] == name)[:1]
            blocks = asyncio.run(_run(call, root, [False], mode))
            seen.append((tool.name, bool(blocks[0].get("is_error"))))
            assert _snapshot(sentinel) == outside_before
    # not vacuous: calls of every tool were made, and some of them got through to do their work
    assert {name for name, _ in seen} >= {t.name for t in TOOLS}
    assert any(not is_error for _, is_error in seen)
