"""Grep and Glob never show what a Read deny rule covers, nor follow links out of the working directories.

Written as a hostile repository would: the denied files exist on disk, links to folders outside the
workspace and to /proc are planted in the tree, and the rules are the user's ordinary deny rules.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from handrail.permissions.context import PermissionContext
from handrail.permissions.read_scope import ReadScope
from handrail.permissions.rules import PermissionRule, parse_rule
from handrail.tools.builtin import GLOB, GREP
from handrail.tools.context import ToolUseContext
from handrail.tools.permission_flow import decide_call
from handrail.tools.protocol import Tool

from .support import BufferFileSystem, make_context, run

SECRET = "API_KEY=sk-live-123"


def _rule(text: str) -> PermissionRule:
    rule = parse_rule(text, "localSettings")
    assert isinstance(rule, PermissionRule)
    return rule


def _denying(root: Path, *rules: str, fs: BufferFileSystem | None = None) -> ToolUseContext:
    context = PermissionContext(workspace_roots=(root,), deny=tuple(_rule(r) for r in rules))
    return replace(make_context(root, fs), permission_context=context)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "secrets").mkdir()
    (root / "src" / "app.py").write_text("API_KEY = os.environ['API_KEY']\n")
    (root / ".env").write_text(SECRET + "\n")
    (root / "src" / ".env").write_text(SECRET + "\n")  # `./.env` is the root's only
    (root / "secrets" / "prod.key").write_text(SECRET + "\n")
    (root / "secrets" / "nested").mkdir()
    (root / "secrets" / "nested" / "deep.txt").write_text(SECRET + "\n")
    return root


async def _decide(tool: Tool[Any], ctx: ToolUseContext, **raw: Any) -> str:
    return (await decide_call(tool, tool.input_model.model_validate(raw), ctx)).behavior


async def test_a_denied_file_is_in_no_grep_mode(repo: Path) -> None:
    ctx = _denying(repo, "Read(./.env)")
    content = await run(GREP, ctx, pattern="API_KEY", output_mode="content")
    files = await run(GREP, ctx, pattern="API_KEY")
    counts = await run(GREP, ctx, pattern="API_KEY", output_mode="count")
    for text in (content, files, counts):
        assert str(repo / ".env") + "\n" not in text + "\n" and f"{repo / '.env'}:" not in text
        assert str(repo / "src" / ".env") in text  # another file of the same name is not covered
    assert f"{repo / '.env'}:1:" not in content and f"{repo / 'src' / '.env'}:1:{SECRET}" in content
    assert files.startswith("Found 4 files")  # app.py, src/.env and the two under secrets/
    assert "across 4 files" in counts
    # named outright, the pipeline denies it as it denies Read
    assert await _decide(GREP, ctx, pattern="API_KEY", path=".env") == "deny"


async def test_a_denied_file_is_not_listed_by_glob(repo: Path) -> None:
    ctx = _denying(repo, "Read(./.env)", "Read(./secrets/**)")
    listed = (await run(GLOB, ctx, pattern="**/*")).splitlines()
    assert sorted(listed) == [str(repo / "src" / ".env"), str(repo / "src" / "app.py")]
    assert await run(GLOB, ctx, pattern=".env") == str(repo / "src" / ".env")  # the root's is left out


async def test_a_search_rooted_in_a_denied_folder_is_denied(repo: Path) -> None:
    ctx = _denying(repo, "Read(./secrets/**)")
    assert await _decide(GREP, ctx, pattern="API_KEY", path="secrets") == "deny"
    assert await _decide(GREP, ctx, pattern="API_KEY", path=str(repo / "secrets" / "nested")) == "deny"
    assert await _decide(GLOB, ctx, pattern="*", path="secrets") == "deny"
    assert await _decide(GLOB, ctx, pattern=f"{repo}/secrets/**/*.txt") == "deny"
    decision = await decide_call(GREP, GREP.input_model(pattern="x", path="secrets"), ctx)
    assert "Read(./secrets/**)" in decision.reason.message
    # the rest of the workspace is searched, without what the rule covers
    assert await _decide(GREP, ctx, pattern="API_KEY") == "allow"
    files = await run(GREP, ctx, pattern="API_KEY")
    assert "secrets" not in files and files.startswith("Found 3 files")


async def test_only_rules_that_cover_every_name_deny_a_whole_folder(repo: Path) -> None:
    for rule in ("Read(./secrets/*.key)", "Read(./secrets/?)", "Read(./secrets/nested/*)"):
        ctx = _denying(repo, rule)
        assert await _decide(GREP, ctx, pattern="API_KEY", path="secrets") == "allow", rule
    ctx = _denying(repo, "Read(./secrets/*.key)")
    assert (await run(GREP, ctx, pattern="API_KEY", path="secrets")).splitlines() == [
        "Found 1 file",
        str(repo / "secrets" / "nested" / "deep.txt"),
    ]
    for rule in ("Read(./secrets/*)", "Read(./secrets)", "Read(secrets/)", "Read(**)"):
        ctx = _denying(repo, rule)
        assert await _decide(GREP, ctx, pattern="API_KEY", path="secrets") == "deny", rule


async def test_links_out_of_the_workspace_are_not_followed(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "credentials").write_text(SECRET + "\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "o").symlink_to(outside)
    (repo / "docs" / "env").symlink_to("/proc/self/environ")
    (repo / "docs" / "cred").symlink_to(outside / "credentials")
    ctx = _denying(repo)
    for path in (None, "docs"):
        raw = {"path": path} if path else {}
        for mode in ("content", "files_with_matches", "count"):
            text = await run(GREP, ctx, pattern="API_KEY|PATH=|HOME=", output_mode=mode, **raw)
            assert str(outside) not in text and "docs" not in text and "PATH=" not in text, (path, mode)
    listed = await run(GLOB, ctx, pattern="**/*")
    assert "docs" not in listed and str(outside) not in listed
    # named outright, the link's target is outside: the user is asked
    for target in ("docs/o", "docs/env", "docs/cred", str(repo / "docs" / "o")):
        assert await _decide(GREP, ctx, pattern="x", path=target) == "ask", target
    assert await _decide(GLOB, ctx, pattern="*", path="docs/o") == "ask"
    assert await _decide(GLOB, ctx, pattern=f"{repo}/docs/o/*") == "ask"


async def test_a_link_to_a_denied_file_is_denied_by_its_target(repo: Path) -> None:
    (repo / "notes.txt").symlink_to(repo / ".env")
    ctx = _denying(repo, "Read(./.env)")
    assert await _decide(GREP, ctx, pattern="API", path="notes.txt") == "deny"
    assert "notes.txt" not in await run(GREP, ctx, pattern="API_KEY")


async def test_rules_on_the_resolved_root_apply_through_a_linked_workspace(repo: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked-ws"
    linked.symlink_to(repo)
    context = PermissionContext(workspace_roots=(linked,), deny=(_rule(f"Read(/{repo}/.env)"),))
    ctx = replace(make_context(linked), permission_context=context)
    files = await run(GREP, ctx, pattern="API_KEY")
    assert str(linked / ".env") not in files.splitlines() and str(linked / "src" / ".env") in files
    assert str(linked / ".env") not in (await run(GLOB, ctx, pattern=".*")).splitlines()


async def test_an_unsaved_buffer_of_a_denied_file_is_not_searched(repo: Path) -> None:
    editor = BufferFileSystem()
    editor.open(repo / ".env", "API_KEY=typed-but-unsaved\n")
    editor.open(repo / "src" / "app.py", "API_KEY = 'unsaved too'\n")
    ctx = _denying(repo, "Read(./.env)", fs=editor)
    for mode in ("content", "files_with_matches", "count"):
        text = await run(GREP, ctx, pattern="API_KEY", output_mode=mode)
        assert "typed-but-unsaved" not in text and f"{repo / '.env'}" + ":" not in text
        assert str(repo / "src" / "app.py") in text
    content = await run(GREP, ctx, pattern="API_KEY", output_mode="content")
    assert "unsaved too" in content


def test_read_scope_without_rules_checks_nothing(tmp_path: Path) -> None:
    scope = ReadScope.of(PermissionContext(workspace_roots=(tmp_path,)), "Grep")
    assert not scope.denies_any and scope.listing_filter(tmp_path) is None
    assert scope.denial_of_everything_in(tmp_path) is None
    assert scope.allows(scope.forms(tmp_path / "a.txt"))
    assert not scope.allows(scope.forms(Path("/etc/passwd")))
    os.symlink("/etc", tmp_path / "etc")
    assert not scope.allows(scope.forms(tmp_path / "etc" / "passwd"))
