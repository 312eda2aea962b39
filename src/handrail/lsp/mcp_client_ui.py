"""What MCP servers ask of the editor, answered with the editor's own UI (`McpClientHooks` for LSP clients).

* Elicitation forms: `handrail/elicit` where the client declares `elicitation` in
  `capabilities.experimental.handrail` (it shows the form and returns `{action, content}`);
  otherwise one `window/showMessageRequest` per field: choices and booleans as buttons, a
  typed field only with its default. A form that needs typing is declined, with a message
  saying why. "Decline" on any question declines; dismissing a question cancels. Every
  accepted form is checked against the requested schema before it is sent.
* URL elicitation: the URL is shown first; "Open" opens it through `window/showDocument`.
* Roots: the workspace folders. Log messages: `window/logMessage`.
* OAuth sign-in: the authorization page opens through `window/showDocument` (external);
  a client without it is shown the address to open.

One form is asked at a time, so questions from two servers never interleave.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from handrail.lsp.client_features import ClientFeatures
from handrail.lsp.lsp_values import field_of, to_plain
from handrail.lsp.plain_prompts import send_cancellable
from handrail.permissions.visible import cut_middle, visible
from handrail.tools.mcp.elicitation import (
    FormError,
    FormField,
    answer_problems,
    form_fields,
    plain_problem,
    shown_value,
)
from handrail.tools.mcp.model import ElicitationAnswer, ElicitationRequest
from handrail.wire.names import ELICIT_METHOD

log = logging.getLogger(__name__)

DECLINE = "Decline"
SKIP = "Skip"
DONE = "Done"
ACCEPT = "Accept"
OPEN = "Open"
YES, NO = "Yes", "No"
_CONTROLS = frozenset({DECLINE, SKIP, DONE, ACCEPT})
_MESSAGE_CHARS = 2_000
_LOG_CHARS = 4_000
_LOG_TYPES = {
    "debug": types.MessageType.Log,
    "info": types.MessageType.Info,
    "notice": types.MessageType.Info,
    "warning": types.MessageType.Warning,
}
DECLINED = ElicitationAnswer("decline")
CANCELLED = ElicitationAnswer("cancel")


class _Stop(Exception):
    """The user declined or cancelled in the middle of a form."""

    def __init__(self, answer: ElicitationAnswer) -> None:
        super().__init__(answer.action)
        self.answer = answer


def _buttons(options: Sequence[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Options with titles that are unique and never a control's (a clashing label gets its value added)."""
    seen: set[str] = set()
    unique: list[tuple[str, Any]] = []
    for label, value in options:
        title = visible(label)
        if title in seen or title in _CONTROLS:
            title = f"{title} ({visible(str(value))})"
        seen.add(title)
        unique.append((title, value))
    return unique


