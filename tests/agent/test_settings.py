"""Settings precedence: client section, then initialization options, then environment."""

from __future__ import annotations

from handrail.agent.model_client import DEFAULT_MODEL
from handrail.agent.settings import load_settings


def test_defaults() -> None:
    settings = load_settings(None, None, env={})
    assert settings.model.model == DEFAULT_MODEL and settings.max_turns == 50


def test_precedence() -> None:
    env = {"HANDRAIL_MODEL": "from-env", "ANTHROPIC_BASE_URL": "http://env", "HANDRAIL_MAX_TURNS": "7"}
    settings = load_settings({"model": "from-client"}, {"model": "from-init", "baseUrl": "http://init"}, env=env)
    assert settings.model.model == "from-client"
    assert settings.model.base_url == "http://init"
    assert settings.max_turns == 7


def test_bad_numbers_fall_back() -> None:
    assert load_settings({"maxTurns": "lots"}, None, env={}).max_turns == 50
