"""The permission prompter's messages: a sub-agent's call is marked, an abandoned prompt is reported."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from typing import Any, cast

import pytest
from pygls.lsp.server import LanguageServer

from handrail.server.chat import ChatChannel
from handrail.server.client_features import ClientFeatures
from handrail.server.prompter import LspPrompter, message_text
from handrail.tools.context import AgentOrigin, PermissionRequest

REQUEST = PermissionRequest(
    tool_name="Bash",
    tool_use_id="toolu_1",
    input={"command": "touch x"},
    summary="touch x",
    reason="this tool changes things",
    agent=AgentOrigin("toolu_task", "look around"),
)


class _Protocol:
    """Records what the server sends; requests stay unanswered unless `answer` is set."""

    def __init__(self, answer: Any = None) -> None:
        self.sent: list[tuple[str, Any]] = []
        self.answer = answer

    def send_request(self, method: str, params: Any, msg_id: str) -> Future[Any]:
        self.sent.append((method, params))
        future: Future[Any] = Future()
        if self.answer is not None:
            future.set_result(self.answer)
        return future

    def notify(self, method: str, params: Any) -> None:
        self.sent.append((method, params))


class _Server:
    def __init__(self, protocol: _Protocol) -> None:
        self.protocol = protocol


def _prompter(protocol: _Protocol) -> LspPrompter:
    server = cast(LanguageServer, _Server(protocol))

    async def persist(destination: Any, rule: str) -> None:
        return None

    return LspPrompter(server, ClientFeatures(permission_request=True), ChatChannel(server, "s1", None), persist)


def test_plain_message_names_the_sub_agent() -> None:
    lines = message_text(REQUEST).splitlines()
    assert lines[:2] == ["From handrail's sub-agent: look around", "handrail wants to run Bash: touch x"]


async def test_rich_request_carries_the_agent() -> None:
    protocol = _Protocol(answer={"decision": "allow"})
    answer = await _prompter(protocol).ask_permission(REQUEST)
    assert answer.decision == "allow"
    method, params = protocol.sent[0]
    assert method == "handrail/permission"
    assert params["agent"] == {"toolUseId": "toolu_task", "description": "look around"}


async def test_an_abandoned_prompt_is_reported_as_cancelled() -> None:
    protocol = _Protocol()
    prompt = asyncio.ensure_future(_prompter(protocol).ask_permission(REQUEST))
    await asyncio.sleep(0)
    prompt.cancel()
    with pytest.raises(asyncio.CancelledError):
        await prompt
    sent = protocol.sent
    methods = [(method, params.get("decision") if isinstance(params, dict) else None) for method, params in sent]
    assert methods[1][0] == "$/cancelRequest"
    assert ("handrail/chat", "cancelled") in methods
