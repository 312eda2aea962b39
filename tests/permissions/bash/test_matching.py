"""Bash rule specifiers: exact, prefix (`:*` and trailing ` *`), wildcards, and refused wrapper prefixes."""

from __future__ import annotations

import pytest

from handrail.permissions.bash.matching import compile_rule, head_reaches_inside, matches


@pytest.mark.parametrize(
    ("spec", "command", "expected"),
    [
        ("npm test", "npm test", True),
        ("npm test", "npm test --watch", False),
        ("npm test:*", "npm test", True),
        ("npm test:*", "npm test --watch", True),
        ("npm test:*", "npm testing", False),
        ("npm test *", "npm test", True),
        ("npm test *", "npm test -x", True),
        ("npm test *", "npm tests", False),
        ("git * --dry-run", "git push --dry-run", True),
        ("git * --dry-run", "git push --dry-run --force", False),
        ("git * main", "git push origin main", True),
        ("ls*", "lsof", True),
        ("Bash(npm test:*)", "npm test x", True),
        ("Bash", "anything at all", True),
        ("*", "anything", True),
        ("echo \\*", "echo *", True),
        ("echo \\*", "echo hi", False),
        ("  npm test:*  ", "npm test", True),
    ],
)
def test_matches(spec: str, command: str, expected: bool) -> None:
    assert matches(compile_rule(spec), command) is expected


@pytest.mark.parametrize(
    ("spec", "kind"),
    [("npm test", "exact"), ("npm test:*", "prefix"), ("npm test *", "prefix"), ("git * x", "wildcard"), ("*", "all")],
)
def test_kinds(spec: str, kind: str) -> None:
    assert compile_rule(spec).kind == kind


@pytest.mark.parametrize(
    "spec",
    [
        "bash:*",
        "sh *",
        "zsh:*",
        "bash -c:*",
        "env:*",
        "env *",
        "env FOO=1:*",
        "xargs:*",
        "xargs -0 *",
        "sudo:*",
        "sudo -u root:*",
        "doas:*",
        "nohup:*",
        "timeout:*",
        "timeout 10:*",
        "nice -n 5 *",
        "time:*",
        "command:*",
        "builtin:*",
        "exec:*",
        "eval:*",
        "source:*",
        "env*",
        "ba*",
        "s* -c x",
    ],
)
def test_prefix_rules_for_bare_shells_and_wrappers_are_refused(spec: str) -> None:
    rule = compile_rule(spec)
    assert rule.bare_runner
    assert not head_reaches_inside(rule)


@pytest.mark.parametrize(
    "spec",
    ["bash", "env", "timeout 10 npm test:*", "nohup npm start:*", "git:*", "bash script.sh:*", "* --version", "npm*"],
)
def test_other_rules_are_not_refused(spec: str) -> None:
    assert not compile_rule(spec).bare_runner


def test_compiled_rules_are_cached() -> None:
    assert compile_rule("npm test:*") is compile_rule("npm test:*")
