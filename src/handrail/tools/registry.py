"""The tool registry: which tools a session offers, in a cache-stable order, and lookup by name or alias."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from handrail.permissions.context import PermissionContext
from handrail.permissions.rules import rule_covers_tool
from handrail.tools.protocol import Tool

SIMPLE_MODE_TOOLS = ("Bash", "Edit", "Read")
DEFER_WHEN_MORE_THAN_TOOLS = 30
DEFER_WHEN_DEFINITIONS_OVER_CHARS = 40_000
_CACHE_BREAKPOINT = {"type": "ephemeral"}


def simple_mode(env: Mapping[str, str] | None = None, setting: bool | None = None) -> bool:
    """Whether the minimal tool set is asked for (a setting wins over `HANDRAIL_SIMPLE`)."""
    if setting is not None:
        return setting
    value = (os.environ if env is None else env).get("HANDRAIL_SIMPLE", "")
    return value.strip().lower() in {"1", "true", "yes", "on"}


def all_base_tools(*, simple: bool = False) -> tuple[Tool[Any], ...]:
    """Every built-in tool that is enabled here, sorted by name (the one source of truth)."""
    from handrail.tools.builtin import builtin_tools

    tools = (t for t in builtin_tools() if t.is_enabled())
    if simple:
        tools = (t for t in tools if t.name in SIMPLE_MODE_TOOLS)
    return tuple(sorted(tools, key=lambda t: t.name))


def find_tool(tools: Iterable[Tool[Any]], name: str) -> Tool[Any] | None:
    """The tool called `name` (or with `name` as an alias), if any."""
    for tool in tools:
        if tool.matches_name(name):
            return tool
    return None


def denied_outright(tool: Tool[Any], context: PermissionContext) -> bool:
    """Whether a tool-wide deny rule (no specifier) forbids `tool` whatever its input."""
    names = (tool.name, *tool.aliases)
    return any(
        rule.specifier is None and any(rule_covers_tool(rule.tool, name) for name in names)
        for rule in context.rules("deny")
    )


def get_tools(context: PermissionContext, *, simple: bool = False) -> tuple[Tool[Any], ...]:
    """The built-ins minus those a deny rule forbids outright: a denied tool is never shown to the model."""
    return tuple(t for t in all_base_tools(simple=simple) if not denied_outright(t, context))


@dataclass(frozen=True)
class ToolPool:
    """The tools of a session: built-ins first, then MCP tools, each group sorted by name.

    `definitions()` is what the model is sent. It is computed from frozen data and
    is byte-identical across turns unless the pool or the set of loaded deferred
    tools changed, so the prompt cache keeps hitting.
    """

    builtins: tuple[Tool[Any], ...]
    extra: tuple[Tool[Any], ...] = ()

    @property
    def tools(self) -> tuple[Tool[Any], ...]:
        """Every tool, in pool order."""
        return self.builtins + self.extra

    def find(self, name: str) -> Tool[Any] | None:
        """Lookup by name or alias."""
        return find_tool(self.tools, name)

    def deferring(self) -> bool:
        """Whether the pool is large enough that deferrable tools stay out of the request."""
        tools = self.tools
        # counted over the deferrable (MCP) tools: the built-ins alone never push them out of the request
        if sum(1 for t in tools if t.should_defer) > DEFER_WHEN_MORE_THAN_TOOLS:
            return True
        size = sum(len(json.dumps(t.definition())) for t in tools)
        return size > DEFER_WHEN_DEFINITIONS_OVER_CHARS

    def deferred(self) -> tuple[Tool[Any], ...]:
        """Tools left out of the request until ToolSearch loads them."""
        return self._deferred

    @cached_property
    def _deferred(self) -> tuple[Tool[Any], ...]:
        # asked for at every model request, and `deferring` serialises every definition: the pool is frozen
        if not self.deferring():
            return ()
        return tuple(t for t in self.tools if t.should_defer and not t.always_load)

    def definitions(self, loaded: Sequence[str] = ()) -> list[dict[str, Any]]:
        """Definitions to send: the pool without deferred tools, then loaded ones in the order they were found.

        The prompt-cache breakpoint goes on the last built-in tool, so MCP and
        loaded tools can change without invalidating the built-in prefix.
        """
        deferred = {t.name for t in self.deferred()}
        sent = [t for t in self.tools if t.name not in deferred]
        by_name = {t.name: t for t in self.tools}
        sent += [by_name[name] for name in dict.fromkeys(loaded) if name in deferred]
        definitions = [t.definition() for t in sent]
        builtin_names = {t.name for t in self.builtins}
        last_builtin = max((i for i, t in enumerate(sent) if t.name in builtin_names), default=None)
        if last_builtin is not None:
            definitions[last_builtin] = {**definitions[last_builtin], "cache_control": dict(_CACHE_BREAKPOINT)}
        return definitions


def assemble_tool_pool(
    context: PermissionContext,
    mcp_tools: Sequence[Tool[Any]] = (),
    *,
    simple: bool = False,
    extra_builtins: Sequence[Tool[Any]] = (),
) -> ToolPool:
    """Built-ins sorted by name, then MCP tools sorted by name; built-ins win name clashes; denied tools dropped."""
    builtins = sorted([*get_tools(context, simple=simple), *extra_builtins], key=lambda t: t.name)
    builtin_names = {t.name for t in builtins}
    extra: dict[str, Tool[Any]] = {}
    for tool in sorted(mcp_tools, key=lambda t: t.name):
        if tool.name not in builtin_names and tool.name not in extra and not denied_outright(tool, context):
            extra[tool.name] = tool
    pool = ToolPool(tuple(builtins), tuple(extra.values()))
    if pool.deferred() and find_tool(pool.builtins, "ToolSearch") is None:
        from handrail.tools.builtin.tool_search import TOOL_SEARCH

        pool = ToolPool(tuple(sorted([*builtins, TOOL_SEARCH], key=lambda t: t.name)), pool.extra)
    return pool
