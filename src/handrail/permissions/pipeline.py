"""The decision pipeline. Steps, in order; the first that decides wins:

1. a tool-wide deny rule → deny
2. a tool-wide ask rule → ask
3. the tool's own check says deny → deny
4. content-specific deny rules → deny, then content-specific ask rules → ask
5. safety checks no mode skips: writes to `.git/`, `.handrail/`, shell rc files or
   handrail's own settings and approvals (`~/.config/handrail`, `~/.local/state/handrail`) → ask
   (`safety_check`); writes outside the working directories → ask (`working_dir`)
   unless an allow rule names those paths explicitly
6. the mode: `plan` denies what is not read-only (also where an earlier step asked); `bypassPermissions` allows;
   `acceptEdits` allows file edits inside the working directories
7. the tool's own check says ask → ask (a tool-wide allow rule overrides it)
8. allow rules → allow (a compound shell command needs every part allowed)
9. the tool's own check says allow → allow
10. read-only calls inside the working directories → allow; outside → ask
11. anything else → ask

In `dontAsk` mode every ask becomes a deny. Any exception inside the pipeline denies.
File rules are checked against both the path as written and its resolved target: a
deny on either denies, an allow must cover both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from handrail.permissions.context import PermissionContext, RuleBehavior
from handrail.permissions.decision import DecisionReason, PermissionCheck, PermissionDecision
from handrail.permissions.file_rules import call_candidates
from handrail.permissions.paths import one_decision, real_text
from handrail.permissions.rules import (
    EDIT_TOOLS,
    FILE_TOOLS,
    PermissionRule,
    bash_rules_covering,
    file_targets,
    rule_matches_call,
    url_host,
)
from handrail.permissions.sources import DEFAULT_POLICY_PATH, user_settings_path
from handrail.permissions.trust import approvals_path

PROTECTED_DIRECTORIES: frozenset[str] = frozenset({".git", ".handrail"})
SHELL_RC_FILES: frozenset[str] = frozenset(
    {".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin"}
)


@dataclass(frozen=True)
class CallFacts:
    """What the pipeline knows of one tool call; tools describe themselves through this."""

    tool_name: str
    read_only: bool
    rule_content: str | None = None
    paths: tuple[Path, ...] = ()
    aliases: tuple[str, ...] = ()  # the tool's other names: rules written with them apply too


def decide(facts: CallFacts, check: PermissionCheck, context: PermissionContext) -> PermissionDecision:
    """Decide one call. Fails closed: anything not explicitly allowed is asked, any error denies."""
    try:
        with one_decision():
            decision = _decide(facts, check, context)
        if context.mode == "plan" and not facts.read_only and decision.behavior == "ask":
            # the asks before step 6 (ask rules, safety checks) must not let a change through in plan mode
            message = f"plan mode: only read-only tools may run until the plan is approved ({decision.reason.message})"
            return PermissionDecision("deny", DecisionReason("mode", message, decision.reason.rule), decision.diff)
        if context.mode == "dontAsk" and decision.behavior == "ask":
            message = f"dontAsk mode refuses anything that would need approval ({decision.reason.message})"
            return PermissionDecision("deny", DecisionReason("mode", message, decision.reason.rule), decision.diff)
        return decision
    except Exception as exc:
        message = f"the permission check failed ({type(exc).__name__}: {exc}), so the call was refused"
        return PermissionDecision("deny", DecisionReason("other", message))


def _rule_text(rule: PermissionRule) -> str:
    return f"{rule} ({rule.source})"


_READ_INSIDE = DecisionReason("read_only_in_workspace", "reads inside the workspace run without asking")
_READ_OUTSIDE = DecisionReason("outside_workspace", "reads outside the workspace need approval")
_CHANGES = DecisionReason("default", "this tool changes things, so it needs approval")
_RULE_WORDS: dict[str, str] = {"allow": "allowed by", "deny": "denied by", "ask": "approval asked by"}


def _rule_reason(behavior: RuleBehavior, rule: PermissionRule) -> DecisionReason:
    return DecisionReason("rule", f"{_RULE_WORDS[behavior]} the rule {_rule_text(rule)}", str(rule))


def _content_match(
    context: PermissionContext,
    behavior: RuleBehavior,
    facts: CallFacts,
    cwd: Path,
    targets: tuple[tuple[str, ...], ...],
) -> PermissionRule | None:
    """The first rule of `behavior` with a specifier that covers the call; `targets` are its files' forms."""
    tool = facts.tool_name
    if tool == "Bash":
        covering = _bash_rules(context, behavior, facts, cwd)
        return covering[0] if covering else None
    if tool in FILE_TOOLS:  # every rule that covers a file tool is a path rule
        rules = context.file_rules(behavior, tool, cwd, facts.aliases)
        return rules.first_match(targets, behavior) if rules.rules else None
    for rule in context.rules_for_tool(behavior, tool, facts.aliases):
        if rule.specifier is not None and rule_matches_call(
            rule, tool, facts.rule_content, facts.paths, cwd, behavior=behavior, aliases=facts.aliases
        ):
            return rule
    return None


