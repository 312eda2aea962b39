"""Permission rules as written in settings, following Claude Code's grammar.

Forms:

* `Tool` covers every call of the tool (`Tool(*)` means the same, except for file tools).
* `Bash(npm test:*)` / `Bash(npm test *)`: a prefix at a word boundary; `*` elsewhere
  matches any text (`Bash(git * --dry-run)`); anything else is an exact command.
* `Read(...)`, `Edit(...)`, `Write(...)` (and the other file tools): gitignore-style path
  patterns. `//abs/path` is absolute, `~/x` is under the home directory, `/x` is under the
  rule's `root` (the folder its settings file governs), `./x` and `x` are under the cwd.
  `**` matches any number of folders, `*` and `?` stay inside one path segment; a pattern
  without a slash (`*.env`) matches at any depth. A pattern that matches a folder covers
  everything inside it. `Edit` rules also cover Write, MultiEdit and NotebookEdit; `Read`
  rules also cover the tools that read files (Grep, Glob, NotebookRead, LS).
* `WebFetch(domain:example.com)`; `domain:*.example.com` covers the subdomains.
* MCP: `mcp__server` and `mcp__server__*` cover all tools of a server, `mcp__server__tool` one tool.

Parsing never raises; a malformed rule comes back as a `RuleError`. File rules are
matched against absolute paths, both as written (made absolute, `..` folded) and fully
resolved (`paths.resolve`): an allow rule must cover both, a deny or ask rule either.
Bash rules are matched by the command analyser (`permissions.bash`), never as plain text:
a deny or ask rule applies when it hits any part of the line (also inside `$()`, `bash -c`
and wrappers); an allow rule only when every part is covered and nothing is flagged.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from handrail.permissions.file_rules import FileRules, MatchBehavior, call_candidates
from handrail.permissions.hosts import HostError, canonical_domain_pattern, canonical_host

_RULE = re.compile(r"^(?P<tool>[A-Za-z_][A-Za-z0-9_\-]*(?:__\*)?)(?:\((?P<spec>.*)\))?$", re.DOTALL)

EDIT_TOOLS: frozenset[str] = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
READ_TOOLS: frozenset[str] = frozenset({"Read", "Grep", "Glob", "NotebookRead", "LS"})
FILE_TOOLS: frozenset[str] = EDIT_TOOLS | READ_TOOLS
_RULE_FAMILIES: dict[str, frozenset[str]] = {"Edit": EDIT_TOOLS, "Read": READ_TOOLS}
MCP_PREFIX = "mcp__"


@dataclass(frozen=True)
class PermissionRule:
    """One parsed rule; `specifier` is None for a rule that covers the whole tool.

    `root` is the folder a `/x` path pattern is relative to (the place the rule's settings
    file governs); without it such patterns are taken relative to the cwd.
    """

    tool: str
    specifier: str | None = None
    source: str = "session"
    root: Path | None = None

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"


@dataclass(frozen=True)
class RuleError:
    """A rule that could not be parsed, with the reason and (when meaningful) the 0-based offset in `text`."""

    text: str
    message: str
    source: str = "session"
    position: int | None = None


# ---------------------------------------------------------------------------- parsing


def parse_rule(text: str, source: str = "session", *, root: Path | None = None) -> PermissionRule | RuleError:
    """Parse one rule string; malformed input gives a `RuleError`, never an exception."""
    stripped = text.strip()
    offset = len(text) - len(text.lstrip())
    if not stripped:
        return RuleError(text, "empty rule", source, 0)
    if "(" in stripped and not stripped.endswith(")"):
        close = stripped.rfind(")")
        if close == -1:
            return RuleError(text, "missing ')' at the end of the rule", source, offset + len(stripped))
        return RuleError(text, "unexpected text after ')'", source, offset + close + 1)
    match = _RULE.match(stripped)
    if match is None:
        return RuleError(text, "expected Tool or Tool(specifier)", source, offset)
    tool = match.group("tool")
    spec = match.group("spec")
    if tool.endswith("__*") and not tool.startswith(MCP_PREFIX):
        return RuleError(text, "a '__*' wildcard is only valid in MCP rules (mcp__server__*)", source, offset)
    if spec is None:
        return PermissionRule(tool, None, source, root)
    spec_offset = offset + len(tool) + 1
    if not spec.strip():
        return RuleError(
            text, "empty specifier: write the tool name alone to cover the whole tool", source, spec_offset
        )
    spec_offset += len(spec) - len(spec.lstrip())
    spec = spec.strip()
    if spec == "*" and tool not in FILE_TOOLS:  # for file tools `*` is a path pattern (any file below the cwd)
        return PermissionRule(tool, None, source, root)
    if tool.startswith(MCP_PREFIX):
        return RuleError(
            text, "MCP rules take no specifier: write mcp__server or mcp__server__tool", source, spec_offset
        )
    problem = _check_specifier(tool, spec)
    if problem is not None:
        message, where = problem
        return RuleError(text, message, source, None if where is None else spec_offset + where)
    return PermissionRule(tool, spec, source, root)


def _check_specifier(tool: str, spec: str) -> tuple[str, int | None] | None:
    if tool == "Bash":
        where = spec.find(":*")
        if where != -1 and where != len(spec) - 2:
            return "':*' is only allowed at the end of a Bash rule", where
        if spec in (":*", "*:*"):
            return "a prefix rule needs a prefix: write Bash alone to cover every command", 0
        return None
    if tool in FILE_TOOLS:
        if "\0" in spec:
            return "a path pattern cannot contain a NUL character", spec.index("\0")
        if spec.startswith("~") and spec != "~" and not spec.startswith("~/"):
            return "only '~/' is supported for the home directory (not '~user')", 0
        return None
    if tool == "WebFetch":
        if not spec.startswith("domain:"):
            return "a WebFetch rule looks like WebFetch(domain:example.com)", 0
        domain = spec[len("domain:") :].strip()
        try:
            canonical_host(domain[2:] if domain.startswith("*.") else domain)
        except HostError:
            return f"'{domain}' is not a domain (write example.com or *.example.com)", len("domain:")
    return None


# ---------------------------------------------------------------------------- matching


def rule_covers_tool(rule_tool: str, tool_name: str) -> bool:
    """Whether a rule written for `rule_tool` applies to calls of `tool_name` at all."""
    if rule_tool == tool_name:
        return True
    if rule_tool.startswith(MCP_PREFIX):
        server = rule_tool.removesuffix("__*")
        # `mcp__server` and `mcp__server__*` cover every tool of the server
        return (rule_tool.endswith("__*") or server.count("__") == 1) and tool_name.startswith(server + "__")
    return tool_name in _RULE_FAMILIES.get(rule_tool, frozenset())


def file_targets(paths: Sequence[Path], content: str | None) -> tuple[Path, ...]:
    """The files a file tool's call touches: its `paths`, else its rule content taken as a path."""
    return tuple(paths) or ((Path(content),) if content else ())


