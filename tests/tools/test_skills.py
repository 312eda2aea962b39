"""Skill discovery: user and project folders, strict front matter, referenced files kept inside the folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from handrail.tools.definition_files import DefinitionFileError
from handrail.tools.skills import load_skill_catalog, parse_skill, skill_content


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _skill(name: str, description: str = "does things", extra: str = "", body: str = "Do it.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}\n"


def test_user_and_project_skills_load_and_the_project_wins_a_name(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    user = tmp_path / "config" / "handrail" / "skills"
    root = tmp_path / "ws"
    _write(user, "lint", _skill("lint", "user lint"))
    _write(user, "notes", _skill("notes"))
    project = _skill("lint", "project lint", "allowed-tools: [Bash(ruff:*), Read]\n")
    _write(root / ".handrail" / "skills", "lint", project)
    catalog = load_skill_catalog([root], env)
    assert catalog.descriptions() == {"lint": "project lint", "notes": "does things"}
    lint = catalog.get("/lint")
    assert lint is not None and lint.source == "project" and lint.allowed_tools == ("Bash(ruff:*)", "Read")
    assert catalog.problems == ()


def test_untrusted_roots_are_simply_not_passed(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _write(root / ".handrail" / "skills", "x", _skill("x"))
    assert load_skill_catalog([], {"XDG_CONFIG_HOME": str(tmp_path / "none")}).skills == {}


def test_a_broken_skill_is_reported_and_the_others_still_load(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    skills = root / ".handrail" / "skills"
    _write(skills, "good", _skill("good"))
    bad = _write(skills, "bad", "---\nname: bad\ndescription: {nested: map}\n---\nbody\n")
    _write(skills, "empty", _skill("empty", body=""))
    catalog = load_skill_catalog([root], {"XDG_CONFIG_HOME": str(tmp_path / "none")})
    assert list(catalog.skills) == ["good"]
    messages = {p.path.parent.name: p.message for p in catalog.problems}
    assert "line 3" in messages["bad"] and str(bad) in str(catalog.problems[0])
    assert "no instructions" in messages["empty"]


def test_parse_rejects_missing_fields_and_bad_names(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    with pytest.raises(DefinitionFileError, match="description"):
        parse_skill(b"---\nname: a\n---\nbody\n", source="user", path=path)
    with pytest.raises(DefinitionFileError, match="may hold only"):
        parse_skill(_skill("no spaces allowed").encode(), source="user", path=path)
    skill = parse_skill(_skill("ok").encode(), source="user", path=path)
    assert skill.allowed_tools == () and len(skill.digest) == 64


def test_content_includes_referenced_files_inside_the_folder_only(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("TOP SECRET")
    body = (
        "See [guide](guide.md), `scripts/run.sh`, [outside](../secret.txt), [abs](/etc/passwd), "
        "[web](https://example.com/x.md), `big.txt` and `blob.bin`."
    )
    path = _write(tmp_path, "s", _skill("s", body=body))
    (path.parent / "guide.md").write_text("GUIDE TEXT")
    (path.parent / "scripts").mkdir()
    (path.parent / "scripts" / "run.sh").write_text("echo run")
    (path.parent / "big.txt").write_text("x" * 40_000)
    (path.parent / "blob.bin").write_bytes(b"\xff\xfe\x00")
    skill = parse_skill(path.read_bytes(), source="project", path=path)
    text = skill_content(skill)
    assert text.startswith("See [guide]")
    assert '<file path="guide.md">\nGUIDE TEXT\n</file>' in text and "echo run" in text
    assert "TOP SECRET" not in text and "root:" not in text
    assert '<file path="big.txt">[not included: 40000 bytes is over the limit]</file>' in text
    assert "blob.bin\">" not in text


def test_a_symlink_out_of_the_folder_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("TOP SECRET")
    path = _write(tmp_path, "s", _skill("s", body="Read `link.md`."))
    (path.parent / "link.md").symlink_to(tmp_path / "secret.txt")
    skill = parse_skill(path.read_bytes(), source="project", path=path)
    assert "TOP SECRET" not in skill_content(skill)
