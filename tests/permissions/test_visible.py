"""What prompts show is escaped the same way everywhere (the clients mirror these cases)."""

from __future__ import annotations

from handrail.permissions.visible import cut_middle, visible


def test_hidden_characters_become_escapes() -> None:
    assert visible("a\tb\x00c\u2028d\U000e0041") == "a\\tb\\x00c\\u2028d\\U000e0041"
    assert visible('echo "notes\u202e ~ fr- mr ;"\x1b[2K\u200b') == 'echo "notes\\u202e ~ fr- mr ;"\\x1b[2K\\u200b'
    assert visible("one\ntwo") == "one\\ntwo" and visible("one\ntwo", keep_newlines=True) == "one\ntwo"
    assert visible("plain ascii and ünïcode") == "plain ascii and ünïcode"


def test_cutting_keeps_both_ends() -> None:
    assert cut_middle("short", 10) == "short"
    cut = cut_middle("x" * 100 + "END", 60)
    assert cut.startswith("xxxxxxxx") and cut.endswith("END") and "[83 characters not shown]" in cut