def rule_matches_call(
    rule: PermissionRule,
    tool_name: str,
    content: str | None,
    paths: Sequence[Path] = (),
    cwd: Path | None = None,
    *,
    behavior: MatchBehavior = "allow",
    aliases: Sequence[str] = (),
) -> bool:
    """Whether `rule` covers one call.

    `paths` are the files the call touches (relative ones are taken from `cwd`, default the
    process cwd); without paths, a file tool's `content` is taken as its path. `behavior`
    says what the match is for: an allow rule must cover everything the call does (every
    path, both unresolved and resolved; every part of a shell command); a deny or ask rule
    applies when it covers any part of it. A rule written with one of the tool's `aliases`
    covers it too.
    """
    if not any(rule_covers_tool(rule.tool, name) for name in (tool_name, *aliases)):
        return False
    if rule.specifier is None:
        return True
    if rule.tool == "Bash" and tool_name == "Bash":
        single = {"allow": (), "deny": (), "ask": (), behavior: (rule,)}
        return bool(
            bash_rules_covering(
                content, cwd, behavior=behavior, allow=single["allow"], deny=single["deny"], ask=single["ask"]
            )
        )
    if rule.tool in FILE_TOOLS and tool_name in FILE_TOOLS:
        targets = file_targets(paths, content)
        return bool(targets) and _path_rule_matches(rule, targets, cwd, behavior)
    if rule.tool == "WebFetch":
        return content is not None and _domain_matches(rule.specifier, content)
    return content == rule.specifier


# ---------------------------------------------------------------------------- Bash


def bash_specifiers(rules: Sequence[PermissionRule]) -> tuple[str, ...]:
    """The specifiers of the Bash rules among `rules` (tool-wide ones left out), in order, once each."""
    return tuple(dict.fromkeys(r.specifier for r in rules if r.tool == "Bash" and r.specifier is not None))


def bash_rules_covering(
    command: str | None,
    cwd: Path | None = None,
    *,
    behavior: MatchBehavior,
    allow: Sequence[PermissionRule] = (),
    deny: Sequence[PermissionRule] = (),
    ask: Sequence[PermissionRule] = (),
) -> tuple[PermissionRule, ...]:
    """The Bash rules of `behavior` that cover `command` run in `cwd` (default: the process cwd), judged by one
    analysis under all the given rules."""
    from handrail.permissions.bash import analysis, covering  # tree-sitter loads on the first Bash decision

    if not command:
        return ()
    here = cwd if cwd is not None else Path(os.getcwd())
    specifiers = {"allow": bash_specifiers(allow), "deny": bash_specifiers(deny), "ask": bash_specifiers(ask)}
    if not specifiers[behavior]:
        return ()
    verdict = analysis(
        command,
        allow=specifiers["allow"],
        deny=specifiers["deny"],
        ask=specifiers["ask"],
        cwd=here,
    )
    found = set(covering(verdict, specifiers[behavior], behavior))
    rules = {"allow": allow, "deny": deny, "ask": ask}[behavior]
    return tuple(r for r in rules if r.tool == "Bash" and r.specifier in found)


# ---------------------------------------------------------------------------- paths


def _path_rule_matches(rule: PermissionRule, paths: Sequence[Path], cwd: Path | None, behavior: MatchBehavior) -> bool:
    here = cwd if cwd is not None else Path(os.getcwd())
    return FileRules((rule,), here).first_match(call_candidates(paths, here), behavior) is not None


# ---------------------------------------------------------------------------- WebFetch


def url_host(content: str) -> str | None:
    """The host a URL (or a bare domain) names, in the one spelling WebFetch connects to (`hosts.canonical_host`:
    `127.1` is 127.0.0.1); a host that has none is only lower-cased."""
    text = content.strip()
    if "://" not in text:
        text = "http://" + text
    try:
        host = urlsplit(text).hostname
    except ValueError:
        return None
    if not host:
        return None
    try:
        return canonical_host(host)
    except HostError:
        return host.lower().rstrip(".")


def _domain_matches(specifier: str, content: str) -> bool:
    if not specifier.startswith("domain:"):
        return content == specifier
    domain = canonical_domain_pattern(specifier[len("domain:") :])
    host = url_host(content)
    if host is None:
        return False
    if domain.startswith("*."):
        return host.endswith(domain[1:])
    return host == domain
