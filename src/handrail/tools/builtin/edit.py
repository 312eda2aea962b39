"""Edit: replace an exact string in a file the model has read, re-anchoring over unrelated changes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from handrail.tools.builtin._common import (
    ToolInput,
    diff_check,
    display_path,
    missing_file_message,
    read_existing,
    require_absolute,
    require_read,
    validator,
    with_notes,
    write_and_record,
)
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.file_state import ReadRecord
from handrail.tools.filesystem import FileSnapshot
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.text_ops import (
    AmbiguousEditError,
    AppliedEdit,
    EditError,
    LineChange,
    apply_edit,
    detect_line_ending,
    line_changes,
    overlaps,
    snippet,
    to_lf,
    touched_lines,
    with_line_ending,
)

MODIFIED = (
    "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
)


class EditInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    file_path: str = Field(description="The absolute path to the file to modify")
    old_string: str = Field(description="The text to replace")
    new_string: str = Field(description="The text to replace it with (must be different from old_string)")
    replace_all: bool = Field(default=False, description="Replace all occurrences of old_string (default false)")


PROMPT = """Performs exact string replacements in files.

Usage:
- You must use your `Read` tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file.
- When editing text from Read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: spaces + line number + tab. Everything after that tab is the actual file content to match. Never include any part of the line number prefix in the old_string or new_string.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- Only use emojis if the user explicitly requests it. Avoid adding emojis to files unless asked.
- The edit will FAIL if `old_string` is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use `replace_all` to change every instance of `old_string`.
- Use `replace_all` for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.
- The file may be open in the user's editor; edits apply to the editor's current text. If the user changed other lines since you read the file, the edit still applies and you are told which lines changed; if they changed the lines you are editing, you must Read the file again.
- With an empty `old_string` on a file that does not exist, the file is created with `new_string` as its content."""  # noqa: E501


@dataclass(frozen=True)
class EditPlan:
    """What an Edit will do: the file now (None when creating), its new text, and what to tell the model."""

    path: Path
    base: FileSnapshot | None
    new_text: str
    applied: AppliedEdit
    note: str = ""


async def plan_edit(value: EditInput, ctx: ToolUseContext) -> EditPlan:
    """Work out an Edit against the file as it is now; raises ToolError when it cannot be made."""
    path = require_absolute(value.file_path)
    if value.old_string == value.new_string:
        raise ToolError("No changes to make: old_string and new_string are exactly the same.")
    current = await read_existing(ctx, path)
    if current is None:
        if value.old_string == "":
            return EditPlan(path, None, value.new_string, _apply("", "", value.new_string, False))
        raise ToolError(await missing_file_message(path, ctx.options.cwd))

    crlf = detect_line_ending(current.text) == "\r\n"
    text = to_lf(current.text) if crlf else current.text
    old = to_lf(value.old_string) if crlf else value.old_string
    new = to_lf(value.new_string) if crlf else value.new_string

    if old == "":
        if text.strip():
            raise ToolError(
                "Cannot create new file - file already exists. To change it, Read it and give the text to "
                "replace as old_string."
            )
        applied = _apply(text, old, new, False)
        note = ""
    else:
        record = require_read(ctx, path)
        if record.content_hash == current.content_hash:
            applied = _apply(text, old, new, value.replace_all)
            note = ""
        else:
            applied, note = _reanchor(record, current, text, old=old, new=new, replace_all=value.replace_all)
    new_text = with_line_ending(applied.text, "\r\n") if crlf else applied.text
    return EditPlan(path, current, new_text, applied, note)


def _apply(text: str, old: str, new: str, replace_all: bool) -> AppliedEdit:
    try:
        return apply_edit(text, old, new, replace_all=replace_all)
    except EditError as exc:
        raise ToolError(str(exc)) from exc


def _reanchor(
    record: ReadRecord, current: FileSnapshot, text: str, *, old: str, new: str, replace_all: bool
) -> tuple[AppliedEdit, str]:
    """Apply the edit to text that changed since the read, if the change is clear of the edit."""
    try:
        applied = apply_edit(text, old, new, replace_all=replace_all)
    except EditError as exc:
        raise ToolError(f"{MODIFIED}\n(Since your read, the string to replace {_why(exc)}.)") from exc
    changes = line_changes(record.text, current.text)
    spans = touched_lines(text, applied.offsets, len(applied.matched))
    if any(overlaps(change, first, last) for change in changes for first, last in spans):
        raise ToolError(f"{MODIFIED}\n(The lines you are editing were changed since your read.)")
    return applied, _changed_note(changes, current)


def _why(error: EditError) -> str:
    return "occurs more than once" if isinstance(error, AmbiguousEditError) else "is no longer found"


def _changed_note(changes: list[LineChange], current: FileSnapshot) -> str:
    if current.source == "buffer":
        where = "in the editor (unsaved)" if current.dirty else "in the editor"
    else:
        where = "on disk"
    described = [change.describe() for change in changes[:5]]
    if len(changes) > 5:
        described.append(f"and {len(changes) - 5} more regions")
    regions = ", ".join(described) if described else "no line-level differences"
    return (
        f"Note: the file changed {where} since you last read it ({regions}; line numbers of the current text). "
        "Your edit did not touch those lines, so it was applied to the current text. "
        "Read the file again before editing near those lines."
    )


async def _call(value: EditInput, ctx: ToolUseContext) -> ToolResult:
    plan = await plan_edit(value, ctx)
    shown = display_path(plan.path, ctx.options.cwd)
    outcome = await write_and_record(ctx, plan.path, plan.new_text, base=plan.base, label=f"Edit {shown}")
    if plan.base is None:
        return ToolResult(with_notes(f"File created successfully at: {plan.path}", outcome.note))
    applied = plan.applied
    head = f"The file {plan.path} has been updated."
    if applied.count > 1:
        head += f" All {applied.count} occurrences were replaced."
    if applied.quotes_fallback:
        head += " (old_string matched after treating curly quotes as straight ones.)"
    view = snippet(applied.text, applied.first_line, applied.last_line)
    if view:
        head += " Here's the result of running `cat -n` on a snippet of the edited file:\n" + view
    return ToolResult(with_notes(head, plan.note, outcome.note))


EDIT = build_tool(
    name="Edit",
    input_model=EditInput,
    description="Replace an exact string in a file",
    prompt=PROMPT,
    search_hint="edit modify replace string in file",
    call=_call,
    validate_input=validator(plan_edit),
    check_permissions=diff_check(plan_edit),
    paths=lambda value: (Path(value.file_path),),
    rule_content=lambda value: value.file_path,
    summary=lambda value: f"Edit {value.file_path}",
)
