"""Writing a file the way an editor saves it: through symbolic links, keeping hard links shared."""

from __future__ import annotations

import os
from pathlib import Path

from handrail.fileio import atomic_write, link_count, write_through


def test_a_symbolic_link_stays_a_link_and_its_target_changes(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to("real.txt")
    write_through(link, b"new\n")
    assert link.is_symlink() and os.readlink(link) == "real.txt"
    assert real.read_text() == "new\n" and real.stat().st_mode & 0o777 == 0o640


def test_a_chain_of_links_and_a_link_with_no_file_yet(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    first = tmp_path / "first"
    first.symlink_to(tmp_path / "second")
    (tmp_path / "second").symlink_to("sub/made.txt")
    write_through(first, b"made\n")
    assert (tmp_path / "sub" / "made.txt").read_text() == "made\n"
    assert first.is_symlink() and (tmp_path / "second").is_symlink()


def test_hard_links_stay_one_file(tmp_path: Path) -> None:
    one = tmp_path / "one.txt"
    one.write_text("a long old text\n")
    two = tmp_path / "two.txt"
    os.link(one, two)
    assert link_count(one) == 2
    write_through(two, b"short\n")
    assert one.read_text() == two.read_text() == "short\n"
    assert one.stat().st_ino == two.stat().st_ino and link_count(one) == 2


def test_handrails_own_files_replace_a_planted_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    settings = tmp_path / "settings.local.json"
    settings.symlink_to(victim)
    atomic_write(settings, b"{}\n")
    assert not settings.is_symlink() and settings.read_text() == "{}\n"
    assert victim.read_text() == "keep me\n"


def test_link_count_of_what_is_not_a_file(tmp_path: Path) -> None:
    assert link_count(tmp_path / "missing") == 0 and link_count(tmp_path) == 0
