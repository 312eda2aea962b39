"""File rules: each anchor form, `**`, gitignore-style folders, and symlinks."""

from __future__ import annotations

from pathlib import Path

import pytest

from handrail.permissions.rules import PermissionRule, parse_rule, rule_matches_call


def _rule(text: str, root: Path | None = None) -> PermissionRule:
    rule = parse_rule(text, source="project", root=root)
    assert isinstance(rule, PermissionRule)
    return rule


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.mark.parametrize(
    ("rule", "path", "expected"),
    [
        # relative to the cwd: `x`, `./x`
        ("Read(./src/**)", "cwd/src/a/b.py", True),
        ("Read(./src/**)", "cwd/lib/src/b.py", False),
        ("Read(src/**)", "cwd/src/b.py", True),
        ("Read(src/*.py)", "cwd/src/b.py", True),
        ("Read(src/*.py)", "cwd/src/sub/b.py", False),
        ("Read(src/**/*.py)", "cwd/src/b.py", True),
        ("Read(src/**/*.py)", "cwd/src/x/y/b.py", True),
        ("Read(src/?.py)", "cwd/src/b.py", True),
        ("Read(src/?.py)", "cwd/src/bb.py", False),
        # no slash: any depth below the cwd
        ("Read(*.env)", "cwd/.env", True),  # gitignore: `*` may be empty, dots are not special
        ("Read(*.env)", "cwd/deep/prod.env", True),
        ("Read(.env)", "cwd/deep/.env", True),
        ("Read(.env)", "elsewhere/.env", False),
        # a pattern naming a folder covers what is inside
        ("Read(./secrets)", "cwd/secrets/key.pem", True),
        ("Read(./build/)", "cwd/build/out.js", True),
        ("Read(./build/)", "cwd/build", False),
        # relative to the rule's root: `/x`
        ("Edit(/docs/**)", "root/docs/a.md", True),
        ("Edit(/docs/**)", "cwd/docs/a.md", False),
        # `**` alone and everything-under forms
        ("Edit(./**)", "cwd/a/b/c", True),
        ("Edit(./**)", "root/a", False),
    ],
)
def test_relative_anchors(tmp_path: Path, rule: str, path: str, expected: bool) -> None:
    cwd, root = tmp_path / "cwd", tmp_path / "root"
    parsed = _rule(rule, root=root)
    tool = parsed.tool
    assert rule_matches_call(parsed, tool, None, (tmp_path / path,), cwd) is expected


def test_absolute_anchor(tmp_path: Path) -> None:
    rule = _rule(f"Edit(/{tmp_path}/scratch/**)")
    assert str(rule).startswith("Edit(//")
    assert rule_matches_call(rule, "Edit", None, (tmp_path / "scratch" / "a.txt",), Path("/"))
    assert not rule_matches_call(rule, "Edit", None, (tmp_path / "other" / "a.txt",), Path("/"))


def test_home_anchor(home: Path, tmp_path: Path) -> None:
    rule = _rule("Read(~/.ssh/**)")
    assert rule_matches_call(rule, "Read", None, (home / ".ssh" / "id_rsa",), tmp_path)
    assert not rule_matches_call(rule, "Read", None, (tmp_path / ".ssh" / "id_rsa",), tmp_path)
    assert rule_matches_call(_rule("Edit(~/.zshrc)"), "Write", None, (home / ".zshrc",), tmp_path)


def test_root_falls_back_to_cwd(tmp_path: Path) -> None:
    assert rule_matches_call(_rule("Edit(/docs/**)"), "Edit", None, (tmp_path / "docs" / "a",), tmp_path)


def test_relative_call_paths_and_content(tmp_path: Path) -> None:
    rule = _rule("Read(./src/**)")
    assert rule_matches_call(rule, "Read", None, (Path("src/a.py"),), tmp_path)
    assert rule_matches_call(rule, "Read", str(tmp_path / "src" / "a.py"), (), tmp_path)
    assert not rule_matches_call(rule, "Read", None, (), tmp_path)


def test_dotdot_is_folded(tmp_path: Path) -> None:
    rule = _rule("Edit(./src/**)")
    assert not rule_matches_call(rule, "Edit", None, (tmp_path / "src" / ".." / "etc" / "x",), tmp_path)
    deny = _rule("Read(./secret/**)")
    path = tmp_path / "src" / ".." / "secret" / "k"
    assert rule_matches_call(deny, "Read", None, (path,), tmp_path, behavior="deny")


def test_every_path_must_be_allowed(tmp_path: Path) -> None:
    rule = _rule("Read(./src/**)")
    paths = (tmp_path / "src" / "a", tmp_path / "lib" / "b")
    assert not rule_matches_call(rule, "Grep", None, paths, tmp_path)
    assert rule_matches_call(_rule("Read(./lib/**)"), "Grep", None, paths, tmp_path, behavior="deny")


def test_symlink_escape(tmp_path: Path) -> None:
    """A link inside an allowed folder pointing out of it is not allowed; a deny on its target applies."""
    ws, secret = tmp_path / "ws", tmp_path / "secret"
    ws.mkdir()
    secret.mkdir()
    (ws / "escape").symlink_to(secret)
    through_link = ws / "escape" / "key"
    assert not rule_matches_call(_rule("Read(./**)"), "Read", None, (through_link,), ws)
    assert rule_matches_call(_rule(f"Read(/{secret}/**)"), "Read", None, (through_link,), ws, behavior="deny")
    # a deny on the link path applies too, even though the target is elsewhere
    assert rule_matches_call(_rule("Read(./escape/**)"), "Read", None, (through_link,), ws, behavior="deny")


def test_symlinked_cwd_matches_both_forms(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    cwd = tmp_path / "link"
    assert rule_matches_call(_rule("Edit(./src/**)"), "Edit", None, (cwd / "src" / "a",), cwd)
