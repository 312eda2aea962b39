"""The rule grammar: what parses, what is reported, and how Bash, WebFetch and MCP rules match."""

from __future__ import annotations

from pathlib import Path

import pytest

from handrail.permissions.rules import (
    PermissionRule,
    RuleError,
    parse_rule,
    rule_covers_tool,
    rule_matches_call,
)


@pytest.mark.parametrize(
    ("text", "tool", "spec"),
    [
        ("Bash", "Bash", None),
        ("Bash(*)", "Bash", None),
        ("Read(*)", "Read", "*"),
        ("Bash(npm test:*)", "Bash", "npm test:*"),
        ("Bash(npm test *)", "Bash", "npm test *"),
        ("Bash(git * --dry-run)", "Bash", "git * --dry-run"),
        ("Bash(echo (hi))", "Bash", "echo (hi)"),
        ("  Read(//etc/passwd)  ", "Read", "//etc/passwd"),
        ("Edit(~/notes/**)", "Edit", "~/notes/**"),
        ("Edit(/src/**/*.ts)", "Edit", "/src/**/*.ts"),
        ("Write(./build/?.txt)", "Write", "./build/?.txt"),
        ("Read(*.env)", "Read", "*.env"),
        ("WebFetch(domain:example.com)", "WebFetch", "domain:example.com"),
        ("WebFetch(domain:*.example.com)", "WebFetch", "domain:*.example.com"),
        ("mcp__github", "mcp__github", None),
        ("mcp__github__*", "mcp__github__*", None),
        ("mcp__github__create_issue", "mcp__github__create_issue", None),
    ],
)
def test_parse(text: str, tool: str, spec: str | None) -> None:
    assert parse_rule(text, source="user") == PermissionRule(tool, spec, "user")


def test_parse_keeps_source_and_root(tmp_path: Path) -> None:
    rule = parse_rule("Edit(/src/**)", source="project", root=tmp_path)
    assert isinstance(rule, PermissionRule)
    assert (rule.source, rule.root, str(rule)) == ("project", tmp_path, "Edit(/src/**)")


@pytest.mark.parametrize(
    ("text", "message", "position"),
    [
        ("", "empty rule", 0),
        ("Bash(", "missing ')'", 5),
        ("Bash()", "empty specifier", 5),
        ("Bash(ls) -la", "unexpected text after ')'", 8),
        ("9lives", "expected Tool", 0),
        ("(x)", "expected Tool", 0),
        ("Bash(npm:* test)", "':*' is only allowed at the end", 8),
        ("Bash(  npm:* test)", "':*' is only allowed at the end", 10),
        ("Bash(:*)", "needs a prefix", 5),
        ("Read(~bob/x)", "only '~/'", 5),
        ("WebFetch(example.com)", "WebFetch(domain:", 9),
        ("WebFetch(domain:)", "is not a domain", 16),
        ("WebFetch(domain:exa mple.com)", "is not a domain", 16),
        ("mcp__github(create)", "MCP rules take no specifier", 12),
        ("Bash__*", "only valid in MCP rules", 0),
    ],
)
def test_malformed_rules_are_reported_not_raised(text: str, message: str, position: int) -> None:
    error = parse_rule(text, source="project")
    assert isinstance(error, RuleError)
    assert message in error.message
    assert error.position == position and error.source == "project" and error.text == text


