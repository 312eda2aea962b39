"""Adaptive thinking through `handrail lsp` (sent, streamed to the chat, passed back intact across tool use,
retries and cancellation), a cancelled answer marked as interrupted, and usage with its cost in `turnEnd`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from handrail.agent.agent_loop import INTERRUPTED
from handrail.fake_model import Drop, FakeModel, Hold, Reply, Text, Thinking, ToolUse, counted
from tests.e2e.editor import Editor


def _thinking_config(request: dict[str, Any]) -> tuple[Any, Any]:
    return request.get("thinking"), request.get("output_config")


async def test_thinking_is_on_by_default_streams_folded_and_goes_back_intact(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    thought = Thinking("The user wants the first word; notes.txt holds it.")
    model.add(Reply.of(thought, ToolUse("Read", {"file_path": str(workspace / "notes.txt")})), Reply.of(Text("alpha")))
    result = await editor.ask("what is the first word of notes.txt?")
    assert result["text"] == "alpha" and model.errors == []  # the fake refuses thinking that did not come back intact
    first, second = model.requests
    assert _thinking_config(first) == ({"type": "adaptive", "display": "summarized"}, None)
    assistant = second["messages"][1]["content"]
    assert assistant[0] == thought.content_block()
    streamed = "".join(e["text"] for e in editor.chat if e["kind"] == "thinking")
    assert streamed == thought.thinking
    assert "".join(e["text"] for e in editor.chat if e["kind"] == "text") == "alpha"


@pytest.mark.parametrize(
    ("effort", "thinking", "output_config"),
    [
        ("high", {"type": "adaptive", "display": "summarized"}, {"effort": "high"}),
        ("off", {"type": "between_tools"}, None),  # the default model's off switch
    ],
)
async def test_the_effort_setting_is_sent_as_the_sdk_expects(
    editor: Editor, model: FakeModel, effort: str, thinking: dict[str, Any], output_config: dict[str, Any] | None
) -> None:
    editor.client.set_configuration({"handrail": {"effort": effort}})
    model.add(Reply.of(Text("ok")))
    await editor.ask("hi")
    assert _thinking_config(model.requests[-1]) == (thinking, output_config)


async def test_thinking_survives_a_stream_that_broke_after_its_tool_started(
    editor: Editor, model: FakeModel, workspace: Path
) -> None:
    thought = Thinking("Read it, then answer.")
    broken = Drop(after_blocks=2, reply=Reply.of(thought, ToolUse("Read", {"file_path": str(workspace / "notes.txt")}),
                                                 Text("and more")))
    model.add(broken, Reply.of(Text("done")))
    result = await editor.ask("read notes.txt")
    assert result["text"] == "done" and model.errors == []
    kept = model.requests[-1]["messages"][1]["content"]
    assert kept[0] == thought.content_block() and kept[1]["type"] == "tool_use"


async def test_a_cancelled_answer_is_kept_and_marked_interrupted(editor: Editor, model: FakeModel) -> None:
    hold = Hold(Reply.of(Thinking("Plan the answer."), Text("The answer starts here and goes on")), after_blocks=1,
                partial_block=True)
    model.add(hold, Reply.of(Text("fresh")))
    ask = asyncio.create_task(editor.ask("talk", session_id="s1"))
    assert await asyncio.to_thread(hold.held.wait, 60)
    await editor.wait_for_chat(lambda e: e["kind"] == "text")
    await editor.cancel("s1")
    assert (await ask)["stopReason"] == "cancelled"
    follow = await editor.ask("something else", session_id="s1")
    assert follow["text"] == "fresh" and model.errors == []
    prompt, partial, after = model.requests[-1]["messages"]
    assert [block["text"] for block in prompt["content"]] == ["talk"]
    assert partial["role"] == "assistant"
    assert partial["content"][0] == Thinking("Plan the answer.").content_block()
    assert partial["content"][1]["text"].startswith("The answer")
    texts = [block["text"] for block in after["content"]]
    assert texts[0] == INTERRUPTED and texts[-1] == "something else"  # the new prompt follows the mark, on its own


async def test_a_turn_cancelled_before_any_answer_is_marked_too(editor: Editor, model: FakeModel) -> None:
    hold = Hold(Reply.of(Text("never")))
    model.add(hold, Reply.of(Text("fresh")))
    ask = asyncio.create_task(editor.ask("first", session_id="s2"))
    assert await asyncio.to_thread(hold.held.wait, 60)
    await editor.cancel("s2")
    assert (await ask)["stopReason"] == "cancelled"
    await editor.ask("second", session_id="s2")
    (message,) = model.requests[-1]["messages"]
    assert [block["text"] for block in message["content"]] == ["first", INTERRUPTED, "second"]


async def test_turn_end_reports_cache_use_cost_and_context(editor: Editor, model: FakeModel, workspace: Path) -> None:
    model.add(counted(Reply.of(ToolUse("Read", {"file_path": str(workspace / "notes.txt")}), usage_out=20)),
              counted(Reply.of(Text("alpha"), usage_out=5)))
    result = await editor.ask("first word?")
    (end,) = [e for e in editor.chat if e["kind"] == "turnEnd"]
    usage = end["usage"]
    first, second = model.usages
    assert usage["cacheWriteTokens"] == first["cache_creation_input_tokens"] + second["cache_creation_input_tokens"]
    assert usage["cacheReadTokens"] == second["cache_read_input_tokens"] > 0
    assert usage["inputTokens"] == 0 and usage["outputTokens"] == 25
    # claude-sonnet-5-5's list prices per million tokens: $2 input, $2.50 cache write, $0.10 cache read, $10 output
    cost = (usage["cacheWriteTokens"] * 2.5 + usage["cacheReadTokens"] * 0.1 + 25 * 10) / 1e6
    assert usage["costUsd"] == pytest.approx(cost, abs=1e-6)
    total = sum(second[k] for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    assert (usage["contextTokens"], usage["contextWindow"]) == (total + 5, 200_000)
    assert result["usage"] == usage
    # the session's totals go on from turn to turn
    model.add(counted(Reply.of(Text("beta"), usage_out=5)))
    await editor.ask("second word?", result["sessionId"])
    later = [e for e in editor.chat if e["kind"] == "turnEnd"][-1]["usage"]
    assert later["session"]["outputTokens"] == 30 and later["outputTokens"] == 5
    assert later["session"]["costUsd"] == pytest.approx(usage["costUsd"] + later["costUsd"], abs=1e-6)


async def test_a_price_setting_overrides_the_list_price(editor: Editor, model: FakeModel) -> None:
    editor.client.set_configuration(
        {"handrail": {"model": "claude-gateway-alias", "prices": {"claude-gateway-alias": {"input": 1, "output": 1}}}})
    model.add(Reply.of(Text("ok"), usage_in=1000, usage_out=1000))
    result = await editor.ask("hi")
    assert result["usage"]["costUsd"] == pytest.approx(0.002)
    assert "thinking" not in model.requests[-1]  # a model handrail does not know gets the API's defaults


async def test_an_unknown_model_without_a_price_has_no_cost(editor: Editor, model: FakeModel) -> None:
    editor.client.set_configuration({"handrail": {"model": "claude-gateway-alias"}})
    model.add(Reply.of(Text("ok")))
    assert (await editor.ask("hi"))["usage"]["costUsd"] is None
