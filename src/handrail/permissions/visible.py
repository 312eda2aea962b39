"""Text shown in a prompt, made safe to read: what the user approves must be what they see.

A command or a settings value can carry characters that change how the rest of the
line looks: control characters (`\\r`, `\\x1b[...`), bidi overrides and isolates (U+202E
turns `; rm -rf ~` around), zero-width characters. `visible` writes each of them as an
escape (`\\u202e`), so nothing hides; `cut_middle` shortens a text for a one-line title
without losing its end, where `| sh` tends to be.
"""

from __future__ import annotations

import unicodedata

# control, format (bidi marks, zero-width, tags), line and paragraph separators, lone surrogates
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_NAMED = {"\t": "\\t", "\r": "\\r", "\n": "\\n"}


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every character that could hide or reorder what follows written as an escape.

    `keep_newlines` keeps line breaks (for a multi-line message); otherwise they are
    escaped too, so a one-line title shows everything.
    """
    if text.isascii() and text.isprintable():
        return text
    out: list[str] = []
    for char in text:
        if keep_newlines and char == "\n":
            out.append(char)
        elif unicodedata.category(char) in _HIDDEN_CATEGORIES:
            out.append(_escape(char))
        else:
            out.append(char)
    return "".join(out)


def cut_middle(text: str, limit: int) -> str:
    """`text` at most about `limit` characters long, its start and its end kept (the cut is marked)."""
    if len(text) <= limit:
        return text
    keep = max(limit - 40, 20)
    head = keep * 2 // 5
    tail = keep - head
    hidden = len(text) - head - tail
    return f"{text[:head]} …[{hidden} characters not shown]… {text[len(text) - tail:]}"
