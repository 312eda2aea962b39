"""Open documents kept in blocks of whole lines, so an incremental `didChange` costs one block, not the document.

pygls's own TextDocument rebuilds the whole text for every incremental change (about 50 ms
per keystroke in a 10 MB file) and splits lines like `str.splitlines`, which also breaks at
form feeds and U+2028 and so corrupts such documents. Here lines end only where LSP says
they do (`\\n`, `\\r\\n`, `\\r`), a change rewrites the block it falls in, and the full text
is joined only when someone reads it.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from handrail.lsp.positions import LINE_BREAK, column_in_line

BLOCK_CHARS = 1 << 14


def _breaks(text: str) -> int:
    """How many LSP line breaks `text` holds."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def _split(text: str) -> list[str]:
    """`text` cut into blocks of about BLOCK_CHARS that end at a line break (the last one may not)."""
    blocks: list[str] = []
    start = 0
    while len(text) - start > BLOCK_CHARS:
        found = LINE_BREAK.search(text, start + BLOCK_CHARS)
        if found is None:
            break
        end = found.end()
        if end < len(text) and text[end - 1] == "\r" and text[end] == "\n":
            end += 1  # never part a \r\n
        blocks.append(text[start:end])
        start = end
    if start < len(text) or not blocks:
        blocks.append(text[start:])
    return blocks


class BlockText:
    """Text held as blocks of whole lines; `replace` rewrites only the blocks an edit touches."""

    def __init__(self, text: str) -> None:
        self._blocks = _split(text)
        self._counts = [_breaks(block) for block in self._blocks]
        self._starts: list[list[int] | None] = [None] * len(self._blocks)
        self._joined: str | None = text

    @property
    def text(self) -> str:
        """The whole text (joined once per change, when first read)."""
        if self._joined is None:
            self._joined = "".join(self._blocks)
        return self._joined

    def _line_starts(self, index: int) -> list[int]:
        starts = self._starts[index]
        if starts is None:
            starts = self._starts[index] = [0, *(m.end() for m in LINE_BREAK.finditer(self._blocks[index]))]
        return starts

    def line(self, number: int) -> tuple[int, int, str] | None:
        """(block, where the line starts in it, the line without its break) for line `number`; None past the end."""
        first = 0
        last = len(self._blocks) - 1
        for index, count in enumerate(self._counts):
            if number < first + count or index == last:
                starts = self._line_starts(index)
                line = number - first
                if line >= len(starts):
                    return None
                block = self._blocks[index]
                end = starts[line + 1] if line + 1 < len(starts) else len(block)
                content = block[starts[line] : end].rstrip("\r\n") if end > starts[line] else ""
                return index, starts[line], content
            first += count
        return None

    def locate(self, position: types.Position, encoding: str) -> tuple[int, int]:
        """(block, index in the block) of an LSP position; positions past the end are clamped to it."""
        found = self.line(position.line)
        if found is None:
            last = len(self._blocks) - 1
            return last, len(self._blocks[last])
        index, start, content = found
        return index, start + column_in_line(content, position.character, encoding)

    def replace(self, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        """Replace the text between two located positions with `text` (an end before the start is the start)."""
        (first, a), (last, b) = start, max(start, end)
        pieces = _split(self._blocks[first][:a] + text + self._blocks[last][b:])
        self._blocks[first : last + 1] = pieces
        self._starts[first : last + 1] = [None] * len(pieces)
        self._counts[first : last + 1] = [_breaks(p) for p in pieces]
        self._mend(first, first + len(pieces) - 1)
        self._joined = None

    def _mend(self, first: int, last: int) -> None:
        """Restore the invariants around rewritten blocks `first..last`: every block but the last
        ends at a line break, no \\r\\n is parted, no block is empty (unless it is the only one)."""
        low, high = max(0, first - 1), min(len(self._blocks) - 1, last + 1)
        index = low
        while index < high:
            block, after = self._blocks[index], self._blocks[index + 1]
            if not block or not block.endswith(("\n", "\r")) or (block.endswith("\r") and after.startswith("\n")):
                self._blocks[index : index + 2] = [block + after]
                self._starts[index : index + 2] = [None]
                self._counts[index : index + 2] = [_breaks(block + after)]
                high -= 1
                continue
            index += 1
        if len(self._blocks) > 1 and not self._blocks[-1]:
            del self._blocks[-1], self._starts[-1], self._counts[-1]


class BlockDocument(TextDocument):
    """pygls's TextDocument, stored as `BlockText` and changed by offset (see the module docstring)."""

    def __init__(self, uri: str, source: str | None = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(uri, source, *args, **kwargs)
        self._text = None if source is None else BlockText(source)

    @property
    def source(self) -> str:
        """The document's text."""
        if self._text is None:
            return str(super().source)  # not opened with text: pygls reads the file
        return self._text.text

    def apply_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        """Apply a ranged change by its range and any other as the whole new text, whatever the sync kind."""
        if isinstance(change, types.TextDocumentContentChangePartial):
            self._apply_incremental_change(change)
        else:
            self._apply_full_change(change)

    def _apply_full_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        self._text = BlockText(change.text)

    def column(self, line: int, character: int) -> int | None:
        """A position's `character` (counted in the negotiated encoding) as an index into its line.

        None when the document was not opened with text or has no such line.
        """
        found = None if self._text is None else self._text.line(line)
        if found is None:
            return None
        return column_in_line(found[2], character, self.position_codec.encoding or types.PositionEncodingKind.Utf16)

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        if self._text is None:
            self._text = BlockText(self.source)
        encoding: str = self.position_codec.encoding or types.PositionEncodingKind.Utf16
        start = self._text.locate(change.range.start, encoding)
        end = self._text.locate(change.range.end, encoding)
        self._text.replace(start, end, change.text)


def block_workspace(workspace: Workspace) -> BlockWorkspace:
    """A `BlockWorkspace` like `workspace` (root, folders, sync kind, position encoding), before documents open."""
    return BlockWorkspace(
        workspace.root_uri,
        workspace._sync_kind,  # pygls keeps it private; pinned (see pyproject)
        list(workspace.folders.values()),
        workspace.position_encoding,
    )


class BlockWorkspace(Workspace):
    """A pygls Workspace whose text documents are `BlockDocument`s."""

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return BlockDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )
