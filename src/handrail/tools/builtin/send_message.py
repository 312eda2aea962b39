"""SendMessage: a follow-up for a background agent, delivered at its next turn boundary."""

from __future__ import annotations

from pydantic import Field

from handrail.tools.builtin._common import ToolInput, validator
from handrail.tools.builtin.background_lookup import find_agent
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import ToolResult, build_tool


class SendMessageInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    to: str = Field(description="The ID of the background agent to message")
    message: str = Field(description="The message: new instructions, an answer, or a question for the agent")


PROMPT = """Sends a follow-up message to a background agent (started by Task with run_in_background).
- A running agent gets it as a user message at its next turn boundary: with the results of the tool calls it is
  making now, or, if it is writing its final report, in a new turn right after it
- An agent that has completed starts a new turn with it, keeping its conversation
- Read what it answers with TaskOutput; a stopped or failed agent takes no messages"""


async def _check(value: SendMessageInput, ctx: ToolUseContext) -> None:
    if not value.message.strip():
        raise ToolError("message must not be empty.")
    agent = find_agent(value.to, ctx)
    if agent.status in ("stopped", "failed"):
        raise ToolError(f"Agent {agent.id} has {agent.status} and takes no messages; start a new agent instead.")


async def _call(value: SendMessageInput, ctx: ToolUseContext) -> ToolResult:
    await _check(value, ctx)
    agent = find_agent(value.to, ctx)
    resumed = agent.status != "running"
    agent.send(value.message)
    if resumed:
        return ToolResult(f"Agent {agent.id} had completed; it started a new turn with your message.")
    return ToolResult(f"Message queued for agent {agent.id}; it is delivered at the agent's next turn boundary.")


SEND_MESSAGE = build_tool(
    name="SendMessage",
    input_model=SendMessageInput,
    description="Send a follow-up message to a background agent",
    prompt=PROMPT,
    search_hint="message background agent follow-up",
    call=_call,
    validate_input=validator(_check),
    # The message changes nothing by itself: each of the agent's own tool calls is checked against the rules.
    is_read_only=lambda _: True,
    interrupt_behavior="block",
    summary=lambda value: f"message {value.to}",
)