def _bash_rules(
    context: PermissionContext, behavior: RuleBehavior, facts: CallFacts, cwd: Path
) -> tuple[PermissionRule, ...]:
    """The Bash rules of `behavior` covering the command: one (cached) analysis under every Bash rule."""
    return bash_rules_covering(
        facts.rule_content,
        cwd,
        behavior=behavior,
        allow=context.rules_for_tool("allow", "Bash"),
        deny=context.rules_for_tool("deny", "Bash"),
        ask=context.rules_for_tool("ask", "Bash"),
        working_dirs=context.working_directories,
    )


def _allowed_by_rules(
    context: PermissionContext, facts: CallFacts, cwd: Path, targets: tuple[tuple[str, ...], ...]
) -> tuple[PermissionRule, ...]:
    """The allow rules that together cover the call (empty when they do not)."""
    if (rule := context.tool_wide_rule("allow", facts.tool_name, facts.aliases)) is not None:
        return (rule,)
    if facts.tool_name == "Bash":  # a line whose parts several rules cover together
        return _bash_rules(context, "allow", facts, cwd)
    if (rule := _content_match(context, "allow", facts, cwd, targets)) is not None:
        return (rule,)
    return ()


def handrail_state_directories() -> tuple[Path, ...]:
    """Where handrail keeps its own settings and approvals: writing there could grant the agent anything."""
    return (user_settings_path().parent, approvals_path().parent, DEFAULT_POLICY_PATH.parent)


_PROTECTED_PART = re.compile("(?:^|/)(" + "|".join(map(re.escape, sorted(PROTECTED_DIRECTORIES))) + r")(?:/|\Z)")
_SHELL_RC_NAME = re.compile("(?:^|/)(?:" + "|".join(map(re.escape, sorted(SHELL_RC_FILES))) + r")\Z")


def _safety_problem(forms: tuple[tuple[str, ...], ...], context: PermissionContext) -> str | None:
    # read from the environment once per context: the server's environment does not change
    state = context.roots("state", handrail_state_directories)
    for candidates in forms:
        for candidate in candidates:
            if state.contain_either(candidate) or state.contain(real_text(candidate)):
                return f"{candidate} holds handrail's own settings, so changing it always needs approval"
            if protected := _PROTECTED_PART.search(candidate):
                return f"{candidate} is inside a {protected.group(1)}/ folder, so changing it always needs approval"
            if _SHELL_RC_NAME.search(candidate):
                return f"{candidate} is a shell startup file, so changing it always needs approval"
    return None


Forms = tuple[tuple[str, ...], ...]  # for each path: its absolute form as written, and its resolved one


def _forms(facts: CallFacts, cwd: Path) -> tuple[Forms, Forms]:
    """The forms (absolute as written, resolved) of the call's paths, and of the files a file tool's
    rules are matched against: its paths, else its rule content taken as a path."""
    forms = call_candidates(facts.paths, cwd) if facts.paths else ()
    if forms or facts.tool_name not in FILE_TOOLS:
        return forms, forms
    return forms, call_candidates(file_targets((), facts.rule_content), cwd)


def suggest_rules(facts: CallFacts, cwd: Path) -> tuple[str, ...]:
    """The rules an "always allow" answer would add, normalised (empty when none is safe to offer)."""
    return _suggestions(facts, cwd, _forms(facts, cwd)[1])


