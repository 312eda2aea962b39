"""Pool assembly: order, de-duplication, deny filtering, byte-stable definitions, deferral and ToolSearch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from handrail.permissions.context import PermissionContext
from handrail.permissions.rules import PermissionRule
from handrail.tools.builtin.tool_search import search
from handrail.tools.context import ToolOptions, ToolUseContext
from handrail.tools.execution import ToolUse
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import DiskFileSystem
from handrail.tools.protocol import ToolResult, build_tool
from handrail.tools.registry import all_base_tools, assemble_tool_pool, find_tool, get_tools, simple_mode
from handrail.tools.results import limit_result
from tests.tools.support import run_tools


class Empty(BaseModel):
    pass


async def _noop(value: Empty, ctx: ToolUseContext) -> ToolResult:
    return ToolResult("ok")


def _mcp(name: str, description: str = "an MCP tool", hint: str = "", defer: bool = True, **kw: Any) -> Any:
    return build_tool(name=name, input_model=Empty, description=description, search_hint=hint, call=_noop,
                      should_defer=defer, **kw)


def _bytes(definitions: list[dict[str, Any]]) -> bytes:
    return json.dumps(definitions, separators=(",", ":")).encode()


def test_builtins_sorted_then_mcp_sorted_and_builtins_win() -> None:
    mcp = [_mcp("mcp__z__b", defer=False), _mcp("Read", defer=False), _mcp("mcp__a__x", defer=False)]
    pool = assemble_tool_pool(PermissionContext(), mcp)
    names = [t.name for t in pool.tools]
    builtin_names = sorted(t.name for t in all_base_tools())
    assert names == [*builtin_names, "mcp__a__x", "mcp__z__b"]
    read = pool.find("Read")
    assert read is not None and read.description != "an MCP tool"


def test_definitions_are_byte_identical_and_cache_after_last_builtin() -> None:
    mcp = [_mcp("mcp__a__x", defer=False)]
    first = _bytes(assemble_tool_pool(PermissionContext(), mcp).definitions())
    second = _bytes(assemble_tool_pool(PermissionContext(), list(mcp)).definitions())
    assert first == second
    definitions = json.loads(first)
    marked = [d["name"] for d in definitions if "cache_control" in d]
    assert marked == [max(t.name for t in all_base_tools())]
    assert definitions[-1]["name"] == "mcp__a__x"


def test_tool_wide_deny_hides_the_tool_but_a_specific_deny_does_not() -> None:
    context = PermissionContext(deny=(PermissionRule("Bash"), PermissionRule("Edit", "/etc/**")))
    names = [t.name for t in get_tools(context)]
    assert "Bash" not in names and "Edit" in names
    mcp_denied = PermissionContext(deny=(PermissionRule("mcp__a__x"),))
    assert "mcp__a__x" not in [t.name for t in assemble_tool_pool(mcp_denied, [_mcp("mcp__a__x")]).tools]


def test_simple_mode_leaves_bash_read_edit() -> None:
    assert [t.name for t in all_base_tools(simple=True)] == ["Bash", "Edit", "Read"]
    assert simple_mode({"HANDRAIL_SIMPLE": "1"}) is True
    assert simple_mode({"HANDRAIL_SIMPLE": "1"}, setting=False) is False
    assert simple_mode({}) is False


def test_lookup_by_alias() -> None:
    tool = build_tool(name="Task", aliases=("Agent",), input_model=Empty, description="t", call=_noop)
    assert find_tool([tool], "Agent") is tool and find_tool([tool], "Nope") is None


def _big_pool() -> Any:
    mcp = [_mcp(f"mcp__srv__tool{i:02d}", description=f"does thing {i}") for i in range(40)]
    mcp.append(_mcp("mcp__slack__send_message", "Send a message to a Slack channel", "chat post"))
    mcp.append(_mcp("mcp__notes__open_notebook", "Open a Jupyter notebook", "jupyter ipynb"))
    mcp.append(_mcp("mcp__core__always", "always there", always_load=True))
    return assemble_tool_pool(PermissionContext(), mcp)


def test_large_pools_defer_tools_and_offer_tool_search() -> None:
    pool = _big_pool()
    sent = [d["name"] for d in pool.definitions()]
    assert "ToolSearch" in sent and "mcp__core__always" in sent
    assert "mcp__slack__send_message" not in sent
    loaded = [d["name"] for d in pool.definitions(["mcp__slack__send_message"])]
    assert loaded[: len(sent)] == sent  # the cached prefix stays, the loaded tool is appended
    assert loaded[-1] == "mcp__slack__send_message"


def test_small_pools_defer_nothing() -> None:
    pool = assemble_tool_pool(PermissionContext(), [_mcp("mcp__a__x")])
    assert pool.deferred() == () and find_tool(pool.tools, "ToolSearch") is None


def test_tool_search_query_forms() -> None:
    tools = list(_big_pool().deferred())
    assert [t.name for t in search(tools, "select:mcp__slack__send_message,mcp__srv__tool03", 5)] == [
        "mcp__slack__send_message", "mcp__srv__tool03",
    ]
    assert search(tools, "jupyter", 5)[0].name == "mcp__notes__open_notebook"
    assert search(tools, "send slack", 5)[0].name == "mcp__slack__send_message"
    plus = search(tools, "+notebook open", 5)
    assert [t.name for t in plus] == ["mcp__notes__open_notebook"]
    assert search(tools, "zzz-nothing", 5) == []


async def test_tool_search_loads_into_the_catalog(tmp_path: Path) -> None:
    pool = _big_pool()
    loaded: list[str] = []

    class Catalog:
        def deferred(self) -> Any:
            return [t for t in pool.deferred() if t.name not in loaded]

        def load(self, names: Any) -> None:
            loaded.extend(names)

    class NoPrompts:
        async def ask_permission(self, request: Any) -> Any:
            raise AssertionError("ToolSearch is read-only")

    ctx = ToolUseContext(options=ToolOptions(cwd=tmp_path, workspace_roots=(tmp_path,)), fs=DiskFileSystem(),
                         file_state=FileStateCache(), prompter=NoPrompts(), catalog=Catalog(),
                         permission_context=PermissionContext(workspace_roots=(tmp_path,)))
    (outcome,) = await run_tools([ToolUse("t1", "ToolSearch", {"query": "slack"})], pool.tools, ctx)
    assert not outcome.is_error and loaded == ["mcp__slack__send_message"]


async def test_large_results_are_stored_with_a_preview(tmp_path: Path) -> None:
    block = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "line\n" * 20_000}
    limited = await limit_result(block, 50_000, tmp_path)
    stored = tmp_path / "toolu_1.txt"
    assert stored.read_text() == block["content"]
    assert str(stored) in limited["content"] and len(limited["content"]) < 3_000
    assert await limit_result({**block, "content": "small"}, 50_000, tmp_path) == {**block, "content": "small"}


def test_tool_wide_denies_cover_tool_families_and_servers() -> None:
    context = PermissionContext(deny=(PermissionRule("Edit"), PermissionRule("mcp__files")))
    names = [t.name for t in assemble_tool_pool(context, [_mcp("mcp__files__rm", defer=False)]).tools]
    assert "Edit" not in names and "Write" not in names  # an Edit deny covers the whole edit family
    assert "mcp__files__rm" not in names
