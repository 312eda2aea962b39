"""The web search tool definition: model support, the setting, and domains from WebFetch rules."""

from __future__ import annotations

from handrail.agent.settings import load_settings
from handrail.agent.web_search import model_supports_web_search, server_tools, web_search_definition
from handrail.permissions.context import PermissionContext
from handrail.permissions.rules import PermissionRule, parse_rule

MODEL = "claude-sonnet-5-5"


def _rule(text: str) -> PermissionRule:
    rule = parse_rule(text, "session")
    assert isinstance(rule, PermissionRule)
    return rule


def _context(allow: tuple[str, ...] = (), deny: tuple[str, ...] = (), ask: tuple[str, ...] = ()) -> PermissionContext:
    return PermissionContext(
        allow=tuple(map(_rule, allow)), deny=tuple(map(_rule, deny)), ask=tuple(map(_rule, ask))
    )


def test_known_models() -> None:
    for name in ("claude-sonnet-5-5", "claude-opus-4-1-20250805", "claude-3-7-sonnet-latest", "claude-3-5-haiku-x"):
        assert model_supports_web_search(name), name
    for name in ("claude-3-haiku-20240307", "claude-2.1", "gpt-4o", "local-llama-70b"):
        assert not model_supports_web_search(name), name


def test_the_setting_decides_with_the_model_check() -> None:
    assert web_search_definition("auto", "local-llama", _context()) is None
    assert web_search_definition(False, MODEL, _context()) is None
    assert web_search_definition(True, "proxy-model", _context()) is not None  # the user says it is supported
    assert server_tools("auto", MODEL, _context()) == [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 8}
    ]


def test_settings_parse_web_search() -> None:
    assert load_settings({}, {}, env={}).web_search == "auto"
    assert load_settings({"webSearch": False}, {}, env={}).web_search is False
    assert load_settings({}, {"webSearch": "true"}, env={}).web_search is True
    assert load_settings({"webSearch": "sometimes"}, {}, env={}).web_search == "auto"


def test_domains_come_from_webfetch_rules() -> None:
    allowed = web_search_definition("auto", MODEL, _context(allow=("WebFetch(domain:*.Python.org)", "Read")))
    assert allowed is not None and allowed["allowed_domains"] == ["python.org"]
    blocked = web_search_definition("auto", MODEL, _context(deny=("WebFetch(domain:spam.example)", "WebFetch")))
    assert blocked is not None and blocked["blocked_domains"] == ["spam.example"] and "allowed_domains" not in blocked
    both = web_search_definition(
        "auto", MODEL, _context(allow=("WebFetch(domain:python.org)",), deny=("WebFetch(domain:spam.example)",))
    )
    assert both is not None and both["allowed_domains"] == ["python.org"] and "blocked_domains" not in both


def test_fails_closed_when_rules_cannot_be_expressed_or_forbid_it() -> None:
    inside = _context(allow=("WebFetch(domain:python.org)",), deny=("WebFetch(domain:bugs.python.org)",))
    assert web_search_definition("auto", MODEL, inside) is None
    assert web_search_definition(True, MODEL, _context(deny=("WebSearch",))) is None
    assert web_search_definition(True, MODEL, _context(ask=("WebSearch",))) is None
