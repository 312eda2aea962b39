"""A server's tools as handrail Tools: `mcp__<server>__<tool>`, the server's own JSON Schema, checked before the call.

Servers' annotations are hints from code we did not write, so they only ever make
handrail more careful or let a tool run where nothing is at stake without the user:
a tool the server marks read-only (`readOnlyHint`) runs concurrently with other
read-only calls and may be asked for in plan mode, yet it still asks unless a rule
(`mcp__server`, `mcp__server__*`, `mcp__server__tool`) allows it, like every MCP tool.
A tool marked destructive (`destructiveHint: true`) says so to the model and in the
permission question.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict

from handrail.permissions.decision import PermissionCheck
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.mcp.model import McpConnection, McpConnectionLostError, McpRequestError, McpToolSpec
from handrail.tools.mcp.names import mcp_tool_name
from handrail.tools.mcp.results import result_block
from handrail.tools.protocol import Tool, ToolResult, ValidationResult, build_tool

ALWAYS_LOAD_META = "anthropic/alwaysLoad"
MAX_RESULT_CHARS = 50_000
MAX_DESCRIPTION_CHARS = 2_048
MAX_REPORTED_ERRORS = 5
DESTRUCTIVE_NOTE = "The MCP server marks this tool as destructive: it may delete or overwrite data."
DESTRUCTIVE_SUMMARY = " [destructive, says the server]"


class McpInput(BaseModel):
    """Any JSON object: the server's schema, not pydantic, says what is valid."""

    model_config = ConfigDict(extra="allow")


def arguments_of(value: BaseModel) -> dict[str, Any]:
    """The call's arguments as the model sent them."""
    return dict(value.model_extra or {})


@cache
def _jsonschema() -> Any:
    import jsonschema  # lazily: only needed once an MCP tool is called

    return jsonschema


def schema_problems(
    schema: Mapping[str, Any], arguments: Mapping[str, Any], *, check_formats: bool = False
) -> list[str]:
    """What is wrong with `arguments` under `schema` (empty when valid); a broken schema is a problem too.

    `check_formats` also checks `format` (email, uri, date…), which JSON Schema leaves to the validator's choice.
    """
    jsonschema = _jsonschema()
    try:
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return [f"the server's schema is not valid JSON Schema ({exc.message}); nothing was sent"]
    formats = validator_class.FORMAT_CHECKER if check_formats else None
    validator = validator_class(schema, format_checker=formats)
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.absolute_path))
    problems = []
    for error in errors[:MAX_REPORTED_ERRORS]:
        where = ".".join(str(p) for p in error.absolute_path) or "input"
        problems.append(f"- {where}: {error.message}")
    return problems


def callable_directly(spec: McpToolSpec) -> bool:
    """Whether a plain tools/call may run the tool: one the server lets run only as an MCP task
    (`execution.taskSupport: "required"`) is not offered, since handrail does not run MCP tasks."""
    return spec.task_support != "required"


def _summary(arguments: Mapping[str, Any]) -> str:
    text = json.dumps(dict(arguments), ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def mcp_tool(
    server: str,
    spec: McpToolSpec,
    connection: McpConnection,
    *,
    settle: Callable[[], Awaitable[None]] | None = None,
) -> Tool[McpInput]:
    """The Tool for `spec` on `server`, calling through `connection`.

    `settle` is awaited before a result is returned: the call may have changed the
    server's tools, and the model's next request should already offer the new ones.
    """
    name = mcp_tool_name(server, spec.name)
    schema = dict(spec.input_schema) or {"type": "object"}
    description = spec.description or spec.title or f"{spec.name} (from the MCP server {server})"
    if len(description) > MAX_DESCRIPTION_CHARS:
        description = description[:MAX_DESCRIPTION_CHARS] + "…"
    if spec.destructive:
        description = f"{description}\n\n{DESTRUCTIVE_NOTE}"

    async def validate(value: McpInput, ctx: ToolUseContext) -> ValidationResult:
        problems = schema_problems(schema, arguments_of(value))
        if not problems:
            return ValidationResult(ok=True)
        heading = f"InputValidationError: {name} failed due to the following issue(s):"
        return ValidationResult(ok=False, message="\n".join([heading, *problems]))

    async def call(value: McpInput, ctx: ToolUseContext) -> ToolResult:
        async def progress(done: float, total: float | None, message: str | None) -> None:
            ctx.report(message or (f"{done:g}/{total:g}" if total else f"{done:g}"))

        try:
            outcome = await connection.call_tool(spec.name, arguments_of(value), progress)
        except McpConnectionLostError as exc:
            raise ToolError(f"The MCP server {server!r} disconnected ({exc}); the call may not have finished.") from exc
        except McpRequestError as exc:
            raise ToolError(f"The MCP server {server!r} refused the call: {exc}") from exc
        if settle is not None:
            await settle()
        return ToolResult(outcome)

    def summary(value: McpInput) -> str:
        marked = DESTRUCTIVE_SUMMARY if spec.destructive else ""
        return f"{server}: {spec.name}{marked} {_summary(arguments_of(value))}"

    async def read_only_check(value: McpInput, ctx: ToolUseContext) -> PermissionCheck:
        # read-only by the server's word: plan mode may ask for it, but no rule → the user is asked
        return PermissionCheck("ask", f"the MCP server {server!r} marks {spec.name!r} read-only; approve it to run")

    extra: dict[str, Any] = {}
    if spec.read_only:
        extra = {
            "is_read_only": lambda _: True,
            "is_concurrency_safe": lambda _: True,
            "check_permissions": read_only_check,
        }

    return build_tool(
        name=name,
        input_model=McpInput,
        description=description,
        call=call,
        validate_input=validate,
        summary=summary,
        search_hint=f"{server} {spec.name} {spec.title or ''}".strip(),
        map_result_to_block=result_block,
        max_result_size_chars=MAX_RESULT_CHARS,
        should_defer=True,
        interrupt_behavior="cancel",  # stopping the turn cancels the request (notifications/cancelled)
        always_load=spec.meta.get(ALWAYS_LOAD_META) is True,
        input_json_schema=schema,
        **extra,
    )
