"""Task (alias Agent): start a sub-agent with its own conversation; its final report is the result."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import Field

from handrail.tools.agent_tool_sets import TASK_TOOL_ALIASES, TASK_TOOL_NAME
from handrail.tools.builtin._common import ToolInput
from handrail.tools.builtin_agents import DEFAULT_AGENT_TYPE
from handrail.tools.context import SubAgentRequest, ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import VALID, Tool, ToolResult, ValidationResult, build_tool


class TaskInput(ToolInput):
    description: str = Field(description="A short (3-5 word) description of the task")
    prompt: str = Field(description="The task for the agent to perform")
    subagent_type: str | None = Field(
        default=None,
        description=f"The type of specialized agent to use for this task (default: {DEFAULT_AGENT_TYPE})",
    )
    run_in_background: bool = Field(
        default=False,
        description="Set to true to run this agent in the background. Use TaskOutput to read its report later.",
    )


def task_prompt(agent_types: Mapping[str, str]) -> str:
    """The tool's description for the model, listing the agent types it may start."""
    listing = "\n".join(f"- {name}: {description}" for name, description in agent_types.items())
    return f"""Launch a new agent to handle complex, multi-step tasks autonomously.

Available agent types and when to use them:
{listing}

When using this tool, you may name the agent type in `subagent_type` (default: {DEFAULT_AGENT_TYPE}).

When NOT to use it: to read a specific file path (use Read), to find a class or a file by name (use Glob or Grep),
or to search within two or three known files (use Read). Those are faster done directly.

Usage notes:
- Launch several agents at once when the work allows: put several Task calls in one message; they run in parallel.
- The agent's final message is returned to you; the user does not see it. Summarise what matters for the user.
- Each agent starts with no memory of this conversation: its prompt must be self-contained, say exactly what to do
  and what to report back, and whether it should change code or only research.
- Agents never ask you follow-up questions; trust what they report, but verify changes that matter.
- With `run_in_background: true` the call returns an agent ID at once and the agent works on while you do.
  Read its report with TaskOutput (block: true waits for it), send it a follow-up with SendMessage, and stop it
  with TaskStop. A background agent cannot ask the user anything: tool calls the permission rules do not allow
  are denied to it, and it only has tools that are safe to run unattended."""


async def _validate(value: TaskInput, ctx: ToolUseContext) -> ValidationResult:
    if not value.description.strip():
        return ValidationResult(ok=False, message="description must not be empty.")
    if not value.prompt.strip():
        return ValidationResult(ok=False, message="prompt must not be empty: the agent knows nothing else.")
    if ctx.agents is None:
        return ValidationResult(ok=False, message="Sub-agents cannot be started here.")
    wanted = value.subagent_type or DEFAULT_AGENT_TYPE
    if not ctx.agents.known_agent(wanted):
        available = ", ".join(ctx.agents.agent_types())
        return ValidationResult(ok=False, message=f"Agent type {wanted!r} not found. Available agents: {available}")
    return VALID


async def _call(value: TaskInput, ctx: ToolUseContext) -> ToolResult:
    if ctx.agents is None:
        raise ToolError("Sub-agents cannot be started here.")
    request = SubAgentRequest(value.description, value.prompt, value.subagent_type or DEFAULT_AGENT_TYPE)
    if value.run_in_background:
        task_id = ctx.agents.start_background(request, ctx)
        return ToolResult(
            f"Started agent {task_id} in the background ({value.description}). It works on while you continue; "
            f"read its report with TaskOutput (task_id: {task_id!r}), message it with SendMessage, stop it with "
            "TaskStop."
        )
    text = await ctx.agents.run_agent(request, ctx)
    return ToolResult(text or "(The agent finished without a report.)")


def task_tool(agent_types: Mapping[str, str]) -> Tool[TaskInput]:
    """The Task tool for a session whose agents are `agent_types` (name → when to use it)."""
    tool: Tool[TaskInput] = build_tool(
        name=TASK_TOOL_NAME,
        aliases=TASK_TOOL_ALIASES,
        input_model=TaskInput,
        description="Launch a sub-agent for a complex, multi-step task",
        prompt=task_prompt(agent_types),
        search_hint="sub-agent delegate parallel research task",
        call=_call,
        validate_input=_validate,
        # `Task(Explore)` / `Agent(Explore)` rules name the agent type: deny one agent, allow another
        rule_content=lambda value: value.subagent_type or DEFAULT_AGENT_TYPE,
        # Starting an agent changes nothing by itself: each of its own tool calls is checked and asked for.
        is_read_only=lambda _: True,
        is_concurrency_safe=lambda _: True,
        interrupt_behavior="cancel",  # stopping the turn stops the agent
        summary=lambda value: value.description,
        max_result_size_chars=100_000,
    )
    return tool
