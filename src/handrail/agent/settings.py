"""Server settings: the client's `handrail` section, initialization options, then the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from handrail.agent.model_catalog import ModelPrices
from handrail.agent.model_client import DEFAULT_MAX_TOKENS, DEFAULT_MODEL, EFFORT_OFF, ModelSettings
from handrail.agent.usage import parse_prices
from handrail.agent.web_search import WebSearchSetting, parse_web_search_setting

DEFAULT_RETENTION_DAYS = 30.0


@dataclass(frozen=True)
class AgentSettings:
    """Everything a turn is configured by."""

    model: ModelSettings
    max_turns: int = 50
    simple_tools: bool | None = None
    # tool-result files and transcripts older than this are removed at start-up
    retention_days: float = DEFAULT_RETENTION_DAYS
    small_model: ModelSettings | None = None  # for WebFetch's answers; None: switched off
    web_search: WebSearchSetting = "auto"
    prices: Mapping[str, ModelPrices] = field(default_factory=dict)  # USD per million tokens, by model


DEFAULT_SMALL_MODEL = "claude-haiku-5-5"
SMALL_MODEL_MAX_TOKENS = 2048


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


def parse_effort(value: Any) -> str | None:
    """The `effort` setting: low, medium, high, xhigh or max; off (or false) for no thinking; None (unset,
    "default" or "auto") for the model's own default."""
    if value is False:
        return EFFORT_OFF
    if not isinstance(value, str) or value.strip().lower() in {"", "default", "auto"}:
        return None
    word = value.strip().lower()
    return EFFORT_OFF if word in {"off", "none", "false", "no", "0"} else word


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
        "streamIdleTimeout": env.get("HANDRAIL_STREAM_IDLE_TIMEOUT"),
        "sessionRetentionDays": env.get("HANDRAIL_SESSION_RETENTION_DAYS"),
        "contextWindow": env.get("HANDRAIL_CONTEXT_WINDOW"),
        "smallModel": env.get("HANDRAIL_SMALL_MODEL"),
        "effort": env.get("HANDRAIL_EFFORT"),
    }
    sources.append(env_values)
    model = ModelSettings(
        model=str(_pick(sources, "model") or DEFAULT_MODEL),
        max_tokens=int(_number(_pick(sources, "maxTokens"), DEFAULT_MAX_TOKENS)),
        api_key=_pick(sources, "apiKey"),
        base_url=_pick(sources, "baseUrl"),
        retry_base_delay=_number(_pick(sources, "retryBaseDelay"), 0.5),
        stream_idle_timeout=_number(_pick(sources, "streamIdleTimeout"), 90.0),
        context_window=int(_number(_pick(sources, "contextWindow"), 200_000)),
        effort=parse_effort(_pick(sources, "effort")),
    )
    simple = _pick(sources[:2], "simpleTools")
    small = _pick(sources, "smallModel")
    off = small is False or (isinstance(small, str) and small.strip().lower() in {"none", "off", "false"})
    # short, simple answers: thinking would only slow them down and eat their token budget
    small_model = None if off else replace(
        model, model=str(small or DEFAULT_SMALL_MODEL), max_tokens=SMALL_MODEL_MAX_TOKENS, effort=EFFORT_OFF
    )
    return AgentSettings(
        small_model=small_model,
        model=model,
        max_turns=int(_number(_pick(sources, "maxTurns"), 50)),
        simple_tools=simple if isinstance(simple, bool) else None,
        retention_days=_number(_pick(sources, "sessionRetentionDays"), DEFAULT_RETENTION_DAYS),
        web_search=parse_web_search_setting(_pick(sources[:2], "webSearch")),
        prices=parse_prices(_pick(sources[:2], "prices")),
    )
