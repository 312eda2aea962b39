"""The built-in tools: Read, Write, Edit, Glob, Grep and Bash."""

from __future__ import annotations

from typing import Any

from handrail.tools.builtin.bash import BASH
from handrail.tools.builtin.edit import EDIT
from handrail.tools.builtin.glob import GLOB
from handrail.tools.builtin.grep import GREP
from handrail.tools.builtin.read import READ
from handrail.tools.builtin.write import WRITE
from handrail.tools.protocol import Tool

__all__ = ["BASH", "EDIT", "GLOB", "GREP", "READ", "WRITE", "builtin_tools"]


def builtin_tools() -> tuple[Tool[Any], ...]:
    """Every built-in tool, sorted by name."""
    return tuple(sorted((BASH, EDIT, GLOB, GREP, READ, WRITE), key=lambda tool: tool.name))
