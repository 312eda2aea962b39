"""kernel_realpath answers exactly what os.path.realpath answers, for every shape of path."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from handrail.permissions.paths import Roots, absolute_text, kernel_realpath, link_free


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "ws" / "src").mkdir(parents=True)
    (tmp_path / "ws" / "src" / "a.py").write_text("x")
    (tmp_path / "outside").mkdir()
    (tmp_path / "ws" / "out").symlink_to(tmp_path / "outside")
    (tmp_path / "ws" / "rel").symlink_to("src")
    (tmp_path / "ws" / "dangling").symlink_to(tmp_path / "nowhere" / "deeper")
    (tmp_path / "ws" / "loop1").symlink_to(tmp_path / "ws" / "loop2")
    (tmp_path / "ws" / "loop2").symlink_to(tmp_path / "ws" / "loop1")
    (tmp_path / "ws" / "file-link").symlink_to(tmp_path / "ws" / "src" / "a.py")
    os.mkfifo(tmp_path / "ws" / "fifo")
    return tmp_path


SHAPES = [
    "ws/src/a.py",
    "ws/src",
    "ws/src/",
    "ws/src/new.py",
    "ws/new/deeper/file.txt",
    "ws/new/../src/a.py",
    "ws/src/../out/x",
    "ws/out",
    "ws/out/new/file",
    "ws/out/../src",
    "ws/rel/a.py",
    "ws/rel/../out",
    "ws/dangling",
    "ws/dangling/child",
    "ws/loop1",
    "ws/loop1/x",
    "ws/file-link",
    "ws/src/a.py/not-a-folder",
    "ws/fifo",
    "ws/./src/./a.py",
    "ws//src//a.py",
    "ws/new/.",
    "ws/new/..",
    "ws/new//deeper/x",
    "ws/src/new/",
    "ws/.hidden/../src",
]


@pytest.mark.parametrize("shape", SHAPES)
def test_same_as_realpath(tree: Path, shape: str) -> None:
    text = f"{tree}/{shape}"
    assert kernel_realpath(text) == os.path.realpath(text)


def test_relative_and_root(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree / "ws")
    for text in ("src/a.py", "rel", "missing/x", "", ".", "/", "/proc/self"):
        assert kernel_realpath(text) == os.path.realpath(text), text


@pytest.mark.parametrize("shape", SHAPES)
def test_absolute_text_is_abspath(tree: Path, shape: str) -> None:
    text = f"{tree}/{shape}"
    assert absolute_text(text) == os.path.abspath(text)


@pytest.mark.parametrize(
    ("roots", "path", "inside"),
    [
        (("/tmp/ab",), "/tmp/ab", True),
        (("/tmp/ab",), "/tmp/ab/c", True),
        (("/tmp/ab",), "/tmp/abc", False),
        (("/tmp/ab",), "/tmp/a", False),
        (("/",), "/anything/at/all", True),
        (("/tmp/a.b",), "/tmp/aXb", False),  # a dot in a root is a dot, not a regex wildcard
        ((), "/tmp", False),
    ],
)
def test_roots_contain_by_path_components(roots: tuple[str, ...], path: str, inside: bool) -> None:
    found = Roots(roots, roots)
    assert found.contain(path) is inside
    assert found.contain_both(path, path) is inside


@pytest.mark.parametrize(
    ("shape", "free"),
    [
        ("ws/src/a.py", True),
        ("ws/src", True),
        ("ws/src/new.py", True),  # missing: every component before it was walked without a link
        ("ws/new/deeper/file.txt", True),
        ("ws/.hidden", True),
        ("ws/out", False),  # a link to a folder
        ("ws/out/new/file", False),  # a link on the way to a missing file
        ("ws/rel/a.py", False),
        ("ws/dangling", False),  # a dangling link: a write would land where it points
        ("ws/dangling/child", False),
        ("ws/loop1", False),
        ("ws/file-link", False),
        ("ws/src/a.py/not-a-folder", True),  # below a file: nothing after it exists
        ("ws/fifo", True),
        ("ws/src/a.py/../a.py", False),
        ("ws/src/", False),  # not normal: left to the full resolution
        ("ws/./src", False),
        ("ws/new/../src/a.py", False),
        ("ws//src", False),
    ],
)
def test_link_free_only_without_links(tree: Path, shape: str, free: bool) -> None:
    text = f"{tree}/{shape}"
    assert link_free(text) is free
    if free:
        assert os.path.realpath(text) == text


def test_link_free_refuses_proc_magic_links_and_odd_text() -> None:
    assert not link_free("/proc/self/environ")  # /proc/self is a link
    assert not link_free(f"/proc/{os.getpid()}/root/etc")  # a magic link
    assert not link_free(f"/proc/{os.getpid()}/cwd")
    assert not link_free("relative/path")
    assert not link_free("//double/leading")
    assert not link_free("/tmp/with\0nul")  # libc would stop at the NUL and check another path
    assert kernel_realpath("/proc/self/environ") == os.path.realpath("/proc/self/environ")


def test_a_folder_swapped_for_a_link_between_two_resolutions(tree: Path) -> None:
    """Nothing is remembered between resolutions: a folder replaced by a link is seen at once."""
    sub = tree / "ws" / "sub"
    sub.mkdir()
    text = f"{sub}/key.txt"
    assert kernel_realpath(text) == text
    sub.rmdir()
    sub.symlink_to(tree / "outside")
    assert kernel_realpath(text) == f"{tree}/outside/key.txt"
    sub.unlink()
    sub.mkdir()
    assert kernel_realpath(text) == text


def test_link_free_takes_only_what_normpath_keeps(tree: Path) -> None:
    """The quick text check before the kernel is asked: exactly the absolute paths `os.path.normpath` leaves alone."""
    base = str(tree / "ws" / "src")
    names = ["", ".", "..", "a.py", ".a", "..a", "a.", "...", "new"]
    for parts in itertools.product(names, repeat=3):
        for tail in ("", "/"):
            text = base + "/" + "/".join(parts) + tail
            if link_free(text):
                assert os.path.normpath(text) == text
                assert os.path.realpath(text) == text
            else:  # no link below ws/src: only what normpath would change is left to the full resolution
                assert os.path.normpath(text) != text, text