def _suggestions(facts: CallFacts, cwd: Path, targets: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    tool = facts.tool_name
    content = facts.rule_content
    if tool == "Bash":
        from handrail.permissions.bash import analyse  # tree-sitter loads on the first Bash decision

        return analyse(content, cwd=cwd).suggestions if content else ()  # normalised prefixes; none when flagged
    if tool in FILE_TOOLS:
        family = "Edit" if tool in EDIT_TOOLS else "Read"
        texts = [forms[0] for forms in targets]
        if not texts or any(ch in text for text in texts for ch in "*?[]()"):
            return ()
        return tuple(f"{family}(/{text})" for text in texts)
    if tool == "WebFetch":
        host = url_host(content) if content else None
        return (f"WebFetch(domain:{host})",) if host else ()
    return (tool,)


def _decide(facts: CallFacts, check: PermissionCheck, context: PermissionContext) -> PermissionDecision:
    cwd = context.effective_cwd
    tool = facts.tool_name
    aliases = facts.aliases
    forms, targets = _forms(facts, cwd)  # resolved once per decision

    def verdict(behavior: RuleBehavior, reason: DecisionReason) -> PermissionDecision:
        if behavior != "ask":
            if check.diff is None and not check.suggestions:  # the same verdict every time: build it once
                return context.cached(("verdict", behavior, reason), lambda: PermissionDecision(behavior, reason))
            return PermissionDecision(behavior, reason, check.diff, check.suggestions)
        # a safety check offers only the rules the tool itself names as settling it (WebFetch's domain rule)
        suggestions = check.suggestions if reason.type == "safety_check" else check.suggestions or _suggestions(
            facts, cwd, targets
        )
        return PermissionDecision(behavior, reason, check.diff, suggestions)

    def by_rule(behavior: RuleBehavior, rule: PermissionRule) -> PermissionDecision:
        return verdict(behavior, context.cached(("rule", behavior, rule), lambda: _rule_reason(behavior, rule)))

    # 1-2: tool-wide rules
    if (rule := context.tool_wide_rule("deny", tool, aliases)) is not None:
        return by_rule("deny", rule)
    if (rule := context.tool_wide_rule("ask", tool, aliases)) is not None:
        return by_rule("ask", rule)
    # 3: the tool's own deny
    if check.behavior == "deny":
        return verdict("deny", DecisionReason("tool", check.message or f"{tool} refused this call"))
    # 4: content-specific rules
    if (rule := _content_match(context, "deny", facts, cwd, targets)) is not None:
        return by_rule("deny", rule)
    if (rule := _content_match(context, "ask", facts, cwd, targets)) is not None:
        return by_rule("ask", rule)
    # 5: safety checks
    if check.behavior == "ask" and check.safety:
        return verdict("ask", DecisionReason("safety_check", check.message or f"{tool} flagged this call"))
    working = context.roots("working", lambda: context.working_directories)
    writes = not facts.read_only and bool(forms)
    if writes:
        if (problem := _safety_problem(forms, context)) is not None:
            return verdict("ask", DecisionReason("safety_check", problem))
        outside = [f[-1] for f in forms if not working.contain_both(f[0], f[-1])]
        if outside and _content_match(context, "allow", facts, cwd, targets) is None:
            names = ", ".join(outside)
            return verdict("ask", DecisionReason("working_dir", f"{names} is outside the working directories"))
    # 6: the mode
    if context.mode == "plan" and not facts.read_only:
        return verdict(
            "deny", DecisionReason("mode", "plan mode: only read-only tools may run until the plan is approved")
        )
    if context.mode == "bypassPermissions" and not context.bypass_disabled:
        return verdict("allow", DecisionReason("mode", "bypassPermissions mode allows every call"))
    if context.mode == "acceptEdits" and tool in EDIT_TOOLS and writes:
        return verdict("allow", DecisionReason("mode", "acceptEdits mode allows file edits in the working directories"))
    # 7: the tool's own ask (a tool-wide allow rule overrides it)
    if check.behavior == "ask":
        if (rule := context.tool_wide_rule("allow", tool, aliases)) is not None:
            return by_rule("allow", rule)
        return verdict("ask", DecisionReason("tool", check.message or f"{tool} asks for approval"))
    # 8: allow rules
    if allowed := _allowed_by_rules(context, facts, cwd, targets):
        if len(allowed) == 1:
            return by_rule("allow", allowed[0])
        names = ", ".join(_rule_text(r) for r in allowed)
        return verdict("allow", DecisionReason("rule", f"every part is allowed by the rules {names}", str(allowed[0])))
    # 9: the tool's own allow
    if check.behavior == "allow":
        return verdict("allow", DecisionReason("tool", check.message or f"{tool} allows this call"))
    # 10-11: read-only inside the working directories, else ask
    if facts.read_only:
        if all(working.contain_both(f[0], f[-1]) for f in forms):
            return verdict("allow", _READ_INSIDE)
        return verdict("ask", _READ_OUTSIDE)
    return verdict("ask", _CHANGES)
