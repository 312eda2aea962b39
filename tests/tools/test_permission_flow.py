"""The permission phase: prompts settled by rules that change while they are open, and hooks folded in."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from handrail.permissions.context import PermissionContext, SourcedHooks
from handrail.permissions.decision import DecisionReason, PermissionDecision
from handrail.permissions.hooks import HookOutcome
from handrail.tools.context import PermissionAnswer, PermissionRequest, PermissionUpdates, ToolOptions, ToolUseContext
from handrail.tools.execution import CallOutcome, ToolUse
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import DiskFileSystem
from handrail.tools.permission_flow import pre_tool_use, with_hook
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.shell_session import ShellSession
from handrail.tools.streaming_executor import StreamingToolExecutor


class Where(BaseModel):
    path: str


async def _peek(value: Where, ctx: ToolUseContext) -> ToolResult:
    return ToolResult(f"peeked {value.path}")


PEEK = build_tool(
    name="Peek", input_model=Where, description="peek", call=_peek, is_read_only=lambda _: True,
    is_concurrency_safe=lambda _: True, paths=lambda v: (Path(v.path),),
)


class Prompter:
    def __init__(self) -> None:
        self.requests: list[PermissionRequest] = []
        self.answers: dict[str, asyncio.Future[PermissionAnswer]] = {}
        self.cancelled: list[str] = []
        self.asked = asyncio.Event()

    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        self.requests.append(request)
        future = self.answers.setdefault(request.tool_use_id, asyncio.get_running_loop().create_future())
        if len(self.requests) == 2:
            self.asked.set()
        try:
            return await future
        except asyncio.CancelledError:
            self.cancelled.append(request.tool_use_id)
            raise


async def test_an_always_answer_settles_the_other_open_prompt(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    state = {"context": PermissionContext(workspace_roots=(workspace,))}
    updates = PermissionUpdates(lambda: state["context"])
    prompter = Prompter()

    def context() -> ToolUseContext:
        return ToolUseContext(
            options=ToolOptions(cwd=workspace, workspace_roots=(workspace,)), fs=DiskFileSystem(),
            file_state=FileStateCache(), prompter=prompter, permission_context=state["context"],
            permission_updates=updates,
        )

    def remember(outcome: CallOutcome) -> None:
        for rule in outcome.new_rules:
            state["context"] = state["context"].with_rule("allow", rule)
            updates.notify()

    executor = StreamingToolExecutor([PEEK], context, on_outcome=remember)
    executor.add(ToolUse("a", "Peek", {"path": str(tmp_path / "outside-1")}))
    executor.add(ToolUse("b", "Peek", {"path": str(tmp_path / "outside-2")}))
    await prompter.asked.wait()  # both reads outside the workspace ask at once
    prompter.answers["a"].set_result(PermissionAnswer("allow_always", rules=("Peek",)))
    outcomes = await executor.collect()
    assert [o.block["content"] for o in outcomes] == [f"peeked {tmp_path}/outside-1", f"peeked {tmp_path}/outside-2"]
    assert prompter.cancelled == ["b"]  # its prompt was closed, not answered


def _decision(behavior: Any, reason: Any) -> PermissionDecision:
    return PermissionDecision(behavior, DecisionReason(reason, "why"))


def test_hooks_cannot_loosen_policy() -> None:
    allow, ask, deny = HookOutcome("allow", "ok"), HookOutcome("ask", "hm"), HookOutcome("deny", "no")
    assert with_hook(_decision("ask", "default"), allow).behavior == "allow"
    assert with_hook(_decision("ask", "rule"), allow).behavior == "ask"  # an ask rule stays
    assert with_hook(_decision("ask", "safety_check"), allow).behavior == "ask"
    assert with_hook(_decision("deny", "rule"), allow).behavior == "deny"
    assert with_hook(_decision("allow", "rule"), deny).behavior == "deny"
    assert with_hook(_decision("allow", "read_only_in_workspace"), ask).behavior == "ask"
    assert with_hook(_decision("allow", "rule"), HookOutcome()).behavior == "allow"


async def test_hooks_see_the_shell_cwd_and_match_a_tool_by_its_alias(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    seen = tmp_path / "seen.json"
    record = f"import sys, pathlib; pathlib.Path({str(seen)!r}).write_text(sys.stdin.read())"
    command = f"{sys.executable} -c {json.dumps(record)}"
    hooks = {"PreToolUse": [{"matcher": "OldPeek", "hooks": [{"command": command}]}]}
    context = PermissionContext(workspace_roots=(workspace,), hooks=(SourcedHooks("user", hooks),))
    shell = ShellSession()
    shell.cwd = workspace / "sub"
    ctx = ToolUseContext(
        options=ToolOptions(cwd=workspace, workspace_roots=(workspace,)),
        fs=DiskFileSystem(),
        file_state=FileStateCache(),
        prompter=Prompter(),
        permission_context=context,
        shell=shell,
    ).for_call("toolu_1")
    renamed = build_tool(name="Peek2", aliases=("OldPeek",), input_model=Where, description="peek", call=_peek)
    outcome = await pre_tool_use(renamed, Where(path="x"), ctx)
    assert outcome.decision != "deny"
    payload = json.loads(seen.read_text())
    assert payload["cwd"] == str(workspace / "sub") and payload["tool_name"] == "Peek2"
