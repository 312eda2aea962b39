"""EnterPlanMode and ExitPlanMode: explore and plan without changing anything, then ask the user to approve."""

from __future__ import annotations

from pydantic import Field

from handrail.tools.builtin._common import ToolInput, allow_check
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.modes import ModeControl
from handrail.tools.protocol import ToolResult, build_tool

PLAN_MODE = "plan"


class EnterPlanModeInput(ToolInput):
    pass


class ExitPlanModeInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    plan: str = Field(
        min_length=1,
        description="The plan you came up with, that you want to run by the user for approval. "
        "Supports markdown. The plan should be pretty concise.",
    )


ENTER_PROMPT = """Use this tool to switch to plan mode before a non-trivial implementation task, when you should explore the code and agree on an approach with the user before changing anything.

In plan mode only read-only tools run: anything that writes files or runs commands is refused. Explore, then present your plan with ExitPlanMode; once the user approves it, the session goes back to its previous permission mode and you can implement."""  # noqa: E501

EXIT_PROMPT = """Use this tool when you are in plan mode and have finished planning: it presents your plan to the user for approval.

- Only use it for tasks that need writing code; for research (reading files, searching, understanding the codebase) do not use it.
- If the user approves, the session leaves plan mode and you can start implementing.
- If the user rejects the plan, you stay in plan mode: revise the plan using their feedback and present it again."""  # noqa: E501

ENTERED = (
    "Entered plan mode. Explore the codebase with read-only tools and design an implementation approach; do not "
    "write or edit files or run commands that change anything (they are refused in plan mode). When the plan is "
    "ready, present it with ExitPlanMode for the user's approval."
)


def _modes(ctx: ToolUseContext) -> ModeControl:
    if ctx.modes is None:
        raise ToolError("This session has no permission mode to change here.")
    return ctx.modes


async def _enter(value: EnterPlanModeInput, ctx: ToolUseContext) -> ToolResult:
    modes = _modes(ctx)
    if modes.mode() == PLAN_MODE:
        return ToolResult("Already in plan mode. " + ENTERED.split(". ", 1)[1])
    modes.enter_plan_mode()
    return ToolResult(ENTERED)


async def _exit(value: ExitPlanModeInput, ctx: ToolUseContext) -> ToolResult:
    modes = _modes(ctx)
    if modes.mode() != PLAN_MODE:
        raise ToolError("You are not in plan mode, so there is no plan to approve. Go ahead with the task.")
    if ctx.questions is None:
        raise ToolError("There is no user here to approve the plan; plan mode stays on.")
    verdict = await ctx.questions.approve_plan(ctx.tool_use_id, value.plan)
    if not verdict.approved:
        message = "The user did not approve the plan, so the session stays in plan mode (nothing may be changed yet)."
        if verdict.feedback:
            message += f" The user said: {verdict.feedback}"
        raise ToolError(message + " Revise the plan and present it again with ExitPlanMode.")
    restored = modes.exit_plan_mode()
    return ToolResult(
        f"The user approved your plan; the session left plan mode (permission mode now: {restored}). "
        f"You can now start implementing it.\n\nApproved plan:\n{value.plan}"
    )


_ALLOWED = allow_check("plan mode only restricts; leaving it is decided by the user's answer")


ENTER_PLAN_MODE = build_tool(
    name="EnterPlanMode",
    input_model=EnterPlanModeInput,
    description="Switch to plan mode: read-only exploration until the user approves a plan",
    prompt=ENTER_PROMPT,
    search_hint="plan mode plan before implementing",
    call=_enter,
    is_read_only=lambda value: True,
    check_permissions=_ALLOWED,
    summary=lambda value: "Enter plan mode",
)

EXIT_PLAN_MODE = build_tool(
    name="ExitPlanMode",
    input_model=ExitPlanModeInput,
    description="Present the plan to the user for approval and leave plan mode",
    prompt=EXIT_PROMPT,
    search_hint="plan approve exit plan mode",
    call=_exit,
    is_read_only=lambda value: True,
    check_permissions=_ALLOWED,
    summary=lambda value: "Present the plan for approval",
    interrupt_behavior="cancel",
)
