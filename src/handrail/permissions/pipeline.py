"""The decision pipeline. Steps, in order; the first that decides wins:

1. a tool-wide deny rule → deny
2. a tool-wide ask rule → ask
3. the tool's own check says deny → deny
4. content-specific deny rules → deny, then content-specific ask rules → ask; for what a Bash
   command touches, the Read rules (reads, runs, searches, `cd`) and Edit rules (writes) of each
   path, and of what lies below a folder it searches recursively
5. safety checks no mode skips: the tool's own safety ask (a flagged command, a repository whose
   configuration runs programs); writes to protected paths (`protected`: `.git/`, `.vscode/`,
   `.envrc`, shell startup files...) unless a rule names the path explicitly, or to handrail's
   own settings and approvals → ask (`safety_check`); reads of process environments → ask;
   writes outside the working directories → ask (`working_dir`) unless an allow rule covers them
6. the mode: `plan` denies what is not read-only (also where an earlier step asked); `bypassPermissions`
   allows; then reads outside the working directories ask (`outside_workspace`) unless a Read allow
   rule covers them; `acceptEdits` allows file edits inside the working directories, and Bash
   commands whose parts are all covered (its writes inside are its edits)
7. the tool's own check says ask → ask (a tool-wide allow rule overrides it)
8. allow rules → allow (a compound shell command needs every part allowed); a Bash rule allows
   the command, not the files it writes: each needs an Edit allow rule (or an exact Bash rule
   that names it) or the call asks
9. the tool's own check says allow → allow (the same holds for the files it writes)
10. read-only calls inside the working directories → allow; outside → ask
11. anything else → ask

In `dontAsk` mode every ask becomes a deny. Any exception inside the pipeline denies.
Every path is checked both as written and resolved (symlinks followed): a deny on either
denies, an allow must cover both, and either outside the working directories is outside.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from handrail.permissions.context import PermissionContext, RuleBehavior, ToolRules
from handrail.permissions.decision import DecisionReason, PermissionCheck, PermissionDecision, Touch
from handrail.permissions.file_rules import FileRules, call_candidates
from handrail.permissions.paths import Roots, decision_memo
from handrail.permissions.protected import Protection, names_explicitly, protection
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

Forms = tuple[tuple[str, ...], ...]  # for each path: its absolute form as written, and its resolved one
# process memory and environments (the server's holds the API key), however the path reached them
_PATTERN_TEXT = re.compile(r"[*?\[\]()]")  # what a path rule would read as a wildcard or the rule's end
_SENSITIVE = re.compile(r"/proc/(?:self|thread-self|\d+)/(?:task/\d+/)?(?:environ|mem)")


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
        token = decision_memo.set({})  # `with one_decision()`, without its two method calls
        try:
            decision = _decide(facts, check, context)
        finally:
            decision_memo.reset(token)
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
_VERBS = {
    "read": "reads", "write": "writes", "run": "runs", "search": "searches", "enter": "moves into", "mention": "names"
}


def _rule_reason(behavior: RuleBehavior, rule: PermissionRule) -> DecisionReason:
    return DecisionReason("rule", f"{_RULE_WORDS[behavior]} the rule {_rule_text(rule)}", str(rule))


PathRuleMet = tuple[RuleBehavior, PermissionRule] | None  # the path rule a file tool's call meets first


def _content_match(
    context: PermissionContext,
    behavior: RuleBehavior,
    facts: CallFacts,
    cwd: Path,
    met: PathRuleMet,
) -> PermissionRule | None:
    """The first rule of `behavior` with a specifier that covers the call.

    For a file tool (every rule that covers one is a path rule) `met` is the path rule its
    files meet first (`ToolRules.first_path_rule`): the pipeline asks for deny, then ask, then
    allow rules and stops at the first it finds, so a rule met before `behavior`'s has
    already decided the call.
    """
    tool = facts.tool_name
    if tool in FILE_TOOLS:
        return met[1] if met is not None and met[0] == behavior else None
    if tool == "Bash":
        covering = _bash_rules(context, behavior, facts, cwd)
        return covering[0] if covering else None
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
    )


def _allowed_by_rules(
    context: PermissionContext, facts: CallFacts, cwd: Path, rules: ToolRules, met: PathRuleMet
) -> tuple[PermissionRule, ...]:
    """The allow rules that together cover the call (empty when they do not)."""
    if rules.allow_wide is not None:
        return (rules.allow_wide,)
    if facts.tool_name == "Bash":  # a line whose parts several rules cover together
        return _bash_rules(context, "allow", facts, cwd)
    if (rule := _content_match(context, "allow", facts, cwd, met)) is not None:
        return (rule,)
    return ()


def handrail_state_directories() -> tuple[Path, ...]:
    """Where handrail keeps its own settings and approvals: writing there could grant the agent anything."""
    return (user_settings_path().parent, approvals_path().parent, DEFAULT_POLICY_PATH.parent)


# ---------------------------------------------------------------------------- what a call touches


def _touch_rules(
    context: PermissionContext, behavior: RuleBehavior, touch: Touch, cwd: Path
) -> FileRules[PermissionRule]:
    """The path rules a touch meets: Edit rules for a write, Read rules for the rest."""
    return context.file_rules(behavior, "Edit" if touch.kind == "write" else "Read", cwd)


# a name standing for "anything inside": a rule matching it below a folder covers all a search of it reads
_ANY_CHILD = "/\x00"


def _touch_rule(
    context: PermissionContext, behavior: RuleBehavior, touches: tuple[Touch, ...], cwd: Path
) -> tuple[PermissionRule, Touch] | None:
    """The first deny (or ask) rule covering a path a call touches (for a search, all it reads), with that touch."""
    for touch in touches:
        if touch.kind == "mention":
            continue  # what the program does with it is not known: `_unseen_read_problem` asks instead
        rules = _touch_rules(context, behavior, touch, cwd)
        if not rules.rules:
            continue
        if (rule := rules.first_match((touch.forms,), behavior)) is not None:
            return rule, touch
        inside = tuple(form + _ANY_CHILD for form in touch.forms)
        if touch.kind == "search" and (rule := rules.first_match((inside,), behavior)) is not None:
            return rule, touch
    return None


def _touch_reason(behavior: RuleBehavior, rule: PermissionRule, touch: Touch) -> DecisionReason:
    judged = "denies" if behavior == "deny" else "asks about"
    path = touch.written if touch.written == touch.real else f"{touch.written} (which leads to {touch.real})"
    return DecisionReason(
        "rule", f"it {_VERBS[touch.kind]} {path}, which the rule {_rule_text(rule)} {judged}", str(rule)
    )


def _unseen_read_problem(
    context: PermissionContext, touches: tuple[Touch, ...], cwd: Path
) -> DecisionReason | None:
    """Why a call must ask about what it may read unnamed: below a folder it searches lies a path a Read deny or
    ask rule covers (or too much to check), or a program handrail does not know is given such a path.

    A rule covering the searched folder itself was met at the folder; here the call reads what lies in it
    without naming it, or hands the file to a program that may read it, so even a deny rule makes it ask
    (the user sees what would be read).
    """
    for touch in touches:
        if touch.unchecked:
            if touch.kind != "search" and not _has_rules(context, touch, cwd):
                continue
            verb = "names too many files" if touch.kind != "search" else "searches a folder too large"
            return DecisionReason(
                "rule", f"it {_VERBS[touch.kind]} {touch.written}, which {verb} to check against the rules"
            )
        if touch.kind == "search":
            entries = touch.below
        elif touch.kind == "mention":
            entries = ((touch.written, touch.real),)
        else:
            continue
        for behavior in ("deny", "ask"):
            rules = context.file_rules(behavior, "Read", cwd)
            if not rules.rules:
                continue
            for written, real in entries:
                forms = (written,) if written == real else (written, real)
                if (rule := rules.first_match((forms,), behavior)) is not None:
                    judged = f"the rule {_rule_text(rule)} {'denies' if behavior == 'deny' else 'asks about'}"
                    message = (
                        f"it reads everything in {touch.written}, including {written}, which {judged}"
                        if touch.kind == "search"
                        else f"it names {written}, which {judged}, to a program that may read it"
                    )
                    return DecisionReason("rule", message, str(rule))
    return None


def _has_rules(context: PermissionContext, touch: Touch, cwd: Path) -> bool:
    return bool(_touch_rules(context, "deny", touch, cwd).rules or _touch_rules(context, "ask", touch, cwd).rules)


def _reads(touches: tuple[Touch, ...]) -> list[tuple[str, str]]:
    """(written, resolved) of every path the touches read: their own, and what a search reads below."""
    out = [(t.written, t.real) for t in touches if t.kind != "write"]
    out.extend(entry for t in touches if t.kind == "search" for entry in t.below)
    return out


def _sensitive(paths: list[tuple[str, str]] | Forms) -> str | None:
    for forms in paths:
        for form in forms:
            if _SENSITIVE.match(form):
                return form
    return None


def _explicit_allow(
    context: PermissionContext,
    *,
    tool: str,
    aliases: tuple[str, ...],
    cwd: Path,
    forms: tuple[str, ...],
    found: Protection,
) -> PermissionRule | None:
    """An allow rule that names protected `found` explicitly and covers the path (`Edit(./.vscode/settings.json)`)."""
    for rule in context.rules_for_tool("allow", tool, aliases):
        named = rule.specifier is not None and names_explicitly(rule.specifier, found)
        if named and FileRules((rule,), cwd).first_match((forms,), "allow") is not None:
            return rule
    return None


def _protected_problem(
    context: PermissionContext, forms: tuple[str, ...], *, tool: str, aliases: tuple[str, ...], cwd: Path, named: bool
) -> str | None:
    """Why writing a path (given by its forms) always asks, or None."""
    state = context.roots("state", handrail_state_directories)  # the server's environment does not change
    real = forms[-1]  # the forms are (written, resolved), or one when they are the same
    for form in forms:
        if state.contain_either(form) or state.contain(real):
            return f"{form} holds handrail's own settings, so changing it always needs approval"
    for form in forms:
        found = protection(form)
        if (
            found is not None
            and not named
            and _explicit_allow(context, tool=tool, aliases=aliases, cwd=cwd, forms=forms, found=found) is None
        ):
            return found.message(form)
    return None


def _covered(rules: FileRules[PermissionRule], forms: tuple[str, ...]) -> bool:
    return bool(rules.rules) and rules.first_match((forms,), "allow") is not None


def _outside_writes(context: PermissionContext, touches: tuple[Touch, ...], working: Roots, cwd: Path) -> list[str]:
    allow = context.file_rules("allow", "Edit", cwd)
    return [
        t.real if working.contain_either(t.written) else t.written
        for t in touches
        if t.kind == "write"
        and not t.named
        and not working.contain_both(t.written, t.real)
        and not _covered(allow, t.forms)
    ]


def _outside_reads(
    context: PermissionContext, touches: tuple[Touch, ...], working: Roots, cwd: Path
) -> list[tuple[Touch, str]]:
    """The touches that read outside the working directories where no Read allow rule covers them (a run is the
    rule's), with the path outside: the touch's own, or one a search reaches below it through a link."""
    allow = context.file_rules("allow", "Read", cwd)
    out: list[tuple[Touch, str]] = []
    for touch in touches:
        if touch.kind in ("write", "run", "mention") or touch.named:
            continue
        for written, real in ((touch.written, touch.real), *touch.below):
            if not working.contain_both(written, real):
                forms = (written,) if written == real else (written, real)
                if not _covered(allow, forms):
                    out.append((touch, real if working.contain_either(written) else written))
                    break
    return out


def _unapproved_writes(context: PermissionContext, touches: tuple[Touch, ...], cwd: Path) -> list[Touch]:
    """The writes no Edit allow rule (nor an exact Bash rule naming them) approves: a Bash rule allows commands."""
    allow = context.file_rules("allow", "Edit", cwd)
    return [t for t in touches if t.kind == "write" and not t.named and not _covered(allow, t.forms)]


# ---------------------------------------------------------------------------- suggestions


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


def _path_rule(family: str, path: str) -> str | None:
    """`Edit(//abs/path)` for one absolute path, or None when its text would read as a pattern."""
    return None if _PATTERN_TEXT.search(path) else f"{family}(/{path})"


def _suggestions(facts: CallFacts, cwd: Path, targets: Forms) -> tuple[str, ...]:
    tool = facts.tool_name
    content = facts.rule_content
    if tool == "Bash":
        from handrail.permissions.bash import analyse  # tree-sitter loads on the first Bash decision

        return analyse(content, cwd=cwd).suggestions if content else ()  # normalised prefixes; none when flagged
    if tool in FILE_TOOLS:
        family = "Edit" if tool in EDIT_TOOLS else "Read"
        found = [_path_rule(family, forms[0]) for forms in targets]
        return tuple(r for r in found if r is not None) if found and None not in found else ()
    if tool == "WebFetch":
        host = url_host(content) if content else None
        return (f"WebFetch(domain:{host})",) if host else ()
    return (tool,)


def _touch_suggestions(
    context: PermissionContext, touches: tuple[Touch, ...], working: Roots, cwd: Path
) -> tuple[str, ...] | None:
    """The Read and Edit rules that would approve what the touches need approved (None: one cannot be offered).

    None when a link stands between a path and where it leads: one rule would have to cover both
    places, which is more than the command asked for.
    """
    needed = [(t, t.written) for t in _unapproved_writes(context, touches, cwd)]
    needed += _outside_reads(context, touches, working, cwd)
    rules: list[str] = []
    for touch, path in needed:
        rule = _path_rule("Edit" if touch.kind == "write" else "Read", path)
        if rule is None or touch.written != touch.real or path != touch.written:
            return None  # a link on the way, or a path found below a search: no exact rule covers it
        rules.append(rule)
    return tuple(dict.fromkeys(rules))


# ---------------------------------------------------------------------------- the steps


# what a step found: the behavior, with the rule that decided it or the reason (dressed by `_decide`)
Finding = tuple[RuleBehavior, PermissionRule | DecisionReason]


def _decide(facts: CallFacts, check: PermissionCheck, context: PermissionContext) -> PermissionDecision:
    cwd = context.effective_cwd
    forms, targets = _forms(facts, cwd)  # resolved once per decision
    working = context.working_roots
    behavior, found = _find(facts, check, context, cwd=cwd, forms=forms, targets=targets, working=working)
    if (
        behavior != "ask"
        and check.diff is None
        and not check.suggestions
        and (isinstance(found, PermissionRule) or found is _READ_INSIDE)
    ):
        # the same verdict every time for this rule: built once per context (reasons naming paths are not kept)
        return context.cached((behavior, found), lambda: PermissionDecision(behavior, _reason(behavior, found)))
    reason = _reason(behavior, found)
    if behavior != "ask":
        return PermissionDecision(behavior, reason, check.diff, check.suggestions)
    suggestions = _ask_suggestions(reason, facts, check, context, cwd=cwd, targets=targets, working=working)
    return PermissionDecision(behavior, reason, check.diff, suggestions)


def _reason(behavior: RuleBehavior, found: PermissionRule | DecisionReason) -> DecisionReason:
    return _rule_reason(behavior, found) if isinstance(found, PermissionRule) else found


def _ask_suggestions(
    reason: DecisionReason,
    facts: CallFacts,
    check: PermissionCheck,
    context: PermissionContext,
    *,
    cwd: Path,
    targets: Forms,
    working: Roots,
) -> tuple[str, ...]:
    """The rules an "always allow" answer to an ask would add (empty when none is safe to offer)."""
    touches = check.touches
    if reason.type == "safety_check":
        # only rules the tool itself names as settling it (WebFetch's domain rule); a command's rules never do
        return () if touches else check.suggestions
    if not touches:
        return check.suggestions or _suggestions(facts, cwd, targets)
    if check.behavior == "ask" and not check.suggestions:
        return ()  # a part of the command no rule can be offered for
    extra = _touch_suggestions(context, touches, working, cwd)
    return () if extra is None else (*check.suggestions, *extra)


def _find(
    facts: CallFacts,
    check: PermissionCheck,
    context: PermissionContext,
    *,
    cwd: Path,
    forms: Forms,
    targets: Forms,
    working: Roots,
) -> Finding:
    """The steps, in order: the first that decides gives the behavior and its rule or reason."""
    tool = facts.tool_name
    aliases = facts.aliases
    touches = check.touches
    rules = context.tool_rules(tool, aliases, cwd)
    # 1-2: tool-wide rules
    if rules.deny_wide is not None:
        return "deny", rules.deny_wide
    if rules.ask_wide is not None:
        return "ask", rules.ask_wide
    # 3: the tool's own deny
    if check.behavior == "deny":
        return "deny", DecisionReason("tool", check.message or f"{tool} refused this call")
    # 4: content-specific rules, and the rules of the paths the call touches
    met = rules.first_path_rule(targets) if tool in FILE_TOOLS else None
    if (rule := _content_match(context, "deny", facts, cwd, met)) is not None:
        return "deny", rule
    if touches and (hit := _touch_rule(context, "deny", touches, cwd)) is not None:
        return "deny", _touch_reason("deny", *hit)
    if (rule := _content_match(context, "ask", facts, cwd, met)) is not None:
        return "ask", rule
    if touches and (hit := _touch_rule(context, "ask", touches, cwd)) is not None:
        return "ask", _touch_reason("ask", *hit)
    if touches and (reason := _unseen_read_problem(context, touches, cwd)) is not None:
        return "ask", reason
    # 5: safety checks
    if check.behavior == "ask" and check.safety:
        return "ask", DecisionReason("safety_check", check.message or f"{tool} flagged this call")
    reading = _reads(touches) if touches else (forms if facts.read_only else ())
    if reading and (secret := _sensitive(reading)) is not None:
        return "ask", DecisionReason("safety_check", f"{secret} holds a process's memory or environment (secrets)")
    writes = not facts.read_only and bool(forms)
    if writes:
        for path_forms in forms:
            problem = _protected_problem(context, path_forms, tool=tool, aliases=aliases, cwd=cwd, named=False)
            if problem is not None:
                return "ask", DecisionReason("safety_check", problem)
        outside = [f[-1] for f in forms if not working.contain_both(f[0], f[-1])]
        if outside and _content_match(context, "allow", facts, cwd, met) is None:
            names = ", ".join(outside)
            return "ask", DecisionReason("working_dir", f"{names} is outside the working directories")
    for touch in touches:
        if touch.kind != "write":
            continue
        problem = _protected_problem(context, touch.forms, tool="Edit", aliases=(), cwd=cwd, named=touch.named)
        if problem is not None:
            return "ask", DecisionReason("safety_check", problem)
    if touches and (outside := _outside_writes(context, touches, working, cwd)):
        return "ask", DecisionReason("working_dir", f"it writes {', '.join(outside)}, outside the working directories")
    # 6: the mode
    if context.mode == "plan" and not facts.read_only:
        return "deny", DecisionReason("mode", "plan mode: only read-only tools may run until the plan is approved")
    if context.mode == "bypassPermissions" and not context.bypass_disabled:
        return "allow", DecisionReason("mode", "bypassPermissions mode allows every call")
    if touches and (reached := _outside_reads(context, touches, working, cwd)):
        names = ", ".join(dict.fromkeys(path for _, path in reached))
        return "ask", DecisionReason("outside_workspace", f"it reads {names}, outside the working directories")
    if context.mode == "acceptEdits" and (
        (tool in EDIT_TOOLS and writes) or (check.behavior == "allow" and any(t.kind == "write" for t in touches))
    ):
        return "allow", DecisionReason("mode", "acceptEdits mode allows file edits in the working directories")
    # 7: the tool's own ask (a tool-wide allow rule overrides it)
    if check.behavior == "ask":
        if rules.allow_wide is not None:
            return "allow", rules.allow_wide
        return "ask", DecisionReason("tool", check.message or f"{tool} asks for approval")
    unapproved = _unapproved_writes(context, touches, cwd) if touches else []
    # 8: allow rules
    if allowed := _allowed_by_rules(context, facts, cwd, rules, met):
        if unapproved and allowed[0].specifier is not None:
            return "ask", _writes_reason(unapproved, f"the rule {_rule_text(allowed[0])} allows the command")
        if len(allowed) == 1:
            return "allow", allowed[0]
        names = ", ".join(_rule_text(r) for r in allowed)
        return "allow", DecisionReason("rule", f"every part is allowed by the rules {names}", str(allowed[0]))
    # 9: the tool's own allow
    if check.behavior == "allow":
        if unapproved:
            return "ask", _writes_reason(unapproved, check.message or f"{tool} allows the command")
        return "allow", DecisionReason("tool", check.message or f"{tool} allows this call")
    # 10-11: read-only inside the working directories, else ask
    if facts.read_only:
        if all(working.contain_both(f[0], f[-1]) for f in forms):
            return "allow", _READ_INSIDE
        return "ask", _READ_OUTSIDE
    return "ask", _CHANGES


def _writes_reason(unapproved: list[Touch], allowed: str) -> DecisionReason:
    names = ", ".join(t.written for t in unapproved)
    return DecisionReason("default", f"{allowed}, but it also writes {names}, and no rule allows editing that")
