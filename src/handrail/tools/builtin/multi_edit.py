"""MultiEdit: several exact replacements in one file, applied in order, all or nothing, in one write."""

from __future__ import annotations

from pydantic import Field

from handrail.tools.builtin._common import ToolInput, diff_check, reported_paths, validator
from handrail.tools.builtin.edit import EditPlan, plan_edits, write_edits
from handrail.tools.context import ToolUseContext
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.text_ops import EditSpec


class EditOperation(ToolInput):
    # No docstring: it would become the schema description the model sees.
    old_string: str = Field(description="The text to replace")
    new_string: str = Field(description="The text to replace it with")
    replace_all: bool = Field(default=False, description="Replace all occurrences of old_string (default false).")


class MultiEditInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    file_path: str = Field(description="The absolute path to the file to modify")
    edits: list[EditOperation] = Field(
        min_length=1, description="Array of edit operations to perform sequentially on the file"
    )


PROMPT = """This is a tool for making multiple edits to a single file in one operation. It is built on top of the Edit tool and allows you to perform multiple find-and-replace operations efficiently. Prefer this tool over the Edit tool when you need to make multiple edits to the same file.

Before using this tool:
1. Use the Read tool to understand the file's contents and context
2. Verify the directory path is correct

To make multiple file edits, provide the following:
1. file_path: The absolute path to the file to modify (must be absolute, not relative)
2. edits: An array of edit operations to perform, where each edit contains:
   - old_string: The text to replace (must match the file contents exactly, including all whitespace and indentation)
   - new_string: The edited text to replace the old_string
   - replace_all: Replace all occurrences of old_string. This parameter is optional and defaults to false.

IMPORTANT:
- All edits are applied in sequence, in the order they are provided
- Each edit operates on the result of the previous edit
- All edits must be valid for the operation to succeed - if any edit fails, none will be applied
- This tool is ideal when you need to make several changes to different parts of the same file
- The whole change is written at once: in the editor it is one undo step

CRITICAL REQUIREMENTS:
1. All edits follow the same requirements as the single Edit tool
2. The edits are atomic - either all succeed or none are applied
3. Plan your edits carefully to avoid conflicts between sequential operations: an edit's old_string must not be text an earlier edit in the same call wrote

WARNING:
- The tool will fail if edits.old_string doesn't match the file contents exactly (including whitespace)
- The tool will fail if edits.old_string and edits.new_string are the same
- Since edits are applied in sequence, ensure that earlier edits don't affect the text that later edits are trying to find

When making edits:
- Ensure all edits result in idiomatic, correct code
- Do not leave the code in a broken state
- Always use absolute file paths (starting with /)
- Only use emojis if the user explicitly requests it. Avoid adding emojis to files unless asked.
- Use replace_all for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.

If you want to create a new file, use:
- A new file path, including dir name if needed
- First edit: empty old_string and the new file's contents as new_string
- Subsequent edits: normal edit operations on the created content"""  # noqa: E501


async def plan_multi_edit(value: MultiEditInput, ctx: ToolUseContext) -> EditPlan:
    """Work out every edit against the file as it is now; raises ToolError naming the edit that cannot be made."""
    specs = [EditSpec(edit.old_string, edit.new_string, edit.replace_all) for edit in value.edits]
    return await plan_edits(value.file_path, specs, ctx)


async def _call(value: MultiEditInput, ctx: ToolUseContext) -> ToolResult:
    return await write_edits(await plan_multi_edit(value, ctx), ctx, tool="MultiEdit")


def _summary(value: MultiEditInput) -> str:
    count = len(value.edits)
    return f"MultiEdit {value.file_path} ({count} edit{'s' if count != 1 else ''})"


MULTI_EDIT = build_tool(
    name="MultiEdit",
    input_model=MultiEditInput,
    description="Make several exact string replacements in one file at once",
    prompt=PROMPT,
    search_hint="multiple edits replace strings in one file atomically",
    call=_call,
    validate_input=validator(plan_multi_edit),
    check_permissions=diff_check(plan_multi_edit),
    paths=lambda value: reported_paths(value.file_path),
    rule_content=lambda value: value.file_path,
    summary=_summary,
)
