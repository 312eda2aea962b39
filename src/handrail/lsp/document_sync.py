"""Applying the editor's document changes the LSP way, whatever sync kind the client picked.

The server's documents are `BlockDocument`s (see server.documents): a ranged change is
applied where it falls, with LSP line breaks (`\\n`, `\\r\\n`, `\\r`, not form feeds or
U+2028) and the negotiated position encoding, and any other change replaces the whole
text. pygls 2.1.1 would instead apply a ranged change under full sync as the whole text.
A change to a document that is not open is ignored.
"""

from __future__ import annotations

import logging
from urllib.parse import unquote

from lsprotocol import types
from pygls.workspace import Workspace

log = logging.getLogger(__name__)


def apply_did_change(workspace: Workspace, params: types.DidChangeTextDocumentParams) -> bool:
    """Bring the stored document up to `params`; False (and nothing changed) if it is not open."""
    uri = params.text_document.uri
    document = workspace.text_documents.get(unquote(uri))
    if document is None:
        log.warning("ignored a change to %s, which is not open", uri)
        return False
    for change in params.content_changes:  # a BlockDocument applies each change where it falls
        document.apply_change(change)
    document.version = params.text_document.version
    return True
