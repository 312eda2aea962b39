"""Every `handrail/chat` event the server sends is one the wire contract describes (`handrail.wire.models`,
whose server-side models forbid fields they do not name): each ChatChannel method, sub-agent calls included."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from handrail.lsp.chat import ChatChannel
from handrail.tools.todos import TodoItem
from handrail.wire.models import BackgroundTask, ChatEvent, TurnError, Usage, UsageTotals
from handrail.wire.names import CHAT_EVENT_KINDS, CHAT_METHOD


class Protocol:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    def notify(self, method: str, params: Any) -> None:
        self.sent.append((method, params))


class Server:
    def __init__(self) -> None:
        self.protocol = Protocol()


def test_every_chat_event_fits_its_model() -> None:
    server = Server()
    chat = ChatChannel(server, "s1", progress_token=None)  # type: ignore[arg-type]
    totals = UsageTotals(input_tokens=1, cache_read_tokens=2, cache_write_tokens=3, output_tokens=4, cost_usd=None)
    chat.turn_started("hello")
    chat.text("Hi")
    chat.thinking("hm")
    chat.retry("overloaded")
    chat.tool_started("t1", "Task", "Find alpha")
    chat.adopt("t2", "t1")
    chat.tool_started("t2", "Read", "Read a.py")
    chat.tool_progress("t2", "reading")
    chat.permission("t2", "allow")
    chat.permission("t2", "cancelled")
    chat.tool_finished("t2", is_error=False, text="x" * 5000)
    chat.mode("plan")
    chat.todos([TodoItem(content="Run the tests", status="in_progress", active_form="Running the tests")])
    chat.background([BackgroundTask(id="b1", kind="shell", description="sleep 9", status="running")])
    chat.turn_ended("end_turn", "done", Usage(**totals.model_dump(), session=totals, context_tokens=9,
                                               context_window=200_000))
    chat.turn_ended("error", "", error=TurnError(kind="noApiKey", message="set a key"))

    assert {method for method, _ in server.protocol.sent} == {CHAT_METHOD}
    events = [params for _, params in server.protocol.sent]
    for event in events:
        ChatEvent.model_validate(event)
    assert {event["kind"] for event in events} == set(CHAT_EVENT_KINDS)
    assert [e.get("parentToolUseId") for e in events if e.get("toolUseId") == "t2"] == ["t1"] * 5


def test_an_event_with_a_field_the_contract_does_not_name_is_refused() -> None:
    with pytest.raises(ValidationError):
        ChatEvent.model_validate({"sessionId": "s", "kind": "text", "text": "a", "extra": 1})
