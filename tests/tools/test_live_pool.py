"""The live pool follows the MCP tool tuple; tool-change bookkeeping releases calls once the list is current."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from handrail.permissions.context import PermissionContext
from handrail.tools.live_pool import LiveToolPool
from handrail.tools.mcp.tool_changes import ToolChanges, ToolsChange
from handrail.tools.protocol import Tool
from handrail.tools.registry import ToolPool, assemble_tool_pool
from tests.tools.test_registry import _mcp


def _live(source: list[tuple[Tool[Any], ...]]) -> tuple[LiveToolPool, list[int]]:
    builds: list[int] = []

    def assemble(mcp_tools: Sequence[Tool[Any]]) -> ToolPool:
        builds.append(len(mcp_tools))
        return assemble_tool_pool(PermissionContext(), mcp_tools)

    return LiveToolPool(lambda: source[0], assemble), builds


def test_the_pool_is_reassembled_only_when_the_mcp_tools_changed() -> None:
    echo = _mcp("mcp__fx__echo", defer=False)
    source = [(echo,)]
    live, builds = _live(source)
    first = live.definitions()
    assert live.definitions() == first and builds == [1]  # same tuple: nothing rebuilt
    source[0] = (echo, _mcp("mcp__fx__added", defer=False))
    second = live.definitions()
    assert builds == [1, 2]
    assert [d["name"] for d in second][-2:] == ["mcp__fx__added", "mcp__fx__echo"]  # MCP tools stay sorted
    assert second[: len(first) - 1] == first[:-1]  # the built-ins (cached prefix) are untouched
    assert live.find("mcp__fx__added") is not None


def test_the_tools_sequence_is_read_at_each_use() -> None:
    source = [(_mcp("mcp__fx__echo", defer=False),)]
    live, _ = _live(source)
    tools = live.tools  # as the executor holds it for the whole turn
    assert not any(t.name == "mcp__fx__added" for t in tools)
    source[0] = (*source[0], _mcp("mcp__fx__added", defer=False))
    assert any(t.name == "mcp__fx__added" for t in tools)
    assert len(tools) == len(list(tools)) and tools[-1].name == "mcp__fx__echo"


def test_a_change_report_names_added_and_removed_tools() -> None:
    change = ToolsChange.between(["a", "b"], ["b", "c", "d"])
    assert change == ToolsChange(added=("c", "d"), removed=("a",))
    assert change.describe() == "added c, d; removed a"
    assert ToolsChange.between(["a"], ["a"]).describe() == "the same tools, updated"


async def test_callers_wait_until_every_heard_change_is_listed() -> None:
    changes = ToolChanges(settle_timeout=60)
    await changes.settled()  # nothing heard: no wait
    changes.hear()
    assert changes.pending.is_set()
    covered = changes.take()
    waiter = asyncio.create_task(changes.settled())
    changes.hear()  # heard while listing: that listing does not cover it
    changes.listed(covered)
    await asyncio.sleep(0)  # one turn of the loop for the waiter, not a timed wait
    assert not waiter.done() and changes.pending.is_set()
    changes.listed(changes.take())
    await asyncio.wait_for(waiter, 60)


async def test_a_closed_connection_releases_waiting_callers() -> None:
    changes = ToolChanges(settle_timeout=60)
    changes.hear()
    waiter = asyncio.create_task(changes.settled())
    changes.close()
    await asyncio.wait_for(waiter, 60)
