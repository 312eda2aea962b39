"""Read: show a text file (the editor's unsaved text when it is open) numbered like `cat -n`."""

from __future__ import annotations

import math
from pathlib import Path

from pydantic import Field

from handrail.tools.builtin._common import (
    ToolInput,
    missing_file_message,
    read_existing,
    require_absolute,
    validator,
    with_notes,
)
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.text_ops import MAX_LINE_CHARS, numbered, split_lines

DEFAULT_LIMIT = 2000
MAX_OUTPUT_CHARS = 100_000

EMPTY_FILE = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
DIRTY_NOTE = (
    "<system-reminder>This is the unsaved text of the file as it is open in the editor; "
    "the file on disk differs.</system-reminder>"
)


class ReadInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    file_path: str = Field(description="The absolute path to the file to read")
    offset: int | None = Field(
        default=None,
        ge=0,
        description="The line number to start reading from. Only provide if the file is too large to read at once",
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        description="The number of lines to read. Only provide if the file is too large to read at once.",
    )


PROMPT = f"""Reads a file from the local filesystem. You can access any file directly by using this tool.
Assume this tool is able to read all files on the machine. If the User provides a path to a file assume that path is valid. It is okay to read a file that does not exist; an error will be returned.

Usage:
- The file_path parameter must be an absolute path, not a relative path
- By default, it reads up to {DEFAULT_LIMIT} lines starting from the beginning of the file
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters
- Any lines longer than {MAX_LINE_CHARS} characters will be truncated
- Results are returned using cat -n format, with line numbers starting at 1
- When the file is open in the editor with unsaved changes, you see the editor's text: that is what edits apply to
- This tool reads text files only, not directories or binary files. To list a directory, use Glob or `ls` via the Bash tool
- You must read a file before you edit or overwrite it with the Edit or Write tools
- If you read a file that exists but has empty contents you will receive a system reminder warning in place of file contents."""  # noqa: E501


async def _check(value: ReadInput, _: ToolUseContext) -> None:
    require_absolute(value.file_path)


async def _call(value: ReadInput, ctx: ToolUseContext) -> ToolResult:
    path = require_absolute(value.file_path)
    snapshot = await read_existing(ctx, path)
    if snapshot is None:
        raise ToolError(await missing_file_message(path, ctx.options.cwd))
    lines = split_lines(snapshot.text)
    dirty_note = DIRTY_NOTE if snapshot.dirty else ""
    if not lines:
        ctx.file_state.record(snapshot)
        return ToolResult(with_notes(EMPTY_FILE, dirty_note))

    start = max(value.offset or 1, 1)
    total = len(lines)
    if start > total:
        return ToolResult(
            f"<system-reminder>Warning: the file exists but is shorter than the provided offset ({start}). "
            f"The file has {total} lines.</system-reminder>"
        )
    shown = lines[start - 1 : start - 1 + (value.limit or DEFAULT_LIMIT)]
    body = numbered(shown, start)
    if len(body) > MAX_OUTPUT_CHARS:
        shown = _fit(shown, start)
        body = numbered(shown, start)
    end = start + len(shown) - 1

    whole = start == 1 and end == total
    if whole:
        ctx.file_state.record(snapshot)
    else:
        ctx.file_state.record(snapshot, offset=start, limit=len(shown))
    more = ""
    if end < total:
        more = f"(Showing lines {start}-{end} of {total}. To read more, call Read again with offset={end + 1}.)"
    return ToolResult(with_notes(body, more, dirty_note))


def _fit(lines: list[str], start: int) -> list[str]:
    """The longest leading run of `lines` whose numbered form fits in MAX_OUTPUT_CHARS."""
    size = 0
    for count, line in enumerate(lines):
        size += len(numbered([line], start + count)) + 1
        if size > MAX_OUTPUT_CHARS:
            return lines[: max(count, 1)]
    return lines


def _paths(value: ReadInput) -> tuple[Path, ...]:
    return (Path(value.file_path),)


READ = build_tool(
    name="Read",
    input_model=ReadInput,
    description="Read a text file, numbered like cat -n",
    prompt=PROMPT,
    search_hint="read view open file contents",
    call=_call,
    validate_input=validator(_check),
    is_read_only=lambda _: True,
    is_concurrency_safe=lambda _: True,
    max_result_size_chars=math.inf,  # Read bounds its own output (limit, long lines, MAX_OUTPUT_CHARS)
    paths=_paths,
    rule_content=lambda value: value.file_path,
    summary=lambda value: f"Read {value.file_path}",
)
