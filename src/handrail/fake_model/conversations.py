"""Scripts for several conversations served by one fake model at once (an agent and its sub-agents).

Requests of parallel conversations reach the server in any order, so one
queue of steps cannot say which answer goes where. `Conversations` keeps a
queue per conversation, told apart by a key of each request (by default the
text of its first user message: a sub-agent's is the prompt it was given), and
turns them into callable steps for `FakeModel.add`.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from handrail.fake_model.script import Step


def first_user_text(body: dict[str, Any]) -> str:
    """The text of the request's first user message."""
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return "".join(
                str(block.get("text", ""))
                for block in content or []
                if isinstance(block, dict) and block.get("type") == "text"
            )
    return ""


class Conversations:
    """Steps for each conversation, answered by whichever request of that conversation comes next."""

    def __init__(self, key: Callable[[dict[str, Any]], str] = first_user_text) -> None:
        self._key = key
        self._queues: dict[str, deque[Step]] = {}
        self._count = 0
        self._lock = threading.Lock()

    def script(self, key: str, *steps: Step) -> None:
        """Queue `steps` for the conversation whose requests have this key."""
        with self._lock:
            self._queues.setdefault(key, deque()).extend(steps)
            self._count += len(steps)

    def steps(self) -> list[Step]:
        """One routing step per step scripted so far, for `FakeModel.add`."""
        with self._lock:
            count, self._count = self._count, 0
        return [self._answer] * count

    def _answer(self, body: dict[str, Any]) -> Step:
        key = self._key(body)
        with self._lock:
            queue = self._queues.get(key)
            if not queue:
                raise LookupError(f"fake model: no step scripted for the conversation {key[:80]!r}")
            return queue.popleft()
