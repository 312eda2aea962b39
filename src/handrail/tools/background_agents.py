"""Background agents: sub-agents started with `run_in_background`, read with TaskOutput, stopped with TaskStop.

A background agent is an asyncio task owned by its session. It runs its
conversation one turn at a time: the first turn answers the Task prompt; a
message sent with SendMessage while it runs is added to its conversation after
its current tool results (its next model request sees it), and one that arrives
after its last model request starts another turn once that turn ends. A message
sent to an agent that has completed starts a new turn of the same conversation.
Each turn's final text is its report; a reader gets the reports it has not read
yet. `close()` (the session or the server ending) stops every agent still running.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from handrail.tools.background_shells import BackgroundShells

AgentStatus = Literal["running", "completed", "failed", "stopped"]
TurnRunner = Callable[[str], Awaitable[str]]
"""Runs one turn of the agent's conversation for a user message; its final text."""


@dataclass(frozen=True)
class AgentOutput:
    """What a read of a background agent returns: its state and the reports not read before."""

    task_id: str
    description: str
    status: AgentStatus
    reports: tuple[str, ...]
    error: str | None = None


class BackgroundAgent:
    """One sub-agent running (or finished) in the background."""

    def __init__(self, task_id: str, description: str, run_turn: TurnRunner, changed: Callable[[], None]) -> None:
        self.id = task_id
        self.description = description
        self.status: AgentStatus = "running"
        self.error: str | None = None
        self._run_turn = run_turn
        self._owner_changed = changed
        self._inbox: list[str] = []
        self._unread: list[str] = []
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    def start(self, prompt: str) -> None:
        """Run turns from `prompt` until no message waits (the agent must not be running)."""
        self.status, self.error = "running", None
        self._task = asyncio.ensure_future(self._loop(prompt))
        self._notify()

    async def _loop(self, prompt: str) -> None:
        try:
            while True:
                report = await self._run_turn(prompt)
                self._unread.append(report)
                self._notify()
                if not self._inbox:
                    break
                prompt = "\n\n".join(self.take_messages())
            self.status = "completed"
        except asyncio.CancelledError:
            self.status = "stopped"
            raise
        except Exception as exc:  # the agent fails; the session goes on
            self.status, self.error = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()
        self._owner_changed()

    def send(self, message: str) -> None:
        """Queue a user message: delivered at the next turn boundary, or in a new turn if the agent finished."""
        if self.status == "running":
            self._inbox.append(message)
        else:
            self.start(message)

    def take_messages(self) -> list[str]:
        """The queued messages, now delivered."""
        taken, self._inbox = self._inbox, []
        return taken

    def read(self) -> AgentOutput:
        """The reports since the last read, with the agent's state."""
        reports, self._unread = tuple(self._unread), []
        return AgentOutput(self.id, self.description, self.status, reports, self.error)

    async def ended(self) -> None:
        """Return when the agent is no longer running (completed, failed or stopped)."""
        while self.status == "running":
            await self._changed.wait()

    async def stop(self) -> None:
        """Stop the agent's turn (its model request and tool calls are cancelled)."""
        task = self._task
        if task is None or task.done():
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        if self.status == "running":  # cancelled before its first step: the loop never ran to say so
            self.status = "stopped"
            self._notify()


class BackgroundAgents:
    """A session's background agents by id; tells listeners whenever one starts or changes state."""

    def __init__(self) -> None:
        self._agents: dict[str, BackgroundAgent] = {}
        self._count = 0
        self.listeners: list[Callable[[], None]] = []

    def start(self, description: str, prompt: str, run_turn: TurnRunner) -> BackgroundAgent:
        """Start an agent whose turns `run_turn` runs; it runs until it ends or is stopped."""
        self._count += 1
        agent = BackgroundAgent(f"agent_{self._count}", description, run_turn, self._changed)
        self._agents[agent.id] = agent
        agent.start(prompt)
        return agent

    def _changed(self) -> None:
        for listener in tuple(self.listeners):
            listener()

    def get(self, task_id: str) -> BackgroundAgent | None:
        """The agent with this id, if this session started it."""
        return self._agents.get(task_id)

    def all(self) -> tuple[BackgroundAgent, ...]:
        """Every agent, oldest first."""
        return tuple(self._agents.values())

    def running(self) -> tuple[BackgroundAgent, ...]:
        """The agents still running."""
        return tuple(a for a in self._agents.values() if a.status == "running")

    async def close(self) -> None:
        """Stop every agent still running (the session is ending)."""
        await asyncio.gather(*(a.stop() for a in self.all()), return_exceptions=True)


@dataclass(frozen=True)
class BackgroundTask:
    """One entry of the client's list of background work."""

    id: str
    kind: Literal["agent", "shell"]
    description: str
    status: str

    def as_json(self) -> dict[str, str]:
        """The entry as the `background` chat event and `handrail.backgroundTasks` send it."""
        return {"id": self.id, "kind": self.kind, "description": self.description, "status": self.status}


def background_tasks(agents: BackgroundAgents, shells: BackgroundShells) -> tuple[BackgroundTask, ...]:
    """A session's background agents and shells, oldest first within each kind."""
    listed = [BackgroundTask(a.id, "agent", a.description, a.status) for a in agents.all()]
    listed += [BackgroundTask(s.id, "shell", s.command, s.status) for s in shells.all()]
    return tuple(listed)
