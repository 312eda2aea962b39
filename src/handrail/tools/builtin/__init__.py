"""The built-in tools (file, search, shell and task-list tools), sorted by name."""

from __future__ import annotations

from typing import Any

from handrail.tools.builtin.bash import BASH
from handrail.tools.builtin.bash_output import BASH_OUTPUT
from handrail.tools.builtin.edit import EDIT
from handrail.tools.builtin.glob import GLOB
from handrail.tools.builtin.grep import GREP
from handrail.tools.builtin.kill_shell import KILL_SHELL
from handrail.tools.builtin.multi_edit import MULTI_EDIT
from handrail.tools.builtin.notebook_edit import NOTEBOOK_EDIT
from handrail.tools.builtin.read import READ
from handrail.tools.builtin.todo_write import TODO_WRITE
from handrail.tools.builtin.write import WRITE
from handrail.tools.protocol import Tool

__all__ = [
    "BASH",
    "BASH_OUTPUT",
    "EDIT",
    "GLOB",
    "GREP",
    "KILL_SHELL",
    "MULTI_EDIT",
    "NOTEBOOK_EDIT",
    "READ",
    "TODO_WRITE",
    "WRITE",
    "builtin_tools",
]


def builtin_tools() -> tuple[Tool[Any], ...]:
    """Every built-in tool, sorted by name."""
    tools = (BASH, BASH_OUTPUT, EDIT, GLOB, GREP, KILL_SHELL, MULTI_EDIT, NOTEBOOK_EDIT, READ, TODO_WRITE, WRITE)
    return tuple(sorted(tools, key=lambda tool: tool.name))