@pytest.mark.parametrize(
    ("spec", "command", "expected"),
    [
        ("npm test:*", "npm test", True),
        ("npm test:*", "npm test --watch", True),
        ("npm test:*", "npm testing", False),
        ("npm test *", "npm test", True),
        ("npm test *", "npm test unit", True),
        ("npm test *", "npm tester", False),
        ("git * --dry-run", "git clean -fd --dry-run", True),
        ("git * --dry-run", "git clean -fd", False),
        ("git status", "git status", True),
        ("git status", "git status -s", False),
        ("git status", "git status; rm -rf ~", False),
        # a wildcard allow never covers a compound command, a substitution or a redirection
        ("npm test:*", "npm test && rm -rf /", False),
        ("npm test:*", "npm test\nrm -rf /", False),
        ("echo:*", "echo $(rm -rf /)", False),
        ("echo:*", "echo hi > ~/.bashrc", True),  # the rule covers the command; the file is decided as Edit
        ("echo:*", "echo 'a && b'", True),
        # a redirection is a file the pipeline decides (as Edit): the rule covers the command either way
        ("npm test:*", "npm test 2>&1", True),
        ("npm test:*", "npm test >/dev/null 2>&1", True),
        ("npm test:*", "npm test > /etc/out.txt", True),
        ("npm test:*", "npm test > $OUT", False),  # a redirection to a file no one can check
    ],
)
def test_bash_allow_matching(spec: str, command: str, expected: bool) -> None:
    assert rule_matches_call(PermissionRule("Bash", spec), "Bash", command) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("ls && rm -rf x", True),
        ("ls; rm -rf x", True),
        ("ls | rm -rf x", True),
        ("echo $(rm -rf x)", True),
        ("echo `rm -rf x`", True),
        ("(rm -rf x)", True),
        ("rmdir x", False),
        ("FOO=1 BAR='a b' rm -rf x", True),
        ("npm test && DEBUG=1 rm x", True),
        ("echo 'rm -rf x'", False),
    ],
)
def test_bash_deny_matches_any_part(command: str, expected: bool) -> None:
    rule = PermissionRule("Bash", "rm:*")
    assert rule_matches_call(rule, "Bash", command, behavior="deny") is expected


@pytest.mark.parametrize(
    ("spec", "command", "expected"),
    [
        ("npm test:*", "npm test && npm test --watch", True),  # every part covered by the rule
        ("npm test:*", "npm test && ls -la", True),  # the rest only reads
        ("npm test:*", "ls -la", False),  # allowed, but not by this rule
        ("npm test:*", "npm test | rm -rf x", False),
        ("npm test:*", "/usr/bin/npm test", True),  # path-qualified, as the analyser sees it
        ("npm test:*", "DEBUG_HOOK=1 npm test", False),  # an assignment outside the safe list
        ("npm test:*", "LANG=C npm test", True),
    ],
)
def test_bash_allow_is_judged_by_the_analyser(spec: str, command: str, expected: bool) -> None:
    rule = PermissionRule("Bash", spec)
    assert rule_matches_call(rule, "Bash", command, cwd=Path("/work/proj")) is expected



@pytest.mark.parametrize(
    ("spec", "url", "expected"),
    [
        ("domain:example.com", "https://example.com/docs", True),
        ("domain:example.com", "https://EXAMPLE.com:8443/", True),
        ("domain:example.com", "https://docs.example.com/", False),
        ("domain:example.com", "https://example.com.evil.io/", False),
        ("domain:example.com", "https://user@evil.io/?example.com", False),
        ("domain:*.example.com", "https://docs.example.com/", True),
        ("domain:*.example.com", "https://a.b.example.com/", True),
        ("domain:*.example.com", "https://example.com/", False),
        ("domain:*.example.com", "https://badexample.com/", False),
        ("domain:example.com", "example.com", True),
    ],
)
def test_webfetch_domains(spec: str, url: str, expected: bool) -> None:
    assert rule_matches_call(PermissionRule("WebFetch", spec), "WebFetch", url) is expected


@pytest.mark.parametrize(
    ("rule", "tool", "expected"),
    [
        ("mcp__github", "mcp__github__create_issue", True),
        ("mcp__github__*", "mcp__github__create_issue", True),
        ("mcp__github__create_issue", "mcp__github__create_issue", True),
        ("mcp__github__create_issue", "mcp__github__delete_repo", False),
        ("mcp__github", "mcp__githubx__create_issue", False),
        ("mcp__github__*", "mcp__gitlab__create_issue", False),
        ("Edit", "Write", True),
        ("Edit", "MultiEdit", True),
        ("Edit", "NotebookEdit", True),
        ("Edit", "Read", False),
        ("Read", "Grep", True),
        ("Write", "Edit", False),
    ],
)
def test_tool_coverage(rule: str, tool: str, expected: bool) -> None:
    parsed = parse_rule(rule)
    assert isinstance(parsed, PermissionRule)
    assert rule_covers_tool(parsed.tool, tool) is expected
    assert rule_matches_call(parsed, tool, None) is expected


def test_other_tools_match_exact_content() -> None:
    rule = PermissionRule("Task", "explore")
    assert rule_matches_call(rule, "Task", "explore")
    assert not rule_matches_call(rule, "Task", "explorer")
    assert not rule_matches_call(rule, "Task", None)