class LspMcpClient:
    """Implements `McpClientHooks` for the LSP client."""

    def __init__(
        self, server: LanguageServer, features: Callable[[], ClientFeatures], roots: Callable[[], Sequence[Path]]
    ) -> None:
        self._server = server
        self._features = features
        self._roots = roots
        self._one_form = asyncio.Lock()

    # ------------------------------------------------------------------ roots, log, browser

    def roots(self) -> Sequence[Path]:
        """The workspace folders."""
        return self._roots()

    def log(self, server: str, level: str, logger: str | None, data: Any) -> None:
        """The server's log message in the editor's log (window/logMessage)."""
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
        source = f"{server}/{logger}" if logger else server
        message = f"[MCP {visible(source)}] {cut_middle(visible(text, keep_newlines=True), _LOG_CHARS)}"
        kind = _LOG_TYPES.get(level, types.MessageType.Error)
        self._server.window_log_message(types.LogMessageParams(type=kind, message=message))

    async def open_browser(self, server: str, url: str) -> bool:
        """Open a sign-in page in the user's browser; a client that cannot is shown the address."""
        if self._features().show_document:
            result = await self._server.window_show_document_async(types.ShowDocumentParams(uri=url, external=True))
            if field_of(result, "success") is True:
                return True
        self._server.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Info,
            message=f"To sign in to the MCP server '{visible(server)}', open {visible(url)} in your browser.",
        ))
        return False

    def _tell(self, message: str) -> None:
        log.warning("%s", message)
        self._server.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    # ------------------------------------------------------------------ elicitation

    async def elicit(self, server: str, request: ElicitationRequest) -> ElicitationAnswer:
        """Ask the user what `request` asks; a failure to ask is a cancel (the server is never left waiting)."""
        async with self._one_form:
            try:
                if request.mode == "url":
                    return await self._open_url(server, request)
                return await self._form(server, request)
            except _Stop as stop:
                return stop.answer
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the client failed to answer: the server hears a cancel
                log.warning("could not ask the MCP server %s's question: %s", server, exc)
                return CANCELLED

    def _header(self, server: str, message: str) -> str:
        return f"The MCP server '{visible(server)}' asks: {visible(message, keep_newlines=True)}"

    async def _choose(self, text: str, options: Sequence[tuple[str, Any]], *, decline: bool = True) -> Any:
        """One question: the value of the button chosen (`_Stop` for Decline, or when dismissed)."""
        buttons = _buttons(options)
        titles = [title for title, _ in buttons] + ([DECLINE] if decline else [])
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Info,
            message=cut_middle(text, _MESSAGE_CHARS),
            actions=[types.MessageActionItem(title=title) for title in titles],
        )
        title = field_of(await send_cancellable(self._server, types.WINDOW_SHOW_MESSAGE_REQUEST, params), "title")
        if title == DECLINE and decline:
            raise _Stop(DECLINED)
        for button, value in buttons:
            if title == button:
                return value
        raise _Stop(CANCELLED)

    async def _open_url(self, server: str, request: ElicitationRequest) -> ElicitationAnswer:
        url = request.url or ""
        if not url.startswith(("https://", "http://")):
            where = visible(url)
            self._tell(f"The MCP server '{visible(server)}' asked to open {where!r}, not a web address; declined.")
            return DECLINED
        text = f"{self._header(server, request.message)}\n\nOpen {visible(url)} in your browser?"
        await self._choose(text, [(OPEN, True)])
        await self._server.window_show_document_async(types.ShowDocumentParams(uri=url, external=True))
        return ElicitationAnswer("accept")

    async def _form(self, server: str, request: ElicitationRequest) -> ElicitationAnswer:
        try:
            fields = form_fields(request.schema)
        except FormError as exc:
            self._tell(f"The MCP server '{visible(server)}' sent a form handrail cannot show ({exc}); declined.")
            return DECLINED
        if self._features().elicitation:
            return await self._rich(server, request)
        problem = plain_problem(fields)
        if problem is not None:
            self._tell(
                f"{self._header(server, request.message)}\nhandrail declined it: {problem}. "
                "The VS Code extension and the Neovim plugin can fill in such forms."
            )
            return DECLINED
        header = self._header(server, request.message)
        content: dict[str, Any] = {}
        asked = [f for f in fields if not (f.free_text and not f.has_default)]  # untyped optional text: left out
        if not asked:
            await self._choose(header, [(ACCEPT, True)])
        for field in asked:
            value = await self._field(header, field)
            if value is not _SKIPPED:
                content[field.name] = value
        return self._checked(server, request, content)

    def _checked(self, server: str, request: ElicitationRequest, content: dict[str, Any]) -> ElicitationAnswer:
        problems = answer_problems(request.schema, content)
        if problems:
            self._tell(
                f"The answer to the MCP server '{visible(server)}' does not fit its form "
                f"({'; '.join(problems)}); declined."
            )
            return DECLINED
        return ElicitationAnswer("accept", content)

    async def _field(self, header: str, field: FormField) -> Any:
        about = f"{field.title}: {field.description}" if field.description else field.title
        text = f"{header}\n\n{visible(about, keep_newlines=True)}"
        skip = [] if field.required else [(SKIP, _SKIPPED)]
        if field.kind == "boolean":
            return await self._choose(text, [(YES, True), (NO, False), *skip])
        if field.kind == "choice":
            return await self._choose(text, [*((c.label, c.value) for c in field.choices), *skip])
        if field.kind == "choices":
            return await self._several(text, field)
        default = [(f"Use {shown_value(field.default)}", field.default)]
        return await self._choose(f"{text}\n(This editor can only offer the default.)", [*default, *skip])

    async def _several(self, text: str, field: FormField) -> Any:
        """A multiple choice, one button press per option; Done once enough are chosen."""
        chosen: list[str] = []
        while field.max_items is None or len(chosen) < field.max_items:
            left = [(c.label, c.value) for c in field.choices if c.value not in chosen]
            if not left:
                break
            enough = len(chosen) >= field.min_items
            finish = [(DONE, _DONE)] if enough and (chosen or field.required) else []
            if not chosen and not field.required:
                finish.append((SKIP, _SKIPPED))
            so_far = f"\n(Chosen so far: {visible(', '.join(chosen))})" if chosen else ""
            value = await self._choose(f"{text}{so_far}", [*left, *finish])
            if value is _SKIPPED:
                return _SKIPPED
            if value is _DONE:
                break
            chosen.append(value)
        return chosen

    async def _rich(self, server: str, request: ElicitationRequest) -> ElicitationAnswer:
        params = {"server": server, "message": request.message, "requestedSchema": dict(request.schema)}
        result = to_plain(await send_cancellable(self._server, ELICIT_METHOD, params))
        action = field_of(result, "action")
        if action in ("decline", "cancel"):
            return ElicitationAnswer(action)
        content = field_of(result, "content")
        if action != "accept" or not isinstance(content, dict):
            return CANCELLED
        return self._checked(server, request, content)


class _Marker:
    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


_SKIPPED = _Marker("skipped")
_DONE = _Marker("done")
