"""The front-matter parser and agent files: what is accepted, and that malformed files are reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from handrail.tools.agent_definitions import (
    AgentFileError,
    load_agent_catalog,
    parse_agent_file,
    project_agents_dir,
    user_agents_dir,
)
from handrail.tools.builtin_agents import BUILTIN_AGENTS
from handrail.tools.front_matter import FrontMatterError, split_front_matter


def test_scalars_quotes_lists_and_block_scalars() -> None:
    text = """---
# a comment
name: reviewer
description: "Reviews code.\\nSays \\"why\\"."
quoted: 'it''s fine'
plain: value # trailing comment
flow: [Read, "Grep", 'Glob']
block:
  - Bash
  - Edit

literal: |
  line one
  line two
folded: >
  one
  two
empty:
---
The body.

Second paragraph.
"""
    document = split_front_matter(text)
    assert document.fields == {
        "name": "reviewer",
        "description": 'Reviews code.\nSays "why".',
        "quoted": "it's fine",
        "plain": "value",
        "flow": ["Read", "Grep", "Glob"],
        "block": ["Bash", "Edit"],
        "literal": "line one\nline two",
        "folded": "one two",
        "empty": "",
    }
    assert document.body == "The body.\n\nSecond paragraph."


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("name: x\n", 1, "must start with a '---'"),
        ("---\nname: x\n", 2, "not closed"),
        ("---\nname: x\nname: y\n---\n", 3, "appears twice"),
        ("---\nname x\n---\n", 2, "expected 'key: value'"),
        ("---\n  name: x\n---\n", 2, "unexpected indentation"),
        ("---\ntools: [Read, Grep\n---\n", 2, "must close with ']'"),
        ("---\ntools: [Read, [Grep]]\n---\n", 2, "nested"),
        ("---\ntools: [Read, , Grep]\n---\n", 2, "empty item"),
        ('---\nname: "open\n---\n', 2, "unterminated"),
        ('---\nname: "a" b\n---\n', 2, "after the closing quote"),
        ('---\nname: "bad \\q"\n---\n', 2, "unsupported escape"),
        ("---\nname: 'it's'\n---\n", 2, "stray quote"),
        ("---\nmeta: {a: 1}\n---\n", 2, "maps"),
        ("---\ntools:\n  Read\n---\n", 3, "list item"),
        ("---\nname: x\n  more: y\n---\n", 3, "unexpected indented lines"),
    ],
)
def test_malformed_front_matter_names_the_line(text: str, line: int, words: str) -> None:
    with pytest.raises(FrontMatterError) as caught:
        split_front_matter(text)
    assert caught.value.line == line
    assert words in str(caught.value)


def test_agent_file_fields() -> None:
    agent = parse_agent_file(
        "---\nname: fixer\ndescription: Fixes things\ntools: Read, Edit, Read\nmodel: inherit\ncolor: red\n---\n"
        "You fix things.\n",
        source="project",
    )
    assert (agent.name, agent.description, agent.prompt) == ("fixer", "Fixes things", "You fix things.")
    assert agent.tools == ("Read", "Edit") and agent.model is None and agent.source == "project"
    every = parse_agent_file("---\nname: all\ndescription: d\ntools: '*'\nmodel: haiku\n---\nbody", source="user")
    assert every.tools is None and every.model == "haiku"
    listed = parse_agent_file("---\nname: l\ndescription: d\ntools:\n  - Grep\n---\nbody", source="user")
    assert listed.tools == ("Grep",)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("---\ndescription: d\n---\nbody", "needs a non-empty 'name'"),
        ("---\nname: n\n---\nbody", "needs a non-empty 'description'"),
        ("---\nname: has space\ndescription: d\n---\nbody", "may hold only"),
        ("---\nname: n\ndescription: [a, b]\n---\nbody", "single value"),
        ("---\nname: n\ndescription: d\n---\n\n", "no system prompt"),
        ("---\nname: n\ndescription: d\ntools: Read,,Grep\n---\nbody", "empty entry"),
        ("no front matter", "line 1"),
    ],
)
def test_bad_agent_files_are_errors(text: str, words: str) -> None:
    with pytest.raises(AgentFileError, match=words):
        parse_agent_file(text, source="user")


def test_catalog_layers_project_over_user_over_builtin_and_reports_bad_files(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    user, project = user_agents_dir(env), project_agents_dir(root)
    user.mkdir(parents=True)
    project.mkdir(parents=True)
    (user / "helper.md").write_text("---\nname: helper\ndescription: user helper\n---\nuser prompt")
    (user / "Explore.md").write_text("---\nname: Explore\ndescription: my explorer\n---\nmine")
    (project / "helper.md").write_text("---\nname: helper\ndescription: project helper\n---\nproject prompt")
    (project / "bad.md").write_text("---\nname: bad\n")
    (project / "notes.txt").write_text("not an agent")
    catalog = load_agent_catalog(BUILTIN_AGENTS, [root], env)

    assert list(catalog.agents) == ["general-purpose", "Explore", "helper"]
    assert catalog.agents["helper"].prompt == "project prompt"
    assert catalog.agents["Explore"].description == "my explorer" and not catalog.agents["Explore"].read_only
    assert catalog.get("HELPER") is catalog.agents["helper"] and catalog.get("nobody") is None
    (problem,) = catalog.problems
    assert problem.path == project / "bad.md" and "not closed" in problem.message


def test_missing_folders_are_no_problem(tmp_path: Path) -> None:
    catalog = load_agent_catalog(BUILTIN_AGENTS, [tmp_path / "nowhere"], {"XDG_CONFIG_HOME": str(tmp_path / "c")})
    assert list(catalog.agents) == ["general-purpose", "Explore"] and catalog.problems == ()
