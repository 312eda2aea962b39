"""WebSearch: the API's server-side web search tool, offered only where the model supports it.

The API runs the search itself: the model's `server_tool_use` and the
`web_search_tool_result` come back in the same assistant message and need no
`tool_result` from us. There is no local fallback: without support the tool is
simply not offered. Domains follow `WebFetch(domain:…)` rules: allow rules become
`allowed_domains`, deny rules `blocked_domains` (the API takes one or the other).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any, Literal

from handrail.permissions.context import PermissionContext
from handrail.permissions.rules import PermissionRule

log = logging.getLogger(__name__)

# the GA version in the SDK (anthropic.types.WebSearchTool20250305Param); later versions add
# dynamic filtering through code execution, which handrail does not offer
WEB_SEARCH_TOOL_TYPE = "web_search_20250305"
WEB_SEARCH_TOOL_NAME = "web_search"
WEB_SEARCH_RULE_NAME = "WebSearch"
MAX_USES = 8
DOMAIN_RULE_TOOL = "WebFetch"
_DOMAIN_PREFIX = "domain:"

WebSearchSetting = bool | Literal["auto"]

# models that take the server-side web search tool: Claude 3.5 Sonnet/Haiku, 3.7 Sonnet, and 4 and later
_SUPPORTED = re.compile(r"^claude-(?:(?:opus|sonnet|haiku)-(?:[4-9]|\d{2,})|3-7-sonnet|3-5-(?:sonnet|haiku))(?:\b|-)")


def model_supports_web_search(model: str) -> bool:
    """Whether `model` is one known to take the server-side web search tool."""
    return _SUPPORTED.match(model) is not None


def parse_web_search_setting(value: object) -> WebSearchSetting:
    """`webSearch`: true (offer it whatever the model), false (never), or "auto" (known models; the default)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return "auto"


def _domains(rules: Sequence[PermissionRule]) -> list[str]:
    found: list[str] = []
    for rule in rules:
        spec = rule.specifier or ""
        if rule.tool == DOMAIN_RULE_TOOL and spec.startswith(_DOMAIN_PREFIX):
            domain = spec[len(_DOMAIN_PREFIX) :].strip().lower().removeprefix("*.")  # subdomains are included anyway
            if domain and domain not in found:
                found.append(domain)
    return found


def _under(domain: str, parent: str) -> bool:
    return domain == parent or domain.endswith("." + parent)


def web_search_definition(setting: WebSearchSetting, model: str, context: PermissionContext) -> dict[str, Any] | None:
    """The tool definition to add to requests, or None when search is off, unsupported or forbidden."""
    if setting is False or (setting == "auto" and not model_supports_web_search(model)):
        return None
    if any(rule.tool == WEB_SEARCH_RULE_NAME for rule in (*context.deny, *context.ask)):
        return None  # a server-side call cannot be asked about, so an ask rule keeps it off too
    allowed = _domains(context.allow)
    blocked = _domains(context.deny)
    definition: dict[str, Any] = {"type": WEB_SEARCH_TOOL_TYPE, "name": WEB_SEARCH_TOOL_NAME, "max_uses": MAX_USES}
    if allowed:
        # the API takes allowed or blocked domains, not both: keep the allowed ones no deny rule covers; a deny
        # inside an allowed domain cannot be expressed, so search stays off rather than reach it
        if any(_under(deny, allow) for deny in blocked for allow in allowed):
            log.info("web search not offered: a denied domain lies inside an allowed one")
            return None
        definition["allowed_domains"] = allowed
    elif blocked:
        definition["blocked_domains"] = blocked
    return definition


def server_tools(setting: WebSearchSetting, model: str, context: PermissionContext) -> list[dict[str, Any]]:
    """The tools the API runs itself, to add to a request's tools (the web search tool, when offered)."""
    search = web_search_definition(setting, model, context)
    return [search] if search is not None else []
