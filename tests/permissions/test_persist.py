"""Saving "always allow" rules into settings files without disturbing the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handrail.permissions.persist import add_rules


def test_creates_the_file_and_folder(tmp_path: Path) -> None:
    path = tmp_path / ".handrail" / "settings.local.json"
    assert add_rules(path, "allow", ["Bash(npm test:*)"]) == ("Bash(npm test:*)",)
    assert json.loads(path.read_text()) == {"permissions": {"allow": ["Bash(npm test:*)"]}}


def test_keeps_other_content_order_and_indentation(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    original = (
        '{\n    "model": "x",\n    "permissions": {\n        "deny": ["Read(./.env)"],\n'
        '        "allow": []\n    },\n    "hooks": {}\n}\n'
    )
    path.write_text(original)
    add_rules(path, "allow", ["Edit(./src/**)"])
    text = path.read_text()
    assert list(json.loads(text)) == ["model", "permissions", "hooks"]
    assert json.loads(text)["permissions"] == {"deny": ["Read(./.env)"], "allow": ["Edit(./src/**)"]}
    assert text.startswith('{\n    "model"') and text.endswith("}\n")


def test_no_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    add_rules(path, "allow", ["Bash(ls)"])
    assert add_rules(path, "allow", ["Bash(ls)", "Bash(pwd)", "Bash(pwd)"]) == ("Bash(pwd)",)
    assert json.loads(path.read_text())["permissions"]["allow"] == ["Bash(ls)", "Bash(pwd)"]


@pytest.mark.parametrize("content", ["[1, 2]", '{"permissions": []}', '{"permissions": {"allow": "Bash"}}'])
def test_refuses_to_rewrite_files_of_another_shape(tmp_path: Path, content: str) -> None:
    path = tmp_path / "s.json"
    path.write_text(content)
    with pytest.raises(ValueError):
        add_rules(path, "allow", ["Bash(ls)"])
    assert path.read_text() == content
