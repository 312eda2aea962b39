"""`window/showMessageRequest` to a client that may not be able to ask: one prompt at a time, a bounded wait.

Plain LSP clients differ: Helix 25.07 answers "method not found", Eglot answers a second prompt shown
while one is up with an internal error, and a prompt the user quits (C-g in Emacs) is never answered.
So prompts go out one after another, and an error reply or no reply within the wait is no answer:
the caller fails closed (a permission is not granted). The user is told once per kind of failure,
with `window/showMessage` and `window/logMessage`, that the editor cannot show approvals and what
lets work go on without them.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from handrail.lsp.lsp_values import field_of

log = logging.getLogger(__name__)

DEFAULT_PROMPT_TIMEOUT = 120.0  # seconds; initializationOptions.promptTimeout changes it
PROMPT_TIMEOUT_OPTION = "promptTimeout"
FailureKind = Literal["error", "unanswered"]

GO_ON_WITHOUT_PROMPTS = (
    "To let work go on without prompts, allow what handrail may do in your user settings "
    '(~/.config/handrail/settings.json, for example {"permissions": {"allow": ["Edit", "Bash(npm test:*)"]}}) '
    "or in the editor's initializationOptions.permissions, or choose a permission mode with the command "
    'handrail.setMode (arguments [{"mode": "acceptEdits"}] lets file edits in the workspace run).'
)


async def send_cancellable(server: LanguageServer, method: str, params: Any) -> Any:
    """Send a request to the client; if we are cancelled meanwhile, tell the client to close its prompt."""
    msg_id = f"handrail-ask-{uuid.uuid4()}"
    future = server.protocol.send_request(method, params, msg_id=msg_id)
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        server.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))
        raise


@dataclass(frozen=True)
class PlainAnswer:
    """What came of a prompt: the chosen action's title (None: dismissed or no answer), and why there was no
    answer when the client failed to ask (an error reply or no reply within the wait)."""

    title: str | None
    failure: str | None = None


def prompt_timeout(options: object) -> float:
    """The bounded wait for an answer, from `initializationOptions.promptTimeout` (seconds, > 0)."""
    value = field_of(options, PROMPT_TIMEOUT_OPTION)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    return DEFAULT_PROMPT_TIMEOUT


class PlainPrompts:
    """Asks through `window/showMessageRequest`, one prompt at a time, failing closed."""

    def __init__(self, server: LanguageServer, timeout: Callable[[], float]) -> None:
        self._server = server
        self._timeout = timeout
        self._turn = asyncio.Lock()  # FIFO: prompts are shown in the order they were asked
        self._told: set[FailureKind] = set()

    async def ask(self, params: types.ShowMessageRequestParams) -> PlainAnswer:
        """Show `params` once the prompts before it are answered; the answer, or why there was none."""
        async with self._turn:
            timeout = self._timeout()
            try:
                answer = await asyncio.wait_for(
                    send_cancellable(self._server, types.WINDOW_SHOW_MESSAGE_REQUEST, params), timeout
                )
            except TimeoutError:
                return self._failed("unanswered", f"no answer within {timeout:g} s")
            except Exception as exc:  # the client answered with an error: it cannot show this prompt
                return self._failed("error", f"the editor answered the prompt with an error: {exc}")
        title = field_of(answer, "title")
        return PlainAnswer(title if isinstance(title, str) else None)

    def _failed(self, kind: FailureKind, why: str) -> PlainAnswer:
        log.warning("a prompt got no answer: %s", why)
        if kind not in self._told:
            self._told.add(kind)
            self._tell(kind, why)
        return PlainAnswer(None, why)

    def _tell(self, kind: FailureKind, why: str) -> None:
        if kind == "error":
            message = (
                f"handrail: this editor cannot show approval prompts ({why}), so calls that need approval are "
                f"denied. {GO_ON_WITHOUT_PROMPTS}"
            )
        else:
            message = (
                f"handrail: an approval prompt got {why}; a prompt left unanswered counts as Deny. "
                f"{GO_ON_WITHOUT_PROMPTS}"
            )
        self._server.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
        self._server.window_log_message(types.LogMessageParams(type=types.MessageType.Warning, message=message))


def not_approved_message(why: str) -> str:
    """What the model is told of a call the editor could not ask about."""
    return (
        f"The editor could not ask the user for approval ({why}), so this call was not approved and did not run. "
        "The user has been told. Do not retry it; say what you wanted to do, so the user can allow it "
        "(a permission rule or mode) or do it themselves."
    )
