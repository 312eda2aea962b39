"""Code actions "Ask handrail: …" for editors whose only UI for a server's features is the code-action menu.

An editor cannot type a prompt into `window/showMessageRequest`, so each action carries a ready prompt
built from the selection (the file, the lines, the selected text) and runs `handrail.startAsk`, which
answers at once; the turn reports itself through `$/progress`, `window/showMessage` and `handrail/chat`.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from handrail.lsp.documents import BlockDocument
from handrail.wire.names import START_ASK_COMMAND

SELECTION_CHARS = 20_000  # more is cut: the model can Read the file
ASKS = (
    ("Ask handrail: explain this", "Explain what this code does and anything surprising in it. Change nothing."),
    ("Ask handrail: fix and improve this", "Find and fix problems in this code; keep the changes small."),
)


def selected_text(document: TextDocument, selection: types.Range) -> str:
    """The text of `selection` in `document` (the whole line at the cursor when the selection is empty)."""
    lines = document.lines
    if not lines:
        return ""
    start, end = selection.start, selection.end
    if (start.line, start.character) == (end.line, end.character):
        return lines[min(start.line, len(lines) - 1)]
    first = _index(document, start)
    last = _index(document, end)
    return document.source[first:last]


def _index(document: TextDocument, position: types.Position) -> int:
    """The offset in the document's text of a position counted in the client's units (clamped)."""
    lines = document.lines
    line = min(max(position.line, 0), len(lines))
    offset = sum(len(text) for text in lines[:line])
    if line == len(lines):
        return offset
    column = document.column(line, position.character) if isinstance(document, BlockDocument) else None
    if column is None:
        column = min(position.character, len(lines[line].rstrip("\r\n")))
    return offset + column


def ask_prompt(instruction: str, path: str, selection: types.Range, text: str) -> str:
    """The prompt of an "Ask handrail" action: the instruction, where the code is, and the code."""
    shown = text if len(text) <= SELECTION_CHARS else text[:SELECTION_CHARS] + "\n… (cut; read the file for the rest)"
    first, last = selection.start.line + 1, max(selection.end.line + 1, selection.start.line + 1)
    where = f"{path} line {first}" if first == last else f"{path} lines {first}-{last}"
    return f"{instruction}\n\nThe code is in {where}:\n\n```\n{shown}\n```"


def ask_actions(document: TextDocument, selection: types.Range) -> list[types.CodeAction]:
    """The "Ask handrail" actions for a selection in `document`."""
    text = selected_text(document, selection)
    if not text.strip():
        return []
    path = to_fs_path(document.uri) or document.uri
    name = Path(path).name if path else document.uri
    actions = []
    for title, instruction in ASKS:
        prompt = ask_prompt(instruction, path, selection, text)
        actions.append(
            types.CodeAction(
                title=f"{title} ({name})",
                command=types.Command(title=title, command=START_ASK_COMMAND, arguments=[{"prompt": prompt}]),
            )
        )
    return actions
