"""HandrailProtocol: pygls 2.1.1's protocol with three fixes the agent needs, and its own document store.

All three touch private pygls API, which is why pyproject pins pygls==2.1.1:
re-run tests/e2e/test_turns.py (cancel, late answer, shutdown) when upgrading.

1. `$/cancelRequest` for a `workspace/executeCommand` answers the client but lets the
   command's coroutine run on; we cancel the command's task for real.
2. A late answer to a server→client request whose future was cancelled makes
   pygls pop up "Error in server: CANCELLED"; we drop such answers.
3. `shutdown` with requests in flight raises "dictionary changed size during
   iteration" (pygls#606); we iterate over a snapshot. (The server's own shutdown
   handler stops every turn first, so this guards requests sent outside turns.)

Documents are kept by `server.documents` (`adopt_block_documents`), not by pygls's TextDocument.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Generator
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, lsp_method

from handrail.server.documents import block_workspace

log = logging.getLogger(__name__)


class HandrailProtocol(LanguageServerProtocol):
    """The LSP protocol with real command cancellation and a safe shutdown."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.running_commands: dict[Any, asyncio.Task[Any]] = {}

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

    def _handle_response(self, msg_id: Any, result: Any | None = None, error: Any | None = None) -> None:
        future = self._request_futures.get(msg_id)
        if future is not None and future.cancelled():
            self._request_futures.pop(msg_id, None)
            log.debug("dropped a late answer to cancelled request %s", msg_id)
            return
        super()._handle_response(msg_id, result, error)

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
