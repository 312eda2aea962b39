"""HandrailProtocol: pygls 2.1.1's protocol with four fixes the agent needs, and its own document store.

All four touch private pygls API, which is why pyproject pins pygls==2.1.1:
re-run tests/e2e/test_turns.py (cancel, late answer, shutdown) when upgrading.

1. `$/cancelRequest` for a `workspace/executeCommand` answers the client but lets the
   command's coroutine run on; we cancel the command's task for real.
2. A late answer to a server→client request whose future was cancelled makes
   pygls pop up "Error in server: CANCELLED"; we drop such answers.
3. `shutdown` with requests in flight raises "dictionary changed size during
   iteration" (pygls#606); we iterate over a snapshot. (The server's own shutdown
   handler stops every turn first, so this guards requests sent outside turns.)
4. Handlers run on behalf of a generator handler (every `workspace/executeCommand`, so every
   `handrail.ask`) or as async notification handlers are filed in `_request_futures` under a
   made-up id that nothing removes: each turn's task and its result stayed in memory for the
   server's life. We remove each such entry when its handler ends.

And hostile input gets JSON-RPC answers instead of silence or pop-ups: a request
whose params do not fit its method is answered InvalidParams (pygls answered
nothing, leaving the client waiting); a message that is not JSON-RPC at all is
answered with a null id; before `initialize`, requests get ServerNotInitialized
and notifications are dropped, as the LSP specification says.

Documents are kept by `server.documents` (`adopt_block_documents`), not by pygls's TextDocument.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Generator
from concurrent.futures import Future
from functools import partial
from typing import Any

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification

from handrail.lsp.document_sync import apply_did_change
from handrail.lsp.documents import block_workspace
from handrail.wire.names import ASK_USER_METHOD, ELICIT_METHOD

# a notification nobody handles: what an already-answered bad request turns into
ANSWERED = "$/handrail/answered"

log = logging.getLogger(__name__)

PLAIN_RESULT_METHODS = frozenset({ASK_USER_METHOD, ELICIT_METHOD})


class HandrailProtocol(LanguageServerProtocol):
    """The LSP protocol with real command cancellation and a safe shutdown."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.running_commands: dict[Any, asyncio.Task[Any]] = {}
        self.initialize_seen = False

    def track_current_request(self) -> None:
        """Let `$/cancelRequest` for the request being handled cancel the current task."""
        task = asyncio.current_task()
        msg_id = self.msg_id
        if task is None or msg_id is None:
            return
        self.running_commands[msg_id] = task
        task.add_done_callback(lambda _: self.running_commands.pop(msg_id, None))

    def adopt_block_documents(self) -> None:
        """Keep open documents as `BlockDocument`s; call from the initialize handler, before any opens."""
        if self._workspace is not None:
            self._workspace = block_workspace(self._workspace)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        task = self.running_commands.pop(msg_id, None)
        if task is not None:
            task.cancel()
        super()._handle_cancel_notification(msg_id)

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any, args: tuple[Any, ...] | None = None,
                         kwargs: dict[str, Any] | None = None) -> None:
        """Run a handler as pygls does, then forget its future once it is done (pygls keeps those it
        filed under a made-up id forever; a request's own id it removes itself, before this runs)."""
        before = self._request_futures.get(msg_id)
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None and future is not before:
            future.add_done_callback(partial(self._forget_handler_future, msg_id))

    def _forget_handler_future(self, msg_id: Any, future: asyncio.Future[Any] | Future[Any]) -> None:
        if self._request_futures.get(msg_id) is future:
            self._request_futures.pop(msg_id, None)

    def _handle_response(self, msg_id: Any, result: Any | None = None, error: Any | None = None) -> None:
        future = self._request_futures.get(msg_id)
        if future is not None and future.cancelled():
            self._request_futures.pop(msg_id, None)
            log.debug("dropped a late answer to cancelled request %s", msg_id)
            return
        super()._handle_response(msg_id, result, error)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Generator[Any, Any, None]:
        """Apply the changes the LSP way (see document_sync), then run the server's own handler."""
        if apply_did_change(self.workspace, params) and (
            handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)
        ) is not None:
            yield handler, (params,), None

    def get_result_type(self, method: str) -> Any:  # type: ignore[override]  # pygls wraps its own in lru_cache
        """Results of `handrail/askUser` and `handrail/elicit` stay plain dicts: their keys are question texts
        and form fields, which pygls's namedtuples would rename."""
        if method in PLAIN_RESULT_METHODS:
            return types.ExecuteCommandResponse  # its `result` is LSPAny, which pygls leaves as JSON
        return super().get_result_type(method)

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """Shut down, cancelling outstanding server→client requests from a snapshot."""
        if (handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield handler, args, None
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True
        return None

    def structure_message(self, data: dict[str, Any]) -> Any:
        """Parse one message; a request whose params do not fit is answered with the error at once."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" in data and "method" in data:
                log.warning("request %r for %r has invalid params: %s", data.get("id"), data.get("method"), exc)
                self._send_response(data["id"], None, exc.to_response_error())
            else:  # a notification, or an answer to nothing we asked: nobody waits for a reply
                log.warning("ignored a message that does not parse: %.200r (%s)", data, exc)
            return JsonRPCNotification(method=ANSWERED, params=None, jsonrpc=self.VERSION)

    def handle_message(self, message: Any) -> None:
        """Dispatch a message; one that is no JSON-RPC object is answered InvalidRequest (with a null id)."""
        if not hasattr(message, "jsonrpc"):
            log.warning("not a JSON-RPC message: %.200r", message)
            self._send_null_id_error(JsonRpcInvalidRequest("Invalid request: not a JSON-RPC message"))
            return
        if self._shutdown and not hasattr(message, "method"):
            # an answer to a request of ours (a registration, a prompt) after `shutdown`: nothing waits for it.
            # pygls would log a warning, and output after `shutdown` makes Eglot's jsonrpc stop waiting for
            # the process to end and kill it.
            return
        super().handle_message(message)

    def answer_unreadable(self, error: Exception) -> bool:
        """Answer a message that was not even JSON with ParseError; False if `error` is something else."""
        if not isinstance(error, json.JSONDecodeError | UnicodeDecodeError):
            return False
        log.warning("a message from the client is not JSON: %s", error)
        self._send_null_id_error(JsonRpcParseError(f"Parse error: {error}"))
        return True

    def _send_null_id_error(self, error: JsonRpcException) -> None:
        # JSON-RPC wants `"id": null` here, which pygls's serializer would leave out
        self._send_data({"jsonrpc": self.VERSION, "id": None, "error": {"code": error.code, "message": error.message}})

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> None:
        if method_name == types.INITIALIZE:
            self.initialize_seen = True
        elif not self.initialize_seen:
            error = JsonRpcServerNotInitialized(f"{method_name}: the server has not been initialized")
            self._send_response(msg_id, None, error.to_response_error())
            return
        super()._handle_request(msg_id, method_name, params)

    def _handle_notification(self, method_name: str, params: Any) -> None:
        if method_name == ANSWERED:
            return
        if not self.initialize_seen and method_name != types.EXIT:
            log.warning("dropped notification %r sent before initialize", method_name)
            return
        super()._handle_notification(method_name, params)
