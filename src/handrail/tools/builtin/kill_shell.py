"""KillShell: stop a background shell and every process it started."""

from __future__ import annotations

from pydantic import Field

from handrail.tools.builtin._common import ToolInput, validator
from handrail.tools.builtin.background_lookup import find_shell, not_running
from handrail.tools.context import ToolUseContext
from handrail.tools.protocol import ToolResult, build_tool


class KillShellInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    shell_id: str = Field(description="The ID of the background shell to kill")


PROMPT = """Kills a running background bash shell by its ID.
- Takes a shell_id parameter identifying the shell to kill
- Stops the command and every process it started
- Use this tool when you need to terminate a long-running shell"""


async def _check(value: KillShellInput, ctx: ToolUseContext) -> None:
    find_shell(value.shell_id, ctx)


async def _call(value: KillShellInput, ctx: ToolUseContext) -> ToolResult:
    shell = find_shell(value.shell_id, ctx)
    if shell.status != "running":
        return ToolResult(f"Shell {shell.id} is not running: {not_running(shell)}.")
    await shell.kill()
    return ToolResult(f"Killed shell {shell.id} ({shell.command}).")


KILL_SHELL = build_tool(
    name="KillShell",
    input_model=KillShellInput,
    description="Stop a background shell",
    prompt=PROMPT,
    search_hint="kill stop background shell process",
    call=_call,
    validate_input=validator(_check),
    # Stopping a command this session started changes no file and nothing the user owns: it runs unasked.
    is_read_only=lambda _: True,
    interrupt_behavior="block",
    summary=lambda value: f"kill {value.shell_id}",
)
