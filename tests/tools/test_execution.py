"""run_tool_use: exactly one tool_result per call, whatever goes wrong."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from handrail.agent.agent_loop import add_user_content
from handrail.permissions.context import PermissionContext
from handrail.permissions.decision import PermissionCheck
from handrail.permissions.rules import PermissionRule
from handrail.tools.context import PermissionAnswer, PermissionRequest, ToolOptions, ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.execution import ToolUse, run_tool_use
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import DiskFileSystem
from handrail.tools.protocol import ToolResult, ValidationResult, build_tool


class Args(BaseModel):
    word: str


class Prompter:
    def __init__(self, *answers: PermissionAnswer) -> None:
        self.answers = list(answers)
        self.requests: list[PermissionRequest] = []

    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        self.requests.append(request)
        return self.answers.pop(0)


def _ctx(tmp_path: Path, prompter: Prompter, context: PermissionContext | None = None) -> ToolUseContext:
    return ToolUseContext(
        options=ToolOptions(cwd=tmp_path, workspace_roots=(tmp_path,)),
        fs=DiskFileSystem(),
        file_state=FileStateCache(),
        prompter=prompter,
        permission_context=context or PermissionContext(workspace_roots=(tmp_path,)),
    )


async def _echo(value: Args, ctx: ToolUseContext) -> ToolResult:
    if value.word == "boom":
        raise RuntimeError("kaboom")
    if value.word == "oops":
        raise ToolError("a readable failure")
    return ToolResult(f"echo {value.word}")


ECHO = build_tool(name="Echo", aliases=("Say",), input_model=Args, description="echo", call=_echo)
READER = build_tool(
    name="Peek", input_model=Args, description="peek", call=_echo, is_read_only=lambda _: True,
    paths=lambda v: (Path("/") if v.word == "root" else Path.cwd(),),
)


def test_build_tool_defaults_fail_closed() -> None:
    value = Args(word="x")
    assert ECHO.is_read_only(value) is False
    assert ECHO.is_concurrency_safe(value) is False
    assert ECHO.interrupt_behavior == "block"
    assert ECHO.should_defer is False and ECHO.always_load is False
    assert asyncio.run(ECHO.check_permissions(value, None)).behavior == "passthrough"  # type: ignore[arg-type]
    assert ECHO.definition()["input_schema"]["required"] == ["word"]


async def test_unknown_tool_names_the_available_ones(tmp_path: Path) -> None:
    outcome = await run_tool_use(ToolUse("t1", "Nope", {}), [ECHO, READER], _ctx(tmp_path, Prompter()))
    assert outcome.is_error and "Echo, Peek" in outcome.block["content"]


async def test_invalid_input_is_an_error_result(tmp_path: Path) -> None:
    outcome = await run_tool_use(ToolUse("t1", "Echo", {"word": 3}), [ECHO], _ctx(tmp_path, Prompter()))
    assert outcome.is_error and "word" in outcome.block["content"]
    outcome = await run_tool_use(ToolUse("t2", "Echo", "not an object"), [ECHO], _ctx(tmp_path, Prompter()))
    assert outcome.is_error


@pytest.mark.parametrize(("word", "text"), [("boom", "Echo failed: RuntimeError: kaboom"), ("oops", "a readable")])
async def test_failures_inside_the_tool_become_error_results(tmp_path: Path, word: str, text: str) -> None:
    prompter = Prompter(PermissionAnswer("allow"))
    outcome = await run_tool_use(ToolUse("t1", "Echo", {"word": word}), [ECHO], _ctx(tmp_path, prompter))
    assert outcome.is_error and text in outcome.block["content"]


async def test_alias_asks_and_runs(tmp_path: Path) -> None:
    prompter = Prompter(PermissionAnswer("allow"))
    outcome = await run_tool_use(ToolUse("t1", "Say", {"word": "hi"}), [ECHO], _ctx(tmp_path, prompter))
    assert outcome.block == {"type": "tool_result", "tool_use_id": "t1", "content": "echo hi"}
    assert prompter.requests[0].tool_name == "Echo"


async def test_denial_and_always_allow(tmp_path: Path) -> None:
    denied = await run_tool_use(
        ToolUse("t1", "Echo", {"word": "hi"}), [ECHO], _ctx(tmp_path, Prompter(PermissionAnswer("deny", feedback="no")))
    )
    assert denied.is_error and "declined" in denied.block["content"] and "no" in denied.block["content"]
    always = await run_tool_use(
        ToolUse("t2", "Echo", {"word": "hi"}), [ECHO], _ctx(tmp_path, Prompter(PermissionAnswer("allow_always")))
    )
    assert always.new_rules == (PermissionRule("Echo"),) and not always.is_error


async def test_deny_rule_refuses_without_asking(tmp_path: Path) -> None:
    context = PermissionContext(workspace_roots=(tmp_path,), deny=(PermissionRule("Echo"),))
    prompter = Prompter()
    outcome = await run_tool_use(ToolUse("t1", "Echo", {"word": "hi"}), [ECHO], _ctx(tmp_path, prompter, context))
    assert outcome.is_error and "Permission denied" in outcome.block["content"] and prompter.requests == []


async def test_validation_failure_stops_before_permission(tmp_path: Path) -> None:
    async def invalid(value: Any, ctx: ToolUseContext) -> ValidationResult:
        return ValidationResult(False, "bad word")

    async def never(value: Any, ctx: ToolUseContext) -> PermissionCheck:
        raise AssertionError("permission must not be checked")

    tool = build_tool(name="V", input_model=Args, description="v", call=_echo, validate_input=invalid,
                      check_permissions=never)
    outcome = await run_tool_use(ToolUse("t1", "V", {"word": "x"}), [tool], _ctx(tmp_path, Prompter()))
    assert outcome.block["content"] == "bad word"


async def test_long_results_are_truncated(tmp_path: Path) -> None:
    async def big(value: Args, ctx: ToolUseContext) -> ToolResult:
        return ToolResult("x" * 500)

    tool = build_tool(name="Big", input_model=Args, description="b", call=big, max_result_size_chars=100,
                      is_read_only=lambda _: True)
    outcome = await run_tool_use(ToolUse("t1", "Big", {"word": "x"}), [tool], _ctx(tmp_path, Prompter()))
    assert outcome.block["content"].startswith("x" * 100) and "truncated" in outcome.block["content"]


def test_user_content_merges_to_keep_roles_alternating() -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    add_user_content(messages, [{"type": "text", "text": "again"}])
    merged = [{"type": "text", "text": "hi"}, {"type": "text", "text": "again"}]
    assert messages == [{"role": "user", "content": merged}]
    messages.append({"role": "assistant", "content": []})
    add_user_content(messages, [{"type": "text", "text": "x"}])
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
