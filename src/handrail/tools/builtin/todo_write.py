"""TodoWrite: the agent keeps its task list for the session; the user sees it in the chat view."""

from __future__ import annotations

from pydantic import Field

from handrail.tools.builtin._common import ToolInput, allow_check
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import VALID, ToolResult, ValidationResult, build_tool
from handrail.tools.todos import TodoItem, todo_problems


class TodoWriteInput(ToolInput):
    todos: list[TodoItem] = Field(description="The updated todo list (the whole list, every time)")


PROMPT = """Use this tool to create and manage a structured task list for your current session. It helps you track
progress through multi-step work and shows the user what you are doing.

When to use it:
- A task needs three or more distinct steps, or the user gave you several things to do
- Right after you receive new instructions: capture them as todos
- When you start a task, mark it in_progress BEFORE beginning; when it is done, mark it completed at once
- When you discover follow-up work, add it

When not to use it: a single, trivial task, or a purely conversational request.

Rules:
- Send the whole list every time; it replaces the previous one.
- Each item has `content` (imperative: "Run the tests"), `activeForm` (while it runs: "Running the tests") and
  `status`: pending, in_progress or completed.
- Exactly one task should be in_progress while you work (never more than one).
- Mark a task completed only when it is fully done: tests pass, nothing is left unfinished. If you hit an error or a
  blocker, keep it in_progress and add a task describing what must be resolved."""

RESULT = (
    "Todos have been modified successfully. Keep using the todo list to track your progress, "
    "and proceed with the current tasks if applicable."
)


async def _validate(value: TodoWriteInput, ctx: ToolUseContext) -> ValidationResult:
    problems = todo_problems(value.todos)
    if problems:
        return ValidationResult(ok=False, message=" ".join(problems))
    return VALID


async def _call(value: TodoWriteInput, ctx: ToolUseContext) -> ToolResult:
    if ctx.todos is None:
        raise ToolError("There is no task list in this context, so the todos were not saved.")
    ctx.todos.replace(value.todos)
    return ToolResult(RESULT)


def _summary(value: TodoWriteInput) -> str:
    done = sum(1 for t in value.todos if t.status == "completed")
    return f"Update todos ({done}/{len(value.todos)} done)"


TODO_WRITE = build_tool(
    name="TodoWrite",
    input_model=TodoWriteInput,
    description="Update the session's task list",
    prompt=PROMPT,
    search_hint="todo task list plan progress",
    call=_call,
    validate_input=_validate,
    # It only changes the session's own list, nothing in the workspace.
    check_permissions=allow_check("TodoWrite only updates the session's task list"),
    is_read_only=lambda _: True,  # reads and writes nothing in the workspace; allowed in plan mode too
    summary=_summary,
)
