"""The agent loop's wait before a retry honours the server's retry-after, within a bound."""

from __future__ import annotations

import anthropic
import httpx2
import pytest

from handrail.agent.model_client import ModelClient, ModelSettings, StreamFault, is_retryable, retry_after_seconds


def _rate_limited(headers: dict[str, str]) -> anthropic.RateLimitError:
    request = httpx2.Request("POST", "http://127.0.0.1/v1/messages")
    response = httpx2.Response(429, headers=headers, request=request)
    return anthropic.RateLimitError("slow down", response=response, body=None)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [({"retry-after": "7"}, 7.0), ({"retry-after-ms": "250", "retry-after": "9"}, 0.25), ({}, None),
     ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, None), ({"retry-after": "-3"}, None)],
)
def test_retry_after_is_read_from_the_response(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after_seconds(_rate_limited(headers)) == seconds


def test_the_delay_honours_retry_after_up_to_the_bound() -> None:
    client = ModelClient(ModelSettings(retry_base_delay=0.0, max_retry_after=60.0))
    assert client.retry_delay(1, _rate_limited({"retry-after": "7"})) == 7.0
    assert client.retry_delay(1, _rate_limited({"retry-after": "3600"})) == 60.0
    assert client.retry_delay(1, _rate_limited({})) == 0.0
    assert client.retry_delay(1, StreamFault("stalled")) == 0.0


def test_a_backoff_longer_than_retry_after_wins() -> None:
    client = ModelClient(ModelSettings(retry_base_delay=10.0))
    assert client.retry_delay(1, _rate_limited({"retry-after": "1"})) >= 7.5


def test_stream_faults_are_retryable() -> None:
    assert is_retryable(StreamFault("no data for 1 s"))
