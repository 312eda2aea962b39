"""NotebookEdit: replace, insert or delete one cell of a Jupyter notebook, keeping the notebook valid."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from handrail.tools.builtin._common import (
    ToolInput,
    diff_check,
    display_path,
    missing_file_message,
    read_existing,
    reported_paths,
    require_absolute,
    require_read,
    validator,
    with_notes,
    write_and_record,
)
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import FileSnapshot
from handrail.tools.notebooks import (
    CellEdit,
    NotebookError,
    check_notebook,
    detect_style,
    dump_notebook,
    edit_notebook,
    parse_notebook,
)
from handrail.tools.protocol import ToolResult, build_tool


class NotebookEditInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    notebook_path: str = Field(
        description="The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"
    )
    cell_id: str | None = Field(
        default=None,
        description='The ID of the cell to edit (or its 0-based index, as "3" or "cell-3"). When inserting a '
        "new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified.",
    )
    new_source: str = Field(description="The new source for the cell")
    cell_type: Literal["code", "markdown"] | None = Field(
        default=None,
        description="The type of the cell (code or markdown). If not specified, it defaults to the current cell "
        "type. If using edit_mode=insert, this is required.",
    )
    edit_mode: Literal["replace", "insert", "delete"] = Field(
        default="replace",
        description="The type of edit to make (replace, insert, delete). Defaults to replace.",
    )


PROMPT = """Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source. Jupyter notebooks are interactive documents that combine code, text, and visualizations, commonly used for data analysis and scientific computing. The notebook_path parameter must be an absolute path, not a relative path. The cell_id identifies the cell to change: its id as Read shows it, or its 0-based index (as "3" or "cell-3"). Use edit_mode=insert to add a new cell after the cell with cell_id (at the beginning when cell_id is not given); cell_type is required then. Use edit_mode=delete to delete the cell. Replacing a code cell's source clears its outputs. You must Read the notebook before editing it."""  # noqa: E501


@dataclass(frozen=True)
class NotebookPlan:
    """What a NotebookEdit will do: the notebook now, its new text, and the cell that changes."""

    path: Path
    base: FileSnapshot
    new_text: str
    edit: CellEdit


async def plan_notebook_edit(value: NotebookEditInput, ctx: ToolUseContext) -> NotebookPlan:
    """Work out the edit against the notebook as it is now; raises ToolError when it cannot be made."""
    path = require_absolute(value.notebook_path, field="notebook_path")
    if path.suffix.lower() != ".ipynb":
        raise ToolError("File must be a Jupyter notebook (.ipynb file). For other files use the Edit tool.")
    current = await read_existing(ctx, path)
    if current is None:
        raise ToolError(await missing_file_message(path, ctx.options.cwd))
    record = require_read(ctx, path)
    if not FileStateCache.matches(record, current):
        raise ToolError(
            "The notebook has been modified since read, either by the user or by another program. "
            "Read it again before attempting to edit it."
        )
    try:
        notebook = parse_notebook(current.text)
        edit = edit_notebook(
            notebook,
            cell_id=value.cell_id,
            new_source=value.new_source,
            cell_type=value.cell_type,
            mode=value.edit_mode,
        )
        check_notebook(notebook)
    except NotebookError as exc:
        raise ToolError(str(exc)) from exc
    return NotebookPlan(path, current, dump_notebook(notebook, detect_style(current.text)), edit)


async def _call(value: NotebookEditInput, ctx: ToolUseContext) -> ToolResult:
    plan = await plan_notebook_edit(value, ctx)
    shown = display_path(plan.path, ctx.options.cwd)
    outcome = await write_and_record(ctx, plan.path, plan.new_text, base=plan.base, label=f"NotebookEdit {shown}")
    edit = plan.edit
    if edit.mode == "delete":
        message = f"Deleted cell {edit.label} (index {edit.index}) from {plan.path}."
    elif edit.mode == "insert":
        message = f"Inserted a new {edit.cell_type} cell {edit.label} at index {edit.index} in {plan.path}."
    else:
        message = f"Updated cell {edit.label} (index {edit.index}, {edit.cell_type}) in {plan.path}."
        if edit.cell_type == "code":
            message += " Its outputs were cleared."
    return ToolResult(with_notes(message, outcome.note))


def _summary(value: NotebookEditInput) -> str:
    where = f" cell {value.cell_id}" if value.cell_id else ""
    return f"NotebookEdit {value.notebook_path}{where} ({value.edit_mode})"


NOTEBOOK_EDIT = build_tool(
    name="NotebookEdit",
    input_model=NotebookEditInput,
    description="Replace, insert or delete a cell in a Jupyter notebook",
    prompt=PROMPT,
    search_hint="jupyter notebook ipynb cell edit insert delete",
    call=_call,
    validate_input=validator(plan_notebook_edit),
    check_permissions=diff_check(plan_notebook_edit),
    paths=lambda value: reported_paths(value.notebook_path),
    rule_content=lambda value: value.notebook_path,
    summary=_summary,
)
