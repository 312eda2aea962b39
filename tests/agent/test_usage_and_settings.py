"""Usage and cost accounting, the effort and prices settings, the session's pinned date, and model failures
described in words a user can act on."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2
import pytest

from handrail.agent.model_catalog import MODELS, ModelPrices
from handrail.agent.model_client import EFFORT_OFF, ModelError
from handrail.agent.model_errors import describe_failure
from handrail.agent.settings import load_settings, parse_effort
from handrail.agent.system_prompt import SessionDate, system_prompt
from handrail.agent.usage import TurnUsage, UsageTotals, parse_prices, price_book, request_cost
from handrail.wire.models import to_wire

USAGE = {"input_tokens": 1_000, "cache_creation_input_tokens": 10_000, "cache_read_input_tokens": 100_000,
         "output_tokens": 2_000}


def test_a_request_is_priced_as_billed() -> None:
    prices = ModelPrices(input=2, output=10, cache_write=2.5, cache_read=0.1)
    assert request_cost(USAGE, prices) == pytest.approx((1_000 * 2 + 10_000 * 2.5 + 100_000 * 0.1 + 2_000 * 10) / 1e6)


def test_a_long_prompt_costs_more_where_the_price_list_says_so() -> None:
    haiku = MODELS["claude-haiku-5-5"].prices
    short = {"input_tokens": 50_000, "output_tokens": 100}
    long = {"input_tokens": 150_000, "output_tokens": 100}
    assert request_cost(long, haiku) == pytest.approx(request_cost(short, haiku) * 3 * 5, rel=0.01)


def test_turn_and_session_totals() -> None:
    session = UsageTotals()
    usage = TurnUsage(price_book({}), session)
    usage.add(USAGE, "claude-sonnet-5-5")
    usage.add({"input_tokens": 5, "output_tokens": 5}, "some-unknown-model")
    report = to_wire(usage.as_wire(context_tokens=113_000, context_window=200_000))
    assert (report["inputTokens"], report["cacheWriteTokens"], report["cacheReadTokens"], report["outputTokens"]) == (
        1_005, 10_000, 100_000, 2_005)
    assert report["costUsd"] == pytest.approx(request_cost(USAGE, MODELS["claude-sonnet-5-5"].prices), abs=1e-6)
    assert (report["contextTokens"], report["contextWindow"]) == (113_000, 200_000)
    assert report["session"] == to_wire(usage.turn.as_wire())
    TurnUsage(price_book({}), session).add(USAGE, "claude-sonnet-5-5")  # the next turn adds to the session
    assert session.cache_read_tokens == 200_000
    unpriced = UsageTotals()
    unpriced.add(USAGE, None)
    assert unpriced.as_wire().cost_usd is None


def test_the_prices_setting_overrides_and_fills_in() -> None:
    book = parse_prices({"my-model": {"input": 3, "output": 15}, "broken": {"input": "x"}, "claude-sonnet-5-5": {
        "input": 1, "output": 1, "cacheWrite": 1, "cacheRead": 1}, "bad": 7})
    assert set(book) == {"my-model", "claude-sonnet-5-5"}
    assert book["my-model"] == ModelPrices(3, 15, 3.75, pytest.approx(0.3))
    prices = price_book(book)
    assert prices("claude-sonnet-5-5") == ModelPrices(1, 1, 1, 1)
    assert prices("claude-opus-5") == MODELS["claude-opus-5"].prices
    assert prices("nothing-known") is None


@pytest.mark.parametrize(
    ("value", "effort"),
    [(None, None), ("", None), ("default", None), ("High", "high"), ("max", "max"), ("off", EFFORT_OFF),
     (False, EFFORT_OFF), ("none", EFFORT_OFF)],
)
def test_the_effort_setting(value: Any, effort: str | None) -> None:
    assert parse_effort(value) == effort


def test_effort_comes_from_the_client_then_the_environment_and_the_small_model_does_not_think() -> None:
    settings = load_settings({"effort": "low"}, None, env={"HANDRAIL_EFFORT": "max"})
    assert settings.model.effort == "low"
    assert load_settings(None, None, env={"HANDRAIL_EFFORT": "max"}).model.effort == "max"
    assert settings.small_model is not None and settings.small_model.effort == EFFORT_OFF
    assert load_settings(None, None, env={}).model.max_tokens == 32_000


def test_the_system_prompt_keeps_the_sessions_date_and_a_new_day_is_said_once() -> None:
    date = SessionDate()
    assert date.for_system_prompt("2026-12-01") == "2026-12-01"
    assert date.note("2026-12-01") is None
    assert date.for_system_prompt("2026-12-02") == "2026-12-01"  # the cached prefix holds past midnight
    assert date.note("2026-12-02") == "(Today's date is now 2026-12-02.)"
    assert date.note("2026-12-02") is None


def test_the_system_prompt_is_the_same_text_for_the_same_inputs() -> None:
    from pathlib import Path

    args: tuple[Any, ...] = (Path("/w"), (Path("/w"),), ("Read", "Edit"), ("mcp__x__y",), "Be nice.")
    first = system_prompt(*args, skills={"a": "does a"}, date="2026-12-01")
    assert first == system_prompt(*args, skills={"a": "does a"}, date="2026-12-01")
    assert "2026-12-01" in first


def _status_error(status: int, error_type: str, message: str) -> anthropic.APIStatusError:
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")
    body = {"type": "error", "error": {"type": error_type, "message": message}}
    response = httpx2.Response(status, json=body, request=request)
    return anthropic.APIStatusError(message, response=response, body=body)


@pytest.mark.parametrize(
    ("exc", "kind", "words"),
    [
        (TypeError('"Could not resolve authentication method. Expected one of api_key"'), "noApiKey",
         ["ANTHROPIC_API_KEY", "handrail.apiKey"]),
        (ModelError("No API key", "noApiKey"), "noApiKey", ["No API key"]),
        (UnicodeEncodeError("ascii", "kéy", 1, 2, "ordinal not in range(128)"), "apiKey", ["handrail.apiKey"]),
        (_status_error(400, "invalid_request_error", "output_config.effort: 'extreme' is not valid"), "badRequest",
         ["handrail.effort", "'extreme'"]),
        (_status_error(500, "api_error", "Internal server error"), "server", ["Try again"]),
        (_status_error(402, "billing_error", "Your credit balance is too low"), "billing", ["credit balance"]),
    ],
)
def test_failures_are_described_for_the_user(exc: BaseException, kind: str, words: list[str]) -> None:
    failure = describe_failure(exc, model="claude-sonnet-5-5")
    assert failure.kind == kind
    for word in words:
        assert word in failure.message
    assert "TypeError" not in failure.message
