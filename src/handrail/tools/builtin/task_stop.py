"""TaskStop: stop a background agent or shell."""

from __future__ import annotations

from pydantic import Field

from handrail.tools.background_agents import BackgroundAgent
from handrail.tools.builtin._common import ToolInput, validator
from handrail.tools.builtin.background_lookup import find_task, not_running
from handrail.tools.context import ToolUseContext
from handrail.tools.protocol import ToolResult, build_tool


class TaskStopInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    task_id: str = Field(description="The ID of the background agent or shell to stop")


PROMPT = """Stops a running background task (agent or shell) by its ID.
- An agent's model request and tool calls are cancelled; reports it already made stay readable with TaskOutput
- A shell's command and every process it started are killed"""


async def _check(value: TaskStopInput, ctx: ToolUseContext) -> None:
    find_task(value.task_id, ctx)


async def _call(value: TaskStopInput, ctx: ToolUseContext) -> ToolResult:
    task = find_task(value.task_id, ctx)
    if task.status != "running":
        return ToolResult(f"Task {task.id} is not running: {not_running(task)}.")
    if isinstance(task, BackgroundAgent):
        await task.stop()
        return ToolResult(f"Stopped agent {task.id} ({task.description}).")
    await task.kill()
    return ToolResult(f"Killed shell {task.id} ({task.command}).")


TASK_STOP = build_tool(
    name="TaskStop",
    input_model=TaskStopInput,
    description="Stop a background agent or shell",
    prompt=PROMPT,
    search_hint="stop kill background agent task shell",
    call=_call,
    validate_input=validator(_check),
    # Stopping work this session started changes no file and nothing the user owns: it runs unasked.
    is_read_only=lambda _: True,
    interrupt_behavior="block",
    summary=lambda value: f"stop {value.task_id}",
)
