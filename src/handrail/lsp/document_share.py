"""Asking the editor for a buffer it holds but has not shared (`handrail/shareDocument`).

LSP tells the server about the documents a client chose to sync, not about every buffer the editor
holds. Neovim attaches a language server to a buffer only when the buffer gets a filetype, and a
restarted server starts with no buffer attached, so a file can be open there, with unsaved changes,
while handrail sees only its disk. A client that declares `shareDocument` answers, for a file
handrail is about to read or write on disk, whether it holds the file in a buffer, and shares that
buffer (`textDocument/didOpen`) before it answers (messages arrive in order, so the document is open
here when the answer is).

The rule, for every client: handrail writes a file on disk only when no document open in the editor
holds it as far as handrail can tell. A plain client is taken at its word, as LSP asks (the
documents it holds are the ones it opened). A client that declared `shareDocument` is asked; when it
cannot answer, or says it holds the file but does not share it, handrail refuses the write rather
than write behind a buffer it cannot see.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from handrail.lsp.lsp_values import field_of
from handrail.tools.errors import ToolError
from handrail.wire.names import SHARE_DOCUMENT_METHOD

log = logging.getLogger(__name__)

SHARE_TIMEOUT = 10.0


class UnsharedBufferError(ToolError):
    """The editor may hold the file in a buffer handrail cannot see, so handrail did not write it."""


class DocumentShare:
    """Finds the open document for a path, asking a client that can say whether it holds one unshared."""

    def __init__(
        self,
        server: LanguageServer,
        open_document: Callable[[Path], TextDocument | None],
        can_share: Callable[[], bool],
        path_to_uri: Callable[[Path], str],
    ) -> None:
        self._server = server
        self._open_document = open_document
        self._can_share = can_share
        self._path_to_uri = path_to_uri

    async def document(self, path: Path, *, writing: bool) -> TextDocument | None:
        """The document that holds `path`, shared by the client on request; None when the editor holds none.

        Raises UnsharedBufferError when `writing` and the client cannot tell, or holds the file without sharing it.
        """
        document = self._open_document(path)
        if document is not None or not self._can_share():
            return document
        try:
            answer: Any = await asyncio.wait_for(
                self._server.protocol.send_request_async(SHARE_DOCUMENT_METHOD, {"uri": self._path_to_uri(path)}),
                SHARE_TIMEOUT,
            )
        except Exception as exc:  # an error answer, a timeout, a closed connection
            log.warning("%s failed for %s: %r", SHARE_DOCUMENT_METHOD, path, exc)
            if writing:
                raise UnsharedBufferError(
                    f"handrail could not ask the editor whether it has {path} open ({exc or type(exc).__name__}), "
                    "so it did not write the file: a buffer with unsaved changes could be behind it. Try again; "
                    "if it keeps failing, ask the user to save or close the file."
                ) from exc
            return None
        if field_of(answer, "open") is not True:
            return None
        document = self._open_document(path)  # the client's didOpen came before its answer, in order
        if document is not None:
            return document
        if writing:
            raise UnsharedBufferError(
                f"{path} is open in the editor, but the editor did not share its buffer with handrail, so handrail "
                "did not write the file (it could have unsaved changes). Ask the user to save or close it."
            )
        return None
