"""BlockDocument: incremental changes give exactly the text LSP says they give, whatever the blocks."""

from __future__ import annotations

import random
import re

import pytest
from lsprotocol import types
from pygls.workspace import PositionCodec

from handrail.lsp import documents
from handrail.lsp.documents import BlockDocument, BlockWorkspace

ALPHABET = ["a", "b", "xyz", "\n", "\r", "\r\n", "\f", "\u2028", "é", "😀", " "]
ENCODINGS = [types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf32]


def _units(char: str, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf8:
        return len(char.encode("utf-8"))
    if encoding == types.PositionEncodingKind.Utf16:
        return len(char.encode("utf-16-le")) // 2
    return 1


def _offset(text: str, position: types.Position, encoding: str) -> int:
    """The reference: lines end only at \\n, \\r\\n and \\r; past the end clamps to the end."""
    lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)", text)
    lines.append(text[sum(map(len, lines)) :])
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[: position.line])
    content = lines[position.line].rstrip("\r\n")
    units = 0
    for index, char in enumerate(content):
        units += _units(char, encoding)
        if units > position.character:  # inside a character: before it
            return start + index
    return start + len(content)


def _random_text(rng: random.Random, size: int) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(size))


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("block", [4, 16, 1 << 14])
def test_random_edits_match_the_reference(monkeypatch: pytest.MonkeyPatch, encoding: str, block: int) -> None:
    monkeypatch.setattr(documents, "BLOCK_CHARS", block)
    rng = random.Random(f"{encoding}{block}")
    for _ in range(30):
        text = _random_text(rng, rng.randint(0, 60))
        doc = BlockDocument("file:///t.txt", text, position_codec=_codec(encoding))
        for _ in range(25):
            lines = len(re.findall(r"\r\n|\r|\n", text)) + 1
            start = types.Position(rng.randint(0, lines + 1), rng.randint(0, 8))
            end = types.Position(rng.randint(start.line, lines + 1), rng.randint(0, 8))
            new = _random_text(rng, rng.randint(0, 6))
            a = _offset(text, start, encoding)
            b = max(a, _offset(text, end, encoding))
            text = text[:a] + new + text[b:]
            doc.apply_change(types.TextDocumentContentChangePartial(range=types.Range(start, end), text=new))
            assert doc.source == text


def _codec(encoding: str) -> PositionCodec:
    return PositionCodec(types.PositionEncodingKind(encoding))


def test_form_feed_and_line_separator_are_not_line_breaks() -> None:
    text = "a\fb\u2028c\nsecond\n"
    doc = BlockDocument("file:///t.txt", text)
    doc.apply_change(types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(1, 0), types.Position(1, 6)), text="2nd"))
    assert doc.source == "a\fb\u2028c\n2nd\n"


def test_full_changes_and_the_workspace() -> None:
    workspace = BlockWorkspace(None, types.TextDocumentSyncKind.Incremental)
    workspace.put_text_document(types.TextDocumentItem("file:///w.txt", "plaintext", 1, "one\ntwo\n"))
    identifier = types.VersionedTextDocumentIdentifier(uri="file:///w.txt", version=2)
    workspace.update_text_document(identifier, types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(1, 0), types.Position(1, 3)), text="2"))
    assert workspace.get_text_document("file:///w.txt").source == "one\n2\n"
    workspace.update_text_document(identifier, types.TextDocumentContentChangeWholeDocument(text="all new"))
    document = workspace.get_text_document("file:///w.txt")
    assert isinstance(document, BlockDocument) and document.source == "all new"


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("block", [4, 1 << 14])
def test_column_turns_the_clients_count_into_an_index(
    monkeypatch: pytest.MonkeyPatch, encoding: str, block: int
) -> None:
    monkeypatch.setattr(documents, "BLOCK_CHARS", block)
    text = "first\r\nhé 😀 x\nlast"
    doc = BlockDocument("file:///t.txt", text, position_codec=_codec(encoding))
    line = "hé 😀 x"
    for index in range(len(line) + 1):
        character = sum(_units(char, encoding) for char in line[:index])
        assert doc.column(1, character) == index
    assert doc.column(2, 99) == len("last") and doc.column(7, 0) is None
    assert BlockDocument("file:///closed.txt").column(0, 3) is None  # not opened with text
