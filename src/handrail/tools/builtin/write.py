"""Write: create a file, or replace the whole content of one the model has read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from handrail.tools.builtin._common import (
    ToolInput,
    diff_check,
    display_path,
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
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.text_ops import detect_line_ending, with_line_ending


class WriteInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    file_path: str = Field(description="The absolute path to the file to write (must be absolute, not relative)")
    content: str = Field(description="The content to write to the file")


PROMPT = """Writes a file to the local filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the Read tool first to read the file's contents. This tool will fail if you did not read the file first, or if it changed since you read it.
- The file_path parameter must be an absolute path. Missing parent directories are created.
- ALWAYS prefer editing existing files in the codebase with the Edit tool: it sends only the change. Use Write for new files or complete rewrites.
- The file keeps its line endings: if it uses CRLF, content written with LF is converted.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the User.
- Only use emojis if the user explicitly requests it. Avoid writing emojis to files unless asked."""  # noqa: E501


@dataclass(frozen=True)
class WritePlan:
    """What a Write will do: the file now (None when it is new) and the text it will hold."""

    path: Path
    base: FileSnapshot | None
    new_text: str


async def plan_write(value: WriteInput, ctx: ToolUseContext) -> WritePlan:
    """Check a Write against the file as it is now; raises ToolError when it may not happen."""
    path = require_absolute(value.file_path)
    current = await read_existing(ctx, path)
    if current is None:
        return WritePlan(path, None, value.content)
    record = require_read(ctx, path)
    if not FileStateCache.matches(record, current):
        raise ToolError(
            "File has been modified since read, either by the user or by a linter. "
            "Read it again before attempting to write it."
        )
    text = value.content
    if detect_line_ending(current.text) == "\r\n" and "\r\n" not in text:
        text = with_line_ending(text, "\r\n")
    return WritePlan(path, current, text)


async def _call(value: WriteInput, ctx: ToolUseContext) -> ToolResult:
    plan = await plan_write(value, ctx)
    shown = display_path(plan.path, ctx.options.cwd)
    outcome = await write_and_record(ctx, plan.path, plan.new_text, base=plan.base, label=f"Write {shown}")
    if plan.base is None:
        message = f"File created successfully at: {plan.path}"
    else:
        message = f"The file {plan.path} has been updated."
    return ToolResult(with_notes(message, outcome.note))


WRITE = build_tool(
    name="Write",
    input_model=WriteInput,
    description="Create a file or replace its whole content",
    prompt=PROMPT,
    search_hint="write create overwrite file",
    call=_call,
    validate_input=validator(plan_write),
    check_permissions=diff_check(plan_write),
    paths=lambda value: reported_paths(value.file_path),
    rule_content=lambda value: value.file_path,
    summary=lambda value: f"Write {value.file_path}",
)
