"""Finding a background task (agent or shell) by the id a tool call names."""

from __future__ import annotations

from handrail.tools.background_agents import BackgroundAgent
from handrail.tools.background_shells import BackgroundShell
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError


def find_task(task_id: str, ctx: ToolUseContext) -> BackgroundAgent | BackgroundShell:
    """The session's background agent or shell with this id; ToolError (listing the known ids) if none."""
    agents = ctx.background_agents
    agent = agents.get(task_id) if agents is not None else None
    if agent is not None:
        return agent
    shell = ctx.shell.background.get(task_id) if ctx.shell is not None else None
    if shell is not None:
        return shell
    known = [a.id for a in agents.all()] if agents is not None else []
    if ctx.shell is not None:
        known += ctx.shell.background.ids()
    listing = f" Known IDs: {', '.join(known)}." if known else " No background task was started."
    raise ToolError(f"No background task with ID {task_id!r}.{listing}")


def find_agent(task_id: str, ctx: ToolUseContext) -> BackgroundAgent:
    """The session's background agent with this id; ToolError if there is none (a shell is not an agent)."""
    found = find_task(task_id, ctx)
    if not isinstance(found, BackgroundAgent):
        raise ToolError(f"{task_id} is a background shell, not an agent: only agents take messages.")
    return found


def find_shell(shell_id: str, ctx: ToolUseContext) -> BackgroundShell:
    """The session's background shell with this id; ToolError (listing the known ids) if there is none."""
    shell = ctx.shell.background.get(shell_id) if ctx.shell is not None else None
    if shell is not None:
        return shell
    known = ", ".join(ctx.shell.background.ids()) if ctx.shell is not None else ""
    raise ToolError(f"No background shell with ID {shell_id!r}." + (f" Known IDs: {known}." if known else ""))


def not_running(task: BackgroundAgent | BackgroundShell) -> str:
    """Why a task that is not running cannot be stopped: "it was killed", "it has failed (exit code 2)"."""
    state = "was killed" if task.status == "killed" else f"has {task.status}"
    code = getattr(task, "exit_code", None)
    return f"it {state}" + (f" (exit code {code})" if code is not None else "")
