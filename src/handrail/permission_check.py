"""`handrail permissions check`: the decision for a tool call, without running it.

Settings are loaded exactly as the server loads them for a workspace at `--cwd`.
PreToolUse hooks are not run (they are commands; checking must not execute anything).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from handrail.permissions.context import PermissionContext
from handrail.permissions.modes import PermissionMode
from handrail.permissions.workspace import load_workspace_permissions
from handrail.tools.agent_definitions import load_agent_catalog
from handrail.tools.builtin.task import task_tool
from handrail.tools.builtin_agents import BUILTIN_AGENTS
from handrail.tools.context import PermissionAnswer, PermissionRequest, ToolOptions, ToolUseContext
from handrail.tools.execution import format_validation_error, parse_input
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import DiskFileSystem
from handrail.tools.permission_flow import decide_call
from handrail.tools.protocol import Tool
from handrail.tools.registry import all_base_tools, find_tool


class _NoPrompts:
    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        raise RuntimeError("checking never asks")


def workspace_context(cwd: Path, mode: PermissionMode | None, trusted: bool) -> PermissionContext:
    """The context the server would use for a workspace at `cwd`."""
    loaded = load_workspace_permissions(
        (cwd,), cwd=cwd, client_trusted=True if trusted else None, approve_project=trusted
    )
    return loaded.context.with_mode(mode) if mode is not None else loaded.context


def _refusal(message: str) -> dict[str, Any]:
    return {"behavior": "deny", "reason": {"type": "other", "message": message, "rule": None}, "suggestions": []}


@lru_cache(maxsize=4)
def _checkable_tools(cwd: Path) -> tuple[Tool[Any], ...]:
    """The built-ins and Task with the agent types a session at `cwd` would offer (`Agent(Explore)` rules)."""
    catalog = load_agent_catalog(BUILTIN_AGENTS, (cwd,))
    return (*all_base_tools(), task_tool(catalog.descriptions()))


async def check(tool_name: str, raw_input: Any, context: PermissionContext, cwd: Path) -> dict[str, Any]:
    """One decision as a JSON-ready object: behavior, reason, suggestions."""
    tool = find_tool(_checkable_tools(cwd), tool_name)
    if tool is None:
        return _refusal(f"no such tool: {tool_name}")
    try:
        value = parse_input(tool, raw_input)
    except ValidationError as exc:
        return _refusal(format_validation_error(tool.name, exc))
    ctx = ToolUseContext(
        options=ToolOptions(cwd=cwd, workspace_roots=context.workspace_roots or (cwd,)),
        fs=DiskFileSystem(),
        file_state=FileStateCache(),
        prompter=_NoPrompts(),
        permission_context=context,
    )
    decision = await decide_call(tool, value, ctx)
    reason = {"type": decision.reason.type, "message": decision.reason.message, "rule": decision.reason.rule}
    return {"behavior": decision.behavior, "reason": reason, "suggestions": list(decision.suggestions)}


async def _check_lines(lines: Iterable[str], context: PermissionContext, cwd: Path) -> Iterator[str]:
    out: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            result = await check(str(item["tool"]), item.get("input", {}), context, cwd)
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            result = {"error": f"bad line: {exc}"}
        out.append(json.dumps(result))
    return iter(out)


def run_check(
    *,
    cwd: Path,
    mode: PermissionMode | None,
    trusted: bool,
    jsonl: bool,
    tool: str | None,
    input_json: str | None,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
) -> int:
    """The command's body; returns the exit code."""
    cwd = cwd.resolve()
    try:
        context = workspace_context(cwd, mode, trusted)
    except ValueError as exc:  # e.g. a mode the policy forbids
        print(json.dumps(_refusal(str(exc))), file=stdout)
        return 2
    if jsonl:
        for line in asyncio.run(_check_lines(stdin, context, cwd)):
            print(line, file=stdout, flush=True)
        return 0
    if tool is None:
        print("handrail permissions check: give TOOL and INPUT_JSON, or --jsonl", file=sys.stderr)
        return 2
    try:
        raw = json.loads(input_json or "{}")
    except json.JSONDecodeError as exc:
        print(f"handrail permissions check: INPUT_JSON is not JSON: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(asyncio.run(check(tool, raw, context, cwd))), file=stdout)
    return 0
