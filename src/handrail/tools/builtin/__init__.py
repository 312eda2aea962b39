"""The built-in tools: Read, Write, Edit, MultiEdit, NotebookEdit, Glob, Grep, Bash and TodoWrite."""

from __future__ import annotations

from typing import Any

from handrail.tools.builtin.bash import BASH
from handrail.tools.builtin.edit import EDIT
from handrail.tools.builtin.glob import GLOB
from handrail.tools.builtin.grep import GREP
from handrail.tools.builtin.multi_edit import MULTI_EDIT
from handrail.tools.builtin.notebook_edit import NOTEBOOK_EDIT
from handrail.tools.builtin.read import READ
from handrail.tools.builtin.todo_write import TODO_WRITE
from handrail.tools.builtin.write import WRITE
from handrail.tools.protocol import Tool

__all__ = [
    "BASH",
    "EDIT",
    "GLOB",
    "GREP",
    "MULTI_EDIT",
    "NOTEBOOK_EDIT",
    "READ",
    "TODO_WRITE",
    "WRITE",
    "builtin_tools",
]


def builtin_tools() -> tuple[Tool[Any], ...]:
    """Every built-in tool, sorted by name."""
    tools = (BASH, EDIT, GLOB, GREP, MULTI_EDIT, NOTEBOOK_EDIT, READ, TODO_WRITE, WRITE)
    return tuple(sorted(tools, key=lambda tool: tool.name))
