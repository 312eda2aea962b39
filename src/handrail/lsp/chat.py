"""What the client sees of a turn as it happens: `handrail/chat` notifications and `$/progress`."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from handrail.tools.todos import TodoItem, todos_json
from handrail.wire.models import BackgroundTask, TurnError, Usage, to_wire
from handrail.wire.names import CHAT_METHOD, ChatEventKind

_PREVIEW_CHARS = 2000


class ChatChannel:
    """Streams one session's turn to the client (`handrail/chat`) with the turn's work-done progress;
    implements the agent's ChatSink port and the tools' ProgressReporter."""

    def __init__(self, server: LanguageServer, session_id: str, progress_token: str | None) -> None:
        self._server = server
        self.session_id = session_id
        self._token = progress_token
        self.streamed_text = ""
        self._parents: dict[str, str] = {}  # a sub-agent's tool call → the Task call that started the agent

    def _send(self, kind: ChatEventKind, **fields: Any) -> None:
        parent = self._parents.get(fields.get("toolUseId", ""))
        if parent is not None:
            fields["parentToolUseId"] = parent
        self._server.protocol.notify(CHAT_METHOD, {"sessionId": self.session_id, "kind": kind, **fields})

    def adopt(self, tool_use_id: str, parent_tool_use_id: str) -> None:
        """Mark a call as a sub-agent's: its events carry `parentToolUseId` from now on."""
        self._parents[tool_use_id] = parent_tool_use_id

    def _report(self, message: str) -> None:
        if self._token is not None:
            self._server.work_done_progress.report(self._token, types.WorkDoneProgressReport(message=message))

    def turn_started(self, prompt: str) -> None:
        """A turn began."""
        self._send("turnStart", prompt=prompt)

    def text(self, delta: str) -> None:
        """A piece of assistant text."""
        self.streamed_text += delta
        self._send("text", text=delta)

    def thinking(self, delta: str) -> None:
        """A piece of the model's thinking (clients show it folded)."""
        self._send("thinking", text=delta)

    def retry(self, reason: str) -> None:
        """The model stream failed; the partial message will be sent again."""
        self.streamed_text = ""
        self._send("retry", reason=reason)
        self._report("retrying the model request")

    def tool_started(self, tool_use_id: str, name: str, summary: str) -> None:
        """A tool call begins."""
        self._send("toolStart", toolUseId=tool_use_id, name=name, summary=summary)
        self._report(summary)

    def tool_progress(self, tool_use_id: str, message: str) -> None:
        """A running tool call reports progress."""
        self._send("toolProgress", toolUseId=tool_use_id, message=message)

    def tool_finished(self, tool_use_id: str, *, is_error: bool, text: str) -> None:
        """A tool call ended."""
        self._send("toolResult", toolUseId=tool_use_id, isError=is_error, preview=text[:_PREVIEW_CHARS])

    def permission(self, tool_use_id: str, decision: str) -> None:
        """The user answered a permission prompt."""
        self._send("permission", toolUseId=tool_use_id, decision=decision)

    @contextmanager
    def prompt(self, tool_use_id: str) -> Iterator[None]:
        """Around asking the user about `tool_use_id`: if the asking is cancelled, say "cancelled", so the client
        can close exactly this prompt."""
        try:
            yield
        except asyncio.CancelledError:
            self.permission(tool_use_id, "cancelled")
            raise

    def mode(self, mode: str) -> None:
        """The session's permission mode changed."""
        self._send("mode", mode=mode)

    def todos(self, todos: Sequence[TodoItem]) -> None:
        """The session's task list changed (the whole list)."""
        self._send("todos", todos=todos_json(todos))

    def background(self, tasks: Sequence[BackgroundTask]) -> None:
        """The session's background agents and shells changed (the whole list; it may come between turns)."""
        self._send("background", tasks=[to_wire(task) for task in tasks])

    def turn_ended(
        self, stop_reason: str, text: str, usage: Usage | None = None, error: TurnError | None = None
    ) -> None:
        """A turn ended (with the tokens its model requests used and their cost, and why it failed if it did)."""
        extra: dict[str, Any] = {"usage": to_wire(usage)} if usage is not None else {}
        if error is not None:
            extra["error"] = to_wire(error)
        self._send("turnEnd", stopReason=stop_reason, text=text, **extra)

    def on_cancel(self, callback: Callable[[], object]) -> None:
        """Call `callback` when the client cancels the turn's work-done progress."""
        if self._token is not None:
            self._server.work_done_progress.tokens[self._token].add_done_callback(lambda _: callback())

    def end_progress(self, message: str) -> None:
        """End the turn's work-done progress."""
        end_progress(self._server, self._token, message)


async def begin_progress(server: LanguageServer, title: str) -> str | None:
    """Start work-done progress when the client supports it; returns the token."""
    window = server.client_capabilities.window
    if window is None or not window.work_done_progress:
        return None
    token = f"handrail-{uuid.uuid4()}"  # fresh per turn: a late cancel of an old token must not stop this one
    await server.work_done_progress.create_async(token)
    server.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True))
    return token


def end_progress(server: LanguageServer, token: str | None, message: str) -> None:
    """End work-done progress started by `begin_progress`, and forget its token.

    pygls keeps every token's cancellation future (and what waits on it: the turn) until told otherwise;
    a cancel from the client for an ended token is then ignored, as it should be.
    """
    if token is not None:
        server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
        server.work_done_progress.tokens.pop(token, None)
