"""Edit: replace an exact string in a file the model has read, re-anchoring over unrelated changes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

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
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.text_ops import (
    AmbiguousEditError,
    AppliedEdits,
    EditError,
    EditOverlapError,
    EditSpec,
    EditStepError,
    LineChange,
    StringNotFoundError,
    apply_edits,
    detect_line_ending,
    line_changes,
    snippet,
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
    """What an Edit or MultiEdit will do: the file now (None when creating), its new text, what to tell the model."""

    path: Path
    base: FileSnapshot | None
    new_text: str
    applied: AppliedEdits
    note: str = ""


async def plan_edits(file_path: str, edits: Sequence[EditSpec], ctx: ToolUseContext) -> EditPlan:
    """Work out edits to one file, applied in order to the file as it is now; all of them or none.

    Raises ToolError (naming the failing edit when there are several) when they cannot be made.
    """
    path = require_absolute(file_path)
    if path.suffix.lower() == ".ipynb":
        raise ToolError("File is a Jupyter notebook. Use the NotebookEdit tool to change its cells.")
    for index, edit in enumerate(edits):
        if edit.old == edit.new:
            raise ToolError(_numbered(index, len(edits), NO_CHANGE))
    current = await read_existing(ctx, path)
    if current is None:
        if edits[0].old == "":
            return EditPlan(path, None, *_applied("", edits, [], stale=False))
        raise ToolError(await missing_file_message(path, ctx.options.cwd))

    if detect_line_ending(current.text) == "\r\n":
        # Match and write in the file's own line endings, so untouched lines stay byte for byte.
        edits = [EditSpec(_crlf(e.old), _crlf(e.new), e.replace_all) for e in edits]
    if edits[0].old == "":
        if current.text.strip():
            raise ToolError(
                "Cannot create new file - file already exists. To change it, Read it and give the text to "
                "replace as old_string."
            )
        return EditPlan(path, current, *_applied(current.text, edits, [], stale=False))
    record = require_read(ctx, path)
    stale = not FileStateCache.matches(record, current)
    if stale and record.text is None:  # too large to keep: what changed since the read is not known
        raise ToolError(MODIFIED)
    changed = line_changes(record.text, current.text) if stale and record.text is not None else []
    new_text, applied = _applied(current.text, edits, changed, stale=stale)
    return EditPlan(path, current, new_text, applied, _changed_note(changed, current) if stale else "")


NO_CHANGE = "No changes to make: old_string and new_string are exactly the same."


def _crlf(text: str) -> str:
    return with_line_ending(text, "\r\n") if "\n" in text else text


def _numbered(index: int, count: int, message: str) -> str:
    if count == 1:
        return message
    return f"Edit {index + 1} of {count}: {message}\nNone of the edits were applied."


def _applied(
    text: str, edits: Sequence[EditSpec], changed: list[LineChange], *, stale: bool
) -> tuple[str, AppliedEdits]:
    try:
        applied = apply_edits(text, edits, changed=changed)
    except EditStepError as exc:
        cause = exc.cause
        if isinstance(cause, EditOverlapError):
            message = f"{MODIFIED}\n(The lines you are editing were changed since your read.)"
        elif stale and isinstance(cause, StringNotFoundError | AmbiguousEditError):
            message = f"{MODIFIED}\n(Since your read, the string to replace {_why(cause)}.)\n{cause}"
        else:
            message = str(cause)
        raise ToolError(_numbered(exc.index, len(edits), message)) from exc
    return applied.text, applied


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


async def write_edits(plan: EditPlan, ctx: ToolUseContext, *, tool: str) -> ToolResult:
    """Write a planned Edit/MultiEdit in one write (one undo step) and tell the model what happened."""
    shown = display_path(plan.path, ctx.options.cwd)
    outcome = await write_and_record(ctx, plan.path, plan.new_text, base=plan.base, label=f"{tool} {shown}")
    if plan.base is None:
        return ToolResult(with_notes(f"File created successfully at: {plan.path}", outcome.note))
    steps = plan.applied.steps
    if len(steps) == 1:
        head = f"The file {plan.path} has been updated."
        if steps[0].count > 1:
            head += f" All {steps[0].count} occurrences were replaced."
    else:
        head = f"Applied {len(steps)} edits to {plan.path}."
    fallbacks = [str(n) for n, step in enumerate(steps, 1) if step.quotes_fallback]
    if fallbacks:
        which = "" if len(steps) == 1 else f" (edit {', '.join(fallbacks)})"
        head += f" (old_string matched after treating curly quotes as straight ones{which}.)"
    view = _snippets(plan.new_text, plan.applied.spans)
    if view:
        head += " Here's the result of running `cat -n` on a snippet of the edited file:\n" + view
    return ToolResult(with_notes(head, plan.note, outcome.note))


def _snippets(text: str, spans: tuple[tuple[int, int], ...], *, context: int = 4, most: int = 5) -> str:
    """Numbered views of `text` around `spans` (nearby spans merged), at most `most` of them."""
    merged: list[list[int]] = []
    for first, last in sorted(spans):
        if merged and first - merged[-1][1] <= 2 * context + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    views = [snippet(text, first, last, context=context) for first, last in merged[:most]]
    if len(merged) > most:
        views.append(f"(and {len(merged) - most} more changed regions)")
    return "\n...\n".join(view for view in views if view)


async def plan_edit(value: EditInput, ctx: ToolUseContext) -> EditPlan:
    """Work out an Edit against the file as it is now; raises ToolError when it cannot be made."""
    return await plan_edits(value.file_path, [EditSpec(value.old_string, value.new_string, value.replace_all)], ctx)


async def _call(value: EditInput, ctx: ToolUseContext) -> ToolResult:
    return await write_edits(await plan_edit(value, ctx), ctx, tool="Edit")


EDIT = build_tool(
    name="Edit",
    input_model=EditInput,
    description="Replace an exact string in a file",
    prompt=PROMPT,
    search_hint="edit modify replace string in file",
    call=_call,
    validate_input=validator(plan_edit),
    check_permissions=diff_check(plan_edit),
    paths=lambda value: reported_paths(value.file_path),
    rule_content=lambda value: value.file_path,
    summary=lambda value: f"Edit {value.file_path}",
)
