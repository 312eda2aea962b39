"""Server settings: the client's `handrail` section, initialization options, then the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from handrail.server.model_client import DEFAULT_MODEL, ModelSettings
from handrail.server.web_search import WebSearchSetting, parse_web_search_setting


@dataclass(frozen=True)
class AgentSettings:
    """Everything a turn is configured by."""

    model: ModelSettings
    max_turns: int = 50
    simple_tools: bool | None = None
    web_search: WebSearchSetting = "auto"


def _pick(sources: list[Mapping[str, Any]], key: str) -> Any:
    for source in sources:
        value = source.get(key)
        if value not in (None, ""):
            return value
    return None


def _number(value: Any, default: float) -> float:
    try:
        return float(value) if value is not None else default
    except (TypeError, ValueError):
        return default


def load_settings(client: Mapping[str, Any] | None, init_options: Mapping[str, Any] | None,
                  env: Mapping[str, str] | None = None) -> AgentSettings:
    """Merge settings: client configuration wins over initialization options, which win over env."""
    env = os.environ if env is None else env
    sources = [client or {}, init_options or {}]
    env_values = {
        "model": env.get("HANDRAIL_MODEL") or env.get("ANTHROPIC_MODEL"),
        "apiKey": env.get("ANTHROPIC_API_KEY"),
        "baseUrl": env.get("ANTHROPIC_BASE_URL"),
        "maxTurns": env.get("HANDRAIL_MAX_TURNS"),
        "maxTokens": env.get("HANDRAIL_MAX_TOKENS"),
        "retryBaseDelay": env.get("HANDRAIL_RETRY_BASE_DELAY"),
    }
    sources.append(env_values)
    model = ModelSettings(
        model=str(_pick(sources, "model") or DEFAULT_MODEL),
        max_tokens=int(_number(_pick(sources, "maxTokens"), 8192)),
        api_key=_pick(sources, "apiKey"),
        base_url=_pick(sources, "baseUrl"),
        retry_base_delay=_number(_pick(sources, "retryBaseDelay"), 0.5),
    )
    simple = _pick(sources[:2], "simpleTools")
    return AgentSettings(
        model=model,
        max_turns=int(_number(_pick(sources, "maxTurns"), 50)),
        simple_tools=simple if isinstance(simple, bool) else None,
        web_search=parse_web_search_setting(_pick(sources[:2], "webSearch")),
    )
