"""TaskOutput: the new output of a background agent or shell, optionally waiting for it to finish."""

from __future__ import annotations

import asyncio
import contextlib

from pydantic import Field

from handrail.tools.background_agents import AgentOutput, BackgroundAgent
from handrail.tools.builtin._common import ToolInput, validator
from handrail.tools.builtin.background_lookup import find_task
from handrail.tools.builtin.bash_output import render as render_shell
from handrail.tools.context import ToolUseContext
from handrail.tools.protocol import ToolResult, build_tool

DEFAULT_TIMEOUT_MS = 30_000
MAX_TIMEOUT_MS = 600_000


class TaskOutputInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    task_id: str = Field(description="The ID of the background agent or shell to read")
    block: bool = Field(default=True, description="Whether to wait for the task to finish")
    timeout: int = Field(
        default=DEFAULT_TIMEOUT_MS, ge=0, le=MAX_TIMEOUT_MS, description="How long to wait, in milliseconds"
    )


PROMPT = """Retrieves output from a running or completed background task (an agent started by Task with
run_in_background, or a shell started by Bash with run_in_background).
- Takes the task_id the starting call returned
- Returns only what is new since the last read: an agent's reports, a shell's output, with the task's status
- block (default true) waits until the task finishes or the timeout (milliseconds, default 30000) passes;
  block: false returns at once"""


def render_agent(output: AgentOutput, *, waited_out: bool) -> str:
    """The text the model reads for one TaskOutput call on an agent."""
    lines = [f"<task_id>{output.task_id}</task_id>", f"<status>{output.status}</status>"]
    if waited_out:
        lines.append("<retrieval_status>timeout: the agent is still running</retrieval_status>")
    if output.error is not None:
        lines.append(f"<error>{output.error}</error>")
    lines += [f"<report>{report}</report>" for report in output.reports]
    if not output.reports:
        lines.append("<output>(no new output)</output>")
    return "\n".join(lines)


async def _check(value: TaskOutputInput, ctx: ToolUseContext) -> None:
    find_task(value.task_id, ctx)


async def _call(value: TaskOutputInput, ctx: ToolUseContext) -> ToolResult:
    task = find_task(value.task_id, ctx)
    seconds = value.timeout / 1000
    if isinstance(task, BackgroundAgent):
        if value.block:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(seconds):
                    await task.ended()
        return ToolResult(render_agent(task.read(), waited_out=value.block and task.status == "running"))
    if value.block and task.status == "running":
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(task.finished), seconds)
    return ToolResult(render_shell(task.read()))


TASK_OUTPUT = build_tool(
    name="TaskOutput",
    input_model=TaskOutputInput,
    description="Read a background agent's or shell's new output",
    prompt=PROMPT,
    search_hint="background agent task output poll wait",
    call=_call,
    validate_input=validator(_check),
    is_read_only=lambda _: True,
    is_concurrency_safe=lambda _: True,
    interrupt_behavior="cancel",
    summary=lambda value: f"output of {value.task_id}",
)
