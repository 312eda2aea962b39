"""Random open/change/close sequences through the server's protocol against a reference model of the documents.

Messages are framed as JSON and handed to the real server's protocol object in
process (the same path bytes from stdin take, without a process per example).
Changes mix whole-text and ranged edits with CRLF, lone CR, emoji, form feeds
and U+2028, which LSP does not treat as line breaks.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from lsprotocol.types import PositionEncodingKind
from pygls.workspace import PositionCodec

from handrail.lsp.app import HandrailServer, create_server
from handrail.lsp.documents import BlockDocument
from handrail.lsp.positions import position_at

ALPHABET = st.sampled_from(["a", "b", " ", "é", "😀", "\n", "\r\n", "\r", "\t", "\f", "\u2028", "\x85", "\x1c"])
TEXTS = st.lists(ALPHABET, max_size=30).map("".join)
URIS = ["file:///ws/a.txt", "file:///ws/b%20c.py", "untitled:Untitled-1"]


class _Sink:
    """Where the server's output goes: kept so a test can look for replies."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def close(self) -> None:
        return None


def _send(server: HandrailServer, message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message})
    server.protocol.handle_message(json.loads(body, object_hook=server.protocol.structure_message))


def _new_server(encoding: str) -> HandrailServer:
    server = create_server()
    server.protocol.set_writer(_Sink())
    capabilities = {"general": {"positionEncodings": [encoding]}}
    _send(server, {"id": 1, "method": "initialize",
                   "params": {"processId": None, "rootUri": "file:///ws", "capabilities": capabilities}})
    return server


def _cut_points(text: str) -> list[int]:
    """Offsets a position can name: not between the halves of a CRLF."""
    return [i for i in range(len(text) + 1) if not (0 < i < len(text) and text[i - 1] == "\r" and text[i] == "\n")]


@st.composite
def _operations(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    ops: list[tuple[Any, ...]] = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["open", "full", "edit", "edit", "edit", "close", "past-end"]))
        uri = draw(st.sampled_from(URIS))
        if kind == "open":
            ops.append(("open", uri, draw(TEXTS)))
        elif kind == "full":
            ops.append(("full", uri, draw(TEXTS)))
        elif kind == "close":
            ops.append(("close", uri))
        else:
            ops.append((kind, uri, draw(st.integers(0, 10_000)), draw(st.integers(0, 10_000)), draw(TEXTS)))
    return ops


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_the_document_store_follows_a_reference_model(encoding: str) -> None:
    server = _new_server(encoding)

    @given(ops=_operations())
    def check(ops: list[tuple[Any, ...]]) -> None:
        for uri in URIS:  # each example starts with nothing open
            _send(server, {"method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})
        model: dict[str, tuple[str, int]] = {}
        for op in ops:
            kind, uri = op[0], op[1]
            version = model[uri][1] + 1 if uri in model else 1
            if kind == "open":
                _send(server, {"method": "textDocument/didOpen", "params": {"textDocument": {
                    "uri": uri, "languageId": "plaintext", "version": 1, "text": op[2]}}})
                model[uri] = (op[2], 1)
                continue
            if kind == "close":
                _send(server, {"method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})
                model.pop(uri, None)
                continue
            text = model[uri][0] if uri in model else ""
            if kind == "full":
                change: dict[str, Any] = {"text": op[2]}
                new_text = op[2]
            else:
                points = _cut_points(text)
                start, end = sorted((points[op[2] % len(points)], points[op[3] % len(points)]))
                begin, finish = position_at(text, start, encoding), position_at(text, end, encoding)
                if kind == "past-end":  # a client may name a column past the line's end: it means the end
                    finish = types.Position(line=finish.line + 50, character=7)
                    end = len(text)
                change = {"range": {"start": {"line": begin.line, "character": begin.character},
                                    "end": {"line": finish.line, "character": finish.character}}, "text": op[4]}
                new_text = text[:start] + op[4] + text[end:]
            _send(server, {"method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
            if uri in model:  # a change to a closed document is ignored
                model[uri] = (new_text, version)
        stored = {uri: (doc.source, doc.version) for uri, doc in server.workspace.text_documents.items()}
        assert stored == {uri.replace("%20", " "): value for uri, value in model.items()}
        assert b"window/showMessage" not in server.protocol.writer.data  # type: ignore[attr-defined]

    check()


def test_positions_and_the_document_store_round_trip() -> None:
    @given(text=TEXTS, encoding=st.sampled_from(["utf-16", "utf-8", "utf-32"]))
    def check(text: str, encoding: str) -> None:
        codec = PositionCodec(PositionEncodingKind(encoding))
        for offset in _cut_points(text):  # an insertion at the position lands at the offset it was made from
            document = BlockDocument("file:///t.txt", text, position_codec=codec)
            at = position_at(text, offset, encoding)
            document.apply_change(types.TextDocumentContentChangePartial(range=types.Range(at, at), text="|"))
            assert document.source == text[:offset] + "|" + text[offset:]

    check()


def test_a_ranged_change_on_the_last_line_and_beyond() -> None:
    document = BlockDocument("file:///t.txt", "ab\ncd\u2028ef")
    past_the_end = types.Range(start=types.Position(line=1, character=1), end=types.Position(line=9, character=0))
    document.apply_change(types.TextDocumentContentChangePartial(range=past_the_end, text="X"))
    assert document.source == "ab\ncX"
    document.apply_change(types.TextDocumentContentChangeWholeDocument(text="new"))
    assert document.source == "new"
