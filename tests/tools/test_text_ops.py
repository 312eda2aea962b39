"""The pure string operations behind the file tools."""

from __future__ import annotations

import pytest

from handrail.tools.text_ops import (
    AmbiguousEditError,
    EditError,
    StringNotFoundError,
    apply_edit,
    cap_middle,
    detect_line_ending,
    line_changes,
    numbered,
    overlaps,
    snippet,
    split_lines,
    unified_diff,
    with_line_ending,
)


def test_line_endings() -> None:
    assert detect_line_ending("a\r\nb\r\n") == "\r\n"
    assert detect_line_ending("a\nb\n") == "\n"
    assert detect_line_ending("one line") == "\n"
    assert with_line_ending("a\nb\r\n", "\r\n") == "a\r\nb\r\n"
    assert with_line_ending("a\r\nb", "\n") == "a\nb"


def test_split_lines() -> None:
    assert split_lines("") == []
    assert split_lines("a\nb\n") == ["a", "b"]
    assert split_lines("a\r\nb") == ["a", "b"]
    assert split_lines("\n") == [""]


def test_apply_edit_unique_and_all() -> None:
    edit = apply_edit("a\nfoo\nb\n", "foo", "bar")
    assert edit.text == "a\nbar\nb\n"
    assert (edit.first_line, edit.last_line, edit.count) == (2, 2, 1)
    both = apply_edit("x = 1\ny = x\n", "x", "z", replace_all=True)
    assert both.text == "z = 1\ny = z\n"
    assert (both.first_line, both.last_line, both.count) == (1, 2, 2)


def test_apply_edit_errors() -> None:
    with pytest.raises(StringNotFoundError):
        apply_edit("abc", "zzz", "y")
    with pytest.raises(AmbiguousEditError) as info:
        apply_edit("foo\nbar\nfoo\n", "foo", "x")
    assert info.value.lines == (1, 3)
    with pytest.raises(EditError, match="exactly the same"):
        apply_edit("foo", "foo", "foo")
    with pytest.raises(EditError):
        apply_edit("content", "", "x")
    assert apply_edit("  \n", "", "new\n").text == "new\n"


def test_apply_edit_curly_quote_fallback() -> None:
    text = "print(\u201chello\u201d)\n"
    edit = apply_edit(text, 'print("hello")', 'print("bye")')
    assert edit.quotes_fallback
    assert edit.text == "print(\u201cbye\u201d)\n"


def test_line_changes_and_overlap() -> None:
    (change,) = line_changes("a\nb\nc\nd\n", "a\nB\nc\nd\n")
    assert change.describe() == "line 2"
    assert overlaps(change, 1, 1)
    assert not overlaps(change, 2, 3)
    (deletion,) = line_changes("a\nb\nc\n", "a\nc\n")
    assert deletion.new_start == deletion.new_end == 1
    assert overlaps(deletion, 0, 1)
    assert not overlaps(deletion, 1, 1)


def test_numbered_and_snippet() -> None:
    assert numbered(["x", "y"], 9) == "     9\tx\n    10\ty"
    assert numbered(["z" * 2001], 1).endswith("[line truncated: 2001 characters in total]")
    text = "".join(f"line {n}\n" for n in range(1, 21))
    view = snippet(text, 10, 10, context=2)
    assert view.splitlines()[0] == "     8\tline 8"
    assert view.splitlines()[-1] == "    12\tline 12"


def test_unified_diff() -> None:
    diff = unified_diff("a\r\nb\r\n", "a\r\nc", old_label="a/f", new_label="b/f")
    assert diff.startswith("--- a/f\n+++ b/f\n")
    assert "-b\n" in diff
    assert "+c\n\\ No newline at end of file\n" in diff
    assert "\r" not in diff


def test_cap_middle() -> None:
    assert cap_middle("short", 10) == "short"
    capped = cap_middle("a" * 50 + "b" * 50, 20)
    assert capped.startswith("a" * 10) and capped.endswith("b" * 10)
    assert "[80 characters omitted]" in capped
