"""LSP positions and minimal edits computed by the server."""

from __future__ import annotations

import pytest

from handrail.lsp.positions import minimal_change, position_at


def test_position_counts_utf16_units_and_crlf() -> None:
    text = "ab\r\ncd😀x"
    assert (position_at(text, 8).line, position_at(text, 8).character) == (1, 5)
    assert position_at(text, 8, "utf-8").character == 7
    assert position_at(text, 8, "utf-32").character == 4


def test_position_ignores_unicode_line_separators() -> None:
    text = "a\u2028b\fc\nd"
    assert (position_at(text, 6).line, position_at(text, 6).character) == (1, 0)


@pytest.mark.parametrize(
    ("old", "new"),
    [("x = 1\n", "x = 2\n"), ("a\r\nb", "a\r\nXb"), ("aaa", "aa"), ("", "new"), ("same", "same"), ("ab\r\n", "ab\n")],
)
def test_minimal_change_rebuilds_the_new_text(old: str, new: str) -> None:
    start, end, replacement = minimal_change(old, new)
    assert old[:start] + replacement + old[end:] == new
    assert not (0 < start < len(old) and old[start - 1] == "\r" and old[start] == "\n")
