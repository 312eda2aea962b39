"""Model failures reach the user as a sentence that says what to do, with a kind a client can act on:
no API key, a refused key, a forbidden request, an unknown model, rate limits, overload, no network."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from handrail.fake_model import FakeModel, HttpError
from tests.e2e.editor import Editor, server_env, start_editor

# the SDK's own retries (2) on each of the loop's attempts (1 + 3 retries)
EVERY_ATTEMPT = 12


async def _ask_with(workspace: Path, env: dict[str, str], **settings: Any) -> tuple[dict[str, Any], Editor]:
    editor = await start_editor(workspace, env, init_options=settings or None)
    try:
        result = await editor.ask("hello")
        return result, editor
    finally:
        await editor.client.shutdown_session()
        await editor.client.stop()


def _turn_end(editor: Editor) -> dict[str, Any]:
    return next(e for e in editor.chat if e["kind"] == "turnEnd")


def _no_credentials(env: dict[str, str], tmp: Path) -> dict[str, str]:
    names = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE", "ANTHROPIC_FEDERATION_RULE_ID")
    cleaned = {k: v for k, v in env.items() if k not in names and k != "ANTHROPIC_CONFIG_DIR"}
    home = tmp / "home"  # no credentials profile on disk either
    home.mkdir(exist_ok=True)
    return {**cleaned, "HOME": str(home)}


async def test_no_api_key_says_which_setting_and_variable_to_set(model: FakeModel, workspace: Path) -> None:
    env = _no_credentials(server_env(model.base_url, workspace.parent / "state"), workspace.parent)
    result, editor = await _ask_with(workspace, env)
    assert result["stopReason"] == "error"
    assert result["error"]["kind"] == "noApiKey", result
    assert "ANTHROPIC_API_KEY" in result["text"] and "handrail.apiKey" in result["text"]
    assert "TypeError" not in result["text"] and "Could not resolve" not in result["text"]
    assert _turn_end(editor)["error"] == result["error"]
    assert model.requests == []  # nothing was sent without a key


@pytest.mark.parametrize(
    ("steps", "kind", "words"),
    [
        ([HttpError(401, message="invalid x-api-key")], "apiKey", ["invalid x-api-key", "ANTHROPIC_API_KEY",
                                                                    "handrail.apiKey"]),
        ([HttpError(403, message="This key may not use this model")], "forbidden", ["Anthropic Console",
                                                                                     "handrail.model"]),
        ([HttpError(404, message="model: claude-sonnet-5-5")], "model", ["claude-sonnet-5-5", "handrail.model",
                                                                          "HANDRAIL_MODEL"]),
        ([HttpError(429, message="Number of requests has exceeded your rate limit")] * EVERY_ATTEMPT, "rateLimited",
         ["rate-limiting", "Wait a minute"]),
        ([HttpError(529, message="Overloaded")] * EVERY_ATTEMPT, "overloaded", ["overloaded", "Try again"]),
    ],
    ids=["401", "403", "unknown-model", "429", "529"],
)
async def test_api_errors_say_what_to_do(
    model: FakeModel, workspace: Path, steps: list[HttpError], kind: str, words: list[str]
) -> None:
    model.add(*steps)
    result, editor = await _ask_with(workspace, server_env(model.base_url, workspace.parent / "state"))
    assert (result["stopReason"], result["error"]["kind"]) == ("error", kind)
    for word in words:
        assert word in result["text"]
    assert _turn_end(editor)["error"] == result["error"]


async def test_a_network_that_is_down_says_so(workspace: Path, tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port on 127.0.0.1 that nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    env = server_env(closed, tmp_path / "state")
    result, editor = await _ask_with(workspace, env)
    assert (result["stopReason"], result["error"]["kind"]) == ("error", "network")
    assert closed in result["text"] and "network connection" in result["text"]
    assert "handrail.baseUrl" in result["text"]
    retries = [e for e in editor.chat if e["kind"] == "retry"]
    assert retries and all("Could not reach the model API" in e["reason"] for e in retries)
