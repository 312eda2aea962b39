"""Applying the editor's document changes the LSP way, whatever sync kind the client picked.

The server asks for full-document sync, but pygls 2.1.1 then applies a ranged
change as if it were the whole text (a client that sends ranges anyway would
silently corrupt the store), and its incremental mode splits lines like
`str.splitlines`, moving edits past form feeds or U+2028. Here both kinds of
change are applied with LSP line breaks (`\\n`, `\\r\\n`, `\\r`) and the
negotiated position encoding; a change to a document that is not open is ignored.
"""

from __future__ import annotations

import logging
from urllib.parse import unquote

from lsprotocol import types
from pygls.workspace import Workspace

from handrail.server.documents import BlockDocument
from handrail.server.positions import offset_at

log = logging.getLogger(__name__)


def apply_content_change(text: str, change: types.TextDocumentContentChangeEvent, encoding: str = "utf-16") -> str:
    """The document after one change: a ranged replacement, or the whole new text."""
    if isinstance(change, types.TextDocumentContentChangePartial):
        start = offset_at(text, change.range.start, encoding)
        end = max(start, offset_at(text, change.range.end, encoding))
        return text[:start] + change.text + text[end:]
    return change.text


def apply_did_change(workspace: Workspace, params: types.DidChangeTextDocumentParams) -> bool:
    """Bring the stored document up to `params`; False (and nothing changed) if it is not open."""
    uri = params.text_document.uri
    document = workspace.text_documents.get(unquote(uri))
    if document is None:
        log.warning("ignored a change to %s, which is not open", uri)
        return False
    if isinstance(document, BlockDocument):  # applies each change where it falls (see server.documents)
        for change in params.content_changes:
            document.apply_change(change)
        document.version = params.text_document.version
        return True
    encoding = str(workspace.position_encoding or "utf-16")
    text = document.source
    for change in params.content_changes:
        text = apply_content_change(text, change, encoding)
    workspace.update_text_document(params.text_document, types.TextDocumentContentChangeWholeDocument(text=text))
    return True
