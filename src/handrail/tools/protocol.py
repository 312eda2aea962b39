"""The tool protocol: one frozen `Tool` per tool, built with fail-closed defaults.

A tool is data plus functions. `build_tool` fills every hook a definition leaves
out with the cautious choice: not read-only, not concurrency-safe, permission
decided by the general pipeline (which asks by default).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from handrail.permissions.decision import PASSTHROUGH, PermissionCheck
from handrail.tools.context import ToolUseContext
from handrail.tools.messages import Message, ToolResultBlock

InputT = TypeVar("InputT", bound=BaseModel)

InterruptBehavior = Literal["cancel", "block"]


@dataclass(frozen=True)
class ValidationResult:
    """The result of `validate_input`: ok, or a message the model will read."""

    ok: bool
    message: str = ""


VALID = ValidationResult(ok=True)


@dataclass(frozen=True)
class ToolResult:
    """What a tool call produced.

    `data` is mapped to the model's `tool_result` block by `map_result_to_block`;
    `new_messages` are extra messages for the conversation; `context_modifier`
    changes the context for later calls (only honoured for non-concurrent tools).
    """

    data: Any
    new_messages: tuple[Message, ...] = ()
    context_modifier: Callable[[ToolUseContext], ToolUseContext] | None = None


def _never(_: Any) -> bool:
    return False


def _no_paths(_: Any) -> tuple[Path, ...]:
    return ()


def _no_content(_: Any) -> str | None:
    return None


async def _valid(_: Any, __: ToolUseContext) -> ValidationResult:
    return VALID


async def _passthrough(_: Any, __: ToolUseContext) -> PermissionCheck:
    return PASSTHROUGH


def _always_enabled() -> bool:
    return True


def _no_summary(_: Any) -> str:
    return ""


def default_result_block(data: Any, tool_use_id: str) -> ToolResultBlock:
    """Strings go as they are; anything else as JSON."""
    content = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}


@dataclass(frozen=True, kw_only=True)
class Tool(Generic[InputT]):
    """One tool: its schema, its behaviour, and how it describes itself.

    Build instances with `build_tool`, which fills what a definition leaves out with the fail-closed defaults.
    """

    name: str
    input_model: type[InputT]
    description: str
    call: Callable[[InputT, ToolUseContext], Awaitable[ToolResult]]
    prompt: str
    aliases: tuple[str, ...]
    search_hint: str
    is_enabled: Callable[[], bool]
    is_read_only: Callable[[InputT], bool]
    is_concurrency_safe: Callable[[InputT], bool]
    interrupt_behavior: InterruptBehavior
    validate_input: Callable[[InputT, ToolUseContext], Awaitable[ValidationResult]]
    check_permissions: Callable[[InputT, ToolUseContext], Awaitable[PermissionCheck]]
    paths: Callable[[InputT], tuple[Path, ...]]
    rule_content: Callable[[InputT], str | None]
    summary: Callable[[InputT], str]
    map_result_to_block: Callable[[Any, str], ToolResultBlock]
    max_result_size_chars: float
    should_defer: bool
    always_load: bool
    # a JSON schema sent as is instead of the input model's (MCP tools bring their own)
    input_json_schema: dict[str, Any] | None

    def matches_name(self, name: str) -> bool:
        """Whether `name` is this tool's name or one of its aliases."""
        return name == self.name or name in self.aliases

    def definition(self) -> dict[str, Any]:
        """The tool definition sent to the model (name, description, JSON schema)."""
        return {
            "name": self.name,
            "description": self.prompt or self.description,
            "input_schema": self.input_json_schema
            if self.input_json_schema is not None
            else input_schema(self.input_model),
        }


def build_tool(
    *,
    name: str,
    input_model: type[InputT],
    description: str,
    call: Callable[[InputT, ToolUseContext], Awaitable[ToolResult]],
    prompt: str = "",
    aliases: tuple[str, ...] = (),
    search_hint: str = "",
    is_enabled: Callable[[], bool] = _always_enabled,
    is_read_only: Callable[[InputT], bool] = _never,
    is_concurrency_safe: Callable[[InputT], bool] = _never,
    interrupt_behavior: InterruptBehavior = "block",
    validate_input: Callable[[InputT, ToolUseContext], Awaitable[ValidationResult]] = _valid,
    check_permissions: Callable[[InputT, ToolUseContext], Awaitable[PermissionCheck]] = _passthrough,
    paths: Callable[[InputT], tuple[Path, ...]] = _no_paths,
    rule_content: Callable[[InputT], str | None] = _no_content,
    summary: Callable[[InputT], str] = _no_summary,
    map_result_to_block: Callable[[Any, str], ToolResultBlock] = default_result_block,
    max_result_size_chars: float = 50_000,
    should_defer: bool = False,
    always_load: bool = False,
    input_json_schema: dict[str, Any] | None = None,
) -> Tool[InputT]:
    """Make a `Tool`; what the definition leaves out gets the fail-closed default: enabled, neither read-only nor
    concurrency-safe, blocking an interrupt until it finishes, every input valid, the permission left to the general
    pipeline (which asks by default), no paths or rule content, results up to 50,000 characters, loaded up front.

    Every hook is typed against `input_model`, so a definition whose hooks take another input fails type checking.
    """
    return Tool(
        name=name,
        input_model=input_model,
        description=description,
        call=call,
        prompt=prompt,
        aliases=aliases,
        search_hint=search_hint,
        is_enabled=is_enabled,
        is_read_only=is_read_only,
        is_concurrency_safe=is_concurrency_safe,
        interrupt_behavior=interrupt_behavior,
        validate_input=validate_input,
        check_permissions=check_permissions,
        paths=paths,
        rule_content=rule_content,
        summary=summary,
        map_result_to_block=map_result_to_block,
        max_result_size_chars=max_result_size_chars,
        should_defer=should_defer,
        always_load=always_load,
        input_json_schema=input_json_schema,
    )


@lru_cache(maxsize=512)  # built for every model request otherwise: ~2 ms per tool
def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema the model sees for `model`, without pydantic's titles (shared: do not change it)."""
    schema = model.model_json_schema(by_alias=True)
    _drop_titles(schema)
    return schema


def _drop_titles(node: Any) -> None:
    if isinstance(node, dict):
        node.pop("title", None)
        for key, value in node.items():
            if key != "properties":
                _drop_titles(value)
            else:
                for prop in value.values():
                    _drop_titles(prop)
    elif isinstance(node, list):
        for item in node:
            _drop_titles(item)
