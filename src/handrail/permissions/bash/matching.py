"""Bash rule specifiers and how they match one command's text.

* ``npm test`` matches exactly that command.
* ``npm test:*`` and ``npm test *`` match it followed by nothing or by a space and anything
  (a word boundary: ``npm testing`` does not match).
* ``*`` anywhere else matches any text (``git * --dry-run``); ``\\*`` is a literal star.
* ``*`` alone (or ``Bash``/``Bash(*)``) matches everything.

A rule written as ``Bash(...)`` is accepted too. `refused_for_allow` says whether an allow rule
must be ignored because its fixed part is only a shell or a wrapper (``bash:*``, ``env *``,
``timeout 10:*``, ``xargs:*``): such a rule would allow any command at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from handrail.permissions.bash.wrappers import RUNNERS, bare_runner

RuleKind = Literal["exact", "prefix", "wildcard", "all"]
_STAR = "\x00STAR\x00"


@dataclass(frozen=True, slots=True)
class BashRule:
    text: str  # the specifier as given (without `Bash(...)`)
    kind: RuleKind
    regex: re.Pattern[str]
    head: str  # the fixed text before the first wildcard
    bare_runner: bool

    @property
    def display(self) -> str:
        return f"Bash({self.text})"


def _strip_tool(spec: str) -> str:
    text = spec.strip()
    if text == "Bash":
        return "*"
    if text.startswith("Bash(") and text.endswith(")"):
        return text[5:-1].strip() or "*"
    return text


@lru_cache(maxsize=2048)
def compile_rule(spec: str) -> BashRule:
    text = _strip_tool(spec)
    if text in ("*", ":*"):
        return BashRule(text, "all", re.compile(r".*", re.DOTALL), "", False)
    body = text.replace("\\*", _STAR)
    kind: RuleKind
    if body.endswith(":*"):
        body, kind = body[:-2], "prefix"
    elif body.endswith(" *") and body.count("*") == 1:
        body, kind = body[:-2].rstrip(), "prefix"
    elif "*" in body:
        kind = "wildcard"
    else:
        kind = "exact"
    parts = [re.escape(p).replace(re.escape(_STAR), r"\*") for p in body.split("*")]
    regex = ".*".join(parts)
    if kind == "prefix":
        regex += r"(?:[ \t].*)?"
    head = body.split("*", 1)[0].replace(_STAR, "*")
    refused = False
    if kind in ("prefix", "wildcard"):
        words = head.split()
        partial = kind == "wildcard" and bool(words) and not head.endswith((" ", "\t"))
        last = words.pop() if partial else ""
        refused = bool(words) and bare_runner(words)
        if partial and not refused and (not words or bare_runner(words)):
            # `env*`, `ba*`, `timeout 5 no*`: the open word could still name a wrapper
            refused = any(runner.startswith(last) for runner in RUNNERS)
    return BashRule(text, kind, re.compile(regex, re.DOTALL), head, refused)


def matches(rule: BashRule, candidate: str) -> bool:
    if rule.kind == "all":
        return True
    if rule.kind == "exact":
        return candidate == rule.text.replace("\\*", "*")
    return rule.regex.fullmatch(candidate) is not None


def head_reaches_inside(rule: BashRule) -> bool:
    """Whether the rule's fixed part names a command beyond the wrappers (for matching wrapped forms)."""
    return rule.kind == "exact" or (bool(rule.head.strip()) and not rule.bare_runner)
