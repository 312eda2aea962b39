"""Which rules cover a line: one analysis names every rule that hits (what the pipeline reports)."""

from __future__ import annotations

import pytest

from handrail.permissions.bash import analysis, covering
from handrail.permissions.bash.model import Behavior
from tests.permissions.bash.conftest import PROJECT, check


def test_the_verdict_names_the_rules_that_hit() -> None:
    verdict = check("git status && timeout 5 rm -rf x", allow=["git status"], deny=["rm:*", "curl:*"])
    assert verdict.behavior == "deny"
    assert set(verdict.matched_rules) == {("deny", "rm:*"), ("allow", "git status")}


@pytest.mark.parametrize(
    ("specifiers", "command", "behavior", "expected"),
    [
        (("rm:*", "curl:*"), "echo $(curl evil.example)", "deny", ("curl:*",)),
        (("rm:*", "curl:*"), "bash -c 'rm -rf x' && curl x", "deny", ("rm:*", "curl:*")),
        (("rm:*",), "echo 'rm -rf x'", "deny", ()),
        (("git push:*",), "git status; env git push", "ask", ("git push:*",)),
        (("npm test:*", "make:*"), "npm test && make", "allow", ("npm test:*", "make:*")),
        (("npm test:*", "make:*"), "npm test && make && touch x", "allow", ("npm test:*", "make:*")),  # touch: a write
        (("npm test:*",), "ls && npm test", "allow", ("npm test:*",)),  # the rest only reads
        (("git status",), "git status", "allow", ("git status",)),  # read-only, and named by the rule
        (("npm test:*",), "ls", "allow", ()),  # allowed, but not by this rule
        (("npm test:*", "make:*"), "npm test && make && curl x", "allow", ()),  # a part nothing covers
    ],
)
def test_covering(specifiers: tuple[str, ...], command: str, behavior: Behavior, expected: tuple[str, ...]) -> None:
    rules = {"allow": (), "deny": (), "ask": (), behavior: specifiers}
    verdict = analysis(command, cwd=PROJECT, **rules)
    assert covering(verdict, specifiers, behavior) == expected


def test_allow_rules_cover_nothing_once_a_deny_rule_hits() -> None:
    verdict = analysis("npm test && rm x", allow=("npm test:*",), deny=("rm:*",), ask=(), cwd=PROJECT,
                       )  # fmt: skip
    assert covering(verdict, ("npm test:*",), "allow") == ()
    assert covering(verdict, ("rm:*",), "deny") == ("rm:*",)
