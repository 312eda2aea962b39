"""TodoWrite: the list is validated as a whole, kept on the board, and needs no permission."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from handrail.permissions.context import PermissionContext
from handrail.tools.builtin.todo_write import TODO_WRITE
from handrail.tools.execution import ToolUse, run_tool_use
from handrail.tools.permission_flow import decide_call
from handrail.tools.todos import MemoryTodoBoard, TodoItem, todo_problems, todos_json

from .support import make_context


def item(content: str, status: str = "pending") -> dict[str, str]:
    return {"content": content, "status": status, "activeForm": f"Doing {content}"}


async def test_a_valid_list_replaces_the_board(tmp_path: Path) -> None:
    board = MemoryTodoBoard()
    ctx = replace(make_context(tmp_path), todos=board)
    todos = [item("one", "completed"), item("two", "in_progress"), item("three")]
    outcome = await run_tool_use(ToolUse("t1", "TodoWrite", {"todos": todos}), [TODO_WRITE], ctx)
    assert not outcome.is_error and "modified successfully" in outcome.block["content"]
    assert todos_json(board.current()) == todos
    await run_tool_use(ToolUse("t2", "TodoWrite", {"todos": []}), [TODO_WRITE], ctx)
    assert board.current() == ()


@pytest.mark.parametrize(
    ("todos", "words"),
    [
        ([item("a", "in_progress"), item("b", "in_progress")], "At most one task may be in_progress"),
        ([item("")], "content"),
        ([item("   ")], "must not be blank"),
        ([{"content": "a", "status": "done", "activeForm": "A"}], "status"),
        ([{"content": "a", "status": "pending"}], "activeForm"),
        ([{**item("a"), "priority": "high"}], "priority"),
    ],
)
async def test_invalid_lists_are_refused_and_change_nothing(
    tmp_path: Path, todos: list[dict[str, str]], words: str
) -> None:
    board = MemoryTodoBoard()
    board.replace([TodoItem.model_validate(item("kept"))])
    ctx = replace(make_context(tmp_path), todos=board)
    outcome = await run_tool_use(ToolUse("t1", "TodoWrite", {"todos": todos}), [TODO_WRITE], ctx)
    assert outcome.is_error and words in outcome.block["content"]
    assert [t.content for t in board.current()] == ["kept"]


async def test_no_board_is_an_error(tmp_path: Path) -> None:
    outcome = await run_tool_use(
        ToolUse("t1", "TodoWrite", {"todos": [item("a")]}), [TODO_WRITE], make_context(tmp_path)
    )
    assert outcome.is_error and "no task list" in outcome.block["content"]


@pytest.mark.parametrize("mode", ["default", "plan", "dontAsk"])
async def test_needs_no_permission_in_any_mode(tmp_path: Path, mode: str) -> None:
    ctx = replace(make_context(tmp_path), permission_context=PermissionContext(workspace_roots=(tmp_path,), mode=mode))
    value = TODO_WRITE.input_model.model_validate({"todos": [item("a")]})
    assert (await decide_call(TODO_WRITE, value, ctx)).behavior == "allow"


def test_problems_of_a_whole_list() -> None:
    items = [TodoItem.model_validate(item(name, "in_progress")) for name in ("a", "b", "c")]
    (problem,) = todo_problems(items)
    assert "3 are: a; b; c" in problem
    assert todo_problems(items[:1]) == []
