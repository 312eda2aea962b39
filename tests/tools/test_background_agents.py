"""Background agents without a server: turns, queued messages, reads, stopping, and the listing."""

from __future__ import annotations

import asyncio

from handrail.tools.background_agents import BackgroundAgents, background_tasks
from handrail.tools.background_shells import BackgroundShells


async def test_messages_queued_during_a_turn_start_the_next_one() -> None:
    agents = BackgroundAgents()
    gate = asyncio.Event()
    prompts: list[str] = []

    async def turn(prompt: str) -> str:
        prompts.append(prompt)
        if len(prompts) == 1:
            await gate.wait()
        return f"report {len(prompts)}"

    agent = agents.start("job", "first", turn)
    await asyncio.sleep(0)
    agent.send("one")
    agent.send("two")
    gate.set()
    await agent.ended()
    assert prompts == ["first", "one\n\ntwo"]
    output = agent.read()
    assert output.status == "completed" and output.reports == ("report 1", "report 2")
    assert agent.read().reports == ()  # read once
    agent.send("again")  # a completed agent starts a new turn
    assert agent.status == "running"
    await agent.ended()
    assert prompts[-1] == "again" and agent.read().reports == ("report 3",)


async def test_a_failing_turn_fails_the_agent_and_stop_before_start_stops_it() -> None:
    agents = BackgroundAgents()
    seen: list[str] = []
    agents.listeners.append(lambda: seen.append("changed"))

    async def broken(prompt: str) -> str:
        raise RuntimeError("model unreachable")

    failed = agents.start("broken", "go", broken)
    await failed.ended()
    assert failed.status == "failed" and failed.read().error == "RuntimeError: model unreachable"

    never = asyncio.Event()

    async def waits(prompt: str) -> str:
        await never.wait()
        return ""

    stopped = agents.start("idle", "go", waits)
    await agents.close()  # before the agent's first step ran
    assert stopped.status == "stopped" and seen
    listed = background_tasks(agents, BackgroundShells())
    assert [(t.id, t.kind, t.status) for t in listed] == [
        ("agent_1", "agent", "failed"),
        ("agent_2", "agent", "stopped"),
    ]
