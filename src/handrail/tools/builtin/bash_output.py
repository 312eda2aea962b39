"""BashOutput: the new output of a background shell since the last read, with its status."""

from __future__ import annotations

import re

from pydantic import Field

from handrail.tools.background_shells import ShellOutput
from handrail.tools.builtin._common import ToolInput, validator
from handrail.tools.builtin.background_lookup import find_shell
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import ToolResult, build_tool


class BashOutputInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    bash_id: str = Field(description="The ID of the background shell to retrieve output from")
    filter: str | None = Field(
        default=None,
        description="Optional regular expression to filter the output lines. Only lines matching this regular "
        "expression will be included in the result. Any lines that do not match will no longer be available to read.",
    )


PROMPT = """Retrieves output from a running or completed background bash shell.
- Takes a bash_id parameter identifying the shell (the ID Bash gave when run_in_background was true)
- Always returns only new output since the last check, with the shell's status
  (running, completed, failed, killed) and exit code
- Supports optional regex filtering to show only lines matching a pattern
- Use this tool when you need to monitor or check the output of a long-running shell"""


def _pattern(value: BashOutputInput) -> re.Pattern[str] | None:
    if value.filter is None:
        return None
    try:
        return re.compile(value.filter)
    except re.error as exc:
        raise ToolError(f"filter is not a valid regular expression: {exc}") from exc


async def _check(value: BashOutputInput, ctx: ToolUseContext) -> None:
    _pattern(value)
    find_shell(value.bash_id, ctx)


def render(output: ShellOutput) -> str:
    """The text the model reads for one BashOutput call."""
    lines = [f"<status>{output.status}</status>"]
    if output.exit_code is not None:
        lines.append(f"<exit_code>{output.exit_code}</exit_code>")
    if output.dropped_chars:
        lines.append(f"<dropped>{output.dropped_chars} characters of older output were dropped</dropped>")
    if output.filtered_lines:
        lines.append(f"<filtered>{output.filtered_lines} lines did not match the filter</filtered>")
    lines.append(
        f"<output>{output.text.rstrip(chr(10))}</output>" if output.text else "<output>(no new output)</output>"
    )
    return "\n".join(lines)


async def _call(value: BashOutputInput, ctx: ToolUseContext) -> ToolResult:
    return ToolResult(render(find_shell(value.bash_id, ctx).read(_pattern(value))))


BASH_OUTPUT = build_tool(
    name="BashOutput",
    input_model=BashOutputInput,
    description="Read a background shell's new output",
    prompt=PROMPT,
    search_hint="background shell output poll",
    call=_call,
    validate_input=validator(_check),
    is_read_only=lambda _: True,
    is_concurrency_safe=lambda _: True,
    interrupt_behavior="cancel",
    summary=lambda value: f"output of {value.bash_id}",
)
