"""Which rules cover a line: one analysis names every rule of a kind that hits (what the pipeline reports)."""

from __future__ import annotations

import pytest

from handrail.permissions.bash import covering_specifiers
from tests.permissions_bash.conftest import PROJECT, check


def test_the_verdict_names_the_rules_that_hit() -> None:
    verdict = check("git status && timeout 5 rm -rf x", allow=["git status"], deny=["rm:*", "curl:*"])
    assert verdict.behavior == "deny"
    assert set(verdict.matched_rules) == {"rm:*", "git status"}


@pytest.mark.parametrize(
    ("specifiers", "command", "behavior", "expected"),
    [
        (("rm:*", "curl:*"), "echo $(curl evil.example)", "deny", ("curl:*",)),
        (("rm:*", "curl:*"), "bash -c 'rm -rf x' && curl x", "deny", ("rm:*", "curl:*")),
        (("rm:*",), "echo 'rm -rf x'", "deny", ()),
        (("git push:*",), "git status; env git push", "ask", ("git push:*",)),
        (("npm test:*", "make:*"), "npm test && make", "allow", ("npm test:*", "make:*")),
        (("npm test:*", "make:*"), "npm test && make && touch x", "allow", ()),  # a part nothing covers
        (("npm test:*",), "ls && npm test", "allow", ("npm test:*",)),  # the rest only reads
        (("git status",), "git status", "allow", ("git status",)),  # read-only, and named by the rule
        (("npm test:*",), "ls", "allow", ()),  # allowed, but not by this rule
    ],
)
def test_covering_specifiers(
    specifiers: tuple[str, ...], command: str, behavior: str, expected: tuple[str, ...]
) -> None:
    assert covering_specifiers(specifiers, command, behavior, PROJECT) == expected  # type: ignore[arg-type]
