"""The built-in tools: files, search, Bash and its background shells, the task list, questions to the user,
plan mode, WebFetch and Diagnostics."""

from __future__ import annotations

from typing import Any

from handrail.tools.builtin.ask_user import ASK_USER_QUESTION
from handrail.tools.builtin.bash import BASH
from handrail.tools.builtin.bash_output import BASH_OUTPUT
from handrail.tools.builtin.diagnostics import DIAGNOSTICS
from handrail.tools.builtin.edit import EDIT
from handrail.tools.builtin.glob import GLOB
from handrail.tools.builtin.grep import GREP
from handrail.tools.builtin.kill_shell import KILL_SHELL
from handrail.tools.builtin.multi_edit import MULTI_EDIT
from handrail.tools.builtin.notebook_edit import NOTEBOOK_EDIT
from handrail.tools.builtin.plan_mode import ENTER_PLAN_MODE, EXIT_PLAN_MODE
from handrail.tools.builtin.read import READ
from handrail.tools.builtin.todo_write import TODO_WRITE
from handrail.tools.builtin.web_fetch import WEB_FETCH
from handrail.tools.builtin.write import WRITE
from handrail.tools.protocol import Tool

__all__ = [
    "ASK_USER_QUESTION",
    "BASH",
    "BASH_OUTPUT",
    "DIAGNOSTICS",
    "EDIT",
    "ENTER_PLAN_MODE",
    "EXIT_PLAN_MODE",
    "GLOB",
    "GREP",
    "KILL_SHELL",
    "MULTI_EDIT",
    "NOTEBOOK_EDIT",
    "READ",
    "TODO_WRITE",
    "WEB_FETCH",
    "WRITE",
    "builtin_tools",
]


def builtin_tools() -> tuple[Tool[Any], ...]:
    """Every built-in tool, sorted by name."""
    files = (BASH, BASH_OUTPUT, EDIT, GLOB, GREP, KILL_SHELL, MULTI_EDIT, NOTEBOOK_EDIT, READ, WRITE)
    agent = (ASK_USER_QUESTION, DIAGNOSTICS, ENTER_PLAN_MODE, EXIT_PLAN_MODE, TODO_WRITE, WEB_FETCH)
    tools = (*files, *agent)
    return tuple(sorted(tools, key=lambda tool: tool.name))
