"""ToolSearch: find deferred tools and load their definitions for the next requests."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import Field

from handrail.tools.builtin._common import ToolInput
from handrail.tools.context import DescribedTool, ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.protocol import ToolResult, build_tool

_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


class ToolSearchInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    query: str = Field(
        description=(
            'Query to find deferred tools. Use "select:<tool_name>" for direct selection (comma-separate several), '
            'keywords to search, or "+word rest" to require "word" in the tool name and rank by the rest.'
        )
    )
    max_results: int = Field(default=5, ge=1, le=50, description="Maximum number of results to return (default: 5)")


PROMPT = """Fetches full schema definitions for deferred tools so they can be called.

Deferred tools appear by name in the system prompt. Until fetched, only the name is known: there is no parameter
schema, so the tool cannot be invoked. This tool takes a query, matches it against the deferred tool list, and
loads the matched tools' complete definitions: they can be called from your next message on.

Query forms:
- "select:Read,Edit,Grep" — fetch these exact tools by name
- "notebook jupyter" — keyword search, up to max_results best matches
- "+slack send" — require "slack" in the name, rank by the remaining terms"""


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(_CAMEL.sub(" ", text))]


def score(tool: DescribedTool, terms: Sequence[str]) -> float:
    """How well `tool` matches `terms`: name parts count most, then the search hint, then the description."""
    name_words = set(_words(tool.name))
    hint_words = set(_words(tool.search_hint))
    description_words = set(_words(tool.description))
    total = 0.0
    for term in terms:
        if term in name_words:
            total += 10
        elif any(term in word for word in name_words):
            total += 5
        if term in hint_words:
            total += 4
        if term in description_words:
            total += 2
        elif any(term in word for word in description_words):
            total += 1
    return total


def search(tools: Sequence[DescribedTool], query: str, max_results: int) -> list[DescribedTool]:
    """Tools matching `query` in one of its three forms, best first."""
    query = query.strip()
    if query.lower().startswith("select:"):
        wanted = [name.strip() for name in query[len("select:") :].split(",") if name.strip()]
        found: list[DescribedTool] = []
        for name in wanted:
            for tool in tools:
                if (tool.name == name or name in tool.aliases) and tool not in found:
                    found.append(tool)
        return found
    terms = _words(query)
    required: list[str] = []
    if query.startswith("+") and terms:
        required = [terms[0]]
        terms = terms[1:]
    candidates = [t for t in tools if all(r in t.name.lower() for r in required)]
    if not terms:
        return sorted(candidates, key=lambda t: t.name)[:max_results]
    ranked = sorted(((score(t, terms), t.name, t) for t in candidates), key=lambda x: (-x[0], x[1]))
    return [tool for points, _, tool in ranked if points > 0][:max_results]


async def _call(value: ToolSearchInput, ctx: ToolUseContext) -> ToolResult:
    if ctx.catalog is None:
        raise ToolError("No deferred tools exist in this session.")
    found = search(ctx.catalog.deferred(), value.query, value.max_results)
    if not found:
        names = ", ".join(t.name for t in ctx.catalog.deferred())
        return ToolResult(f"No deferred tools matched {value.query!r}. Deferred tools: {names or 'none'}")
    ctx.catalog.load([t.name for t in found])
    lines = [f"- {t.name}: {t.description}" for t in found]
    return ToolResult(
        "Loaded these tools; their full definitions are available from your next message on:\n" + "\n".join(lines)
    )


TOOL_SEARCH = build_tool(
    name="ToolSearch",
    input_model=ToolSearchInput,
    description="Find deferred tools by name or keyword and load their definitions",
    prompt=PROMPT,
    search_hint="find discover load deferred tools",
    call=_call,
    is_read_only=lambda _: True,
    is_concurrency_safe=lambda _: True,
    always_load=True,
    summary=lambda value: f"ToolSearch {value.query}",
)
