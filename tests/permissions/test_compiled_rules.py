"""Rules compiled per context: the same answers as one rule at a time, and no answer outlives its context."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from handrail.permissions.context import PermissionContext
from handrail.permissions.decision import PermissionCheck
from handrail.permissions.file_rules import FileRules, MatchBehavior, call_candidates
from handrail.permissions.paths import one_decision
from handrail.permissions.pipeline import CallFacts, decide
from handrail.permissions.rules import PermissionRule, parse_rule, rule_matches_call

PATTERNS = (
    "./src/**", "src/*.py", "*.env", ".env", "./build/", "/docs/**", "//{tmp}/abs/**", "~/.ssh/**",
    "./**", "src/**/*.py", "./secrets", "src/?.py", "./link/**", "./outside/**",
)
PATHS = (
    "cwd/src/a.py", "cwd/src/x/y.py", "cwd/deep/.env", "cwd/prod.env", "cwd/build/out.js", "cwd/build",
    "root/docs/a.md", "cwd/docs/a.md", "abs/f", "home/.ssh/id", "cwd/secrets/k", "cwd/src/bb.py",
    "cwd/link/x", "cwd/link/../src/a.py", "elsewhere/a",
)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for folder in ("home/.ssh", "cwd/src", "root/docs", "outside"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "cwd" / "link").symlink_to(tmp_path / "outside")
    return tmp_path


def _rule(text: str, root: Path) -> PermissionRule:
    rule = parse_rule(text, source="project", root=root)
    assert isinstance(rule, PermissionRule)
    return rule


@pytest.mark.parametrize("behavior", ["allow", "deny"])
def test_first_rule_as_one_at_a_time(tree: Path, behavior: MatchBehavior) -> None:
    cwd, root = tree / "cwd", tree / "root"
    all_rules = [_rule(f"Read({p.format(tmp=tree)})", root) for p in PATTERNS]
    orders = [all_rules, all_rules[::-1], all_rules[3:] + all_rules[:3]]
    paths = [tree / p for p in PATHS]
    for rules, count in itertools.product(orders, (1, 2)):
        compiled = FileRules(rules, cwd)
        for chosen in itertools.combinations(paths, count):
            with one_decision():
                matching = (r for r in rules if rule_matches_call(r, "Read", None, chosen, cwd, behavior=behavior))
                expected = next(matching, None)
                assert compiled.first_match(call_candidates(chosen, cwd), behavior) == expected, chosen


def test_a_new_context_sees_new_rules(tree: Path) -> None:
    ws = tree / "cwd"
    facts = CallFacts("Read", True, str(ws / "src" / "a.py"), (ws / "src" / "a.py",))
    context = PermissionContext(workspace_roots=(ws,))
    assert decide(facts, PermissionCheck(), context).behavior == "allow"
    denied = context.with_rule("deny", _rule("Read(./src/**)", ws))
    assert decide(facts, PermissionCheck(), denied).behavior == "deny"
    assert decide(facts, PermissionCheck(), context).behavior == "allow"  # the old context keeps its answer


def test_cached_matchers_follow_the_cwd(tree: Path) -> None:
    ws = tree / "cwd"
    context = PermissionContext(workspace_roots=(ws,), deny=(_rule("Read(./a.txt)", ws),))
    inside = CallFacts("Read", True, str(ws / "src" / "a.txt"), (ws / "src" / "a.txt",))
    assert decide(inside, PermissionCheck(), context).behavior == "allow"
    moved = PermissionContext(workspace_roots=(ws,), deny=context.deny, cwd=ws / "src")
    assert decide(inside, PermissionCheck(), moved).behavior == "deny"


def test_links_are_resolved_on_every_decision(tree: Path) -> None:
    ws = tree / "cwd"
    (ws / "out").symlink_to(ws / "src")
    context = PermissionContext(workspace_roots=(ws,))
    facts = CallFacts("Edit", False, str(ws / "out" / "a.py"), (ws / "out" / "a.py",))
    context = context.with_rule("allow", _rule("Edit(./**)", ws))
    assert decide(facts, PermissionCheck(), context).behavior == "allow"
    (ws / "out").unlink()
    (ws / "out").symlink_to(tree / "outside")  # same context, the link now leaves the workspace
    assert decide(facts, PermissionCheck(), context).reason.type == "working_dir"


def test_state_folders_are_read_per_context(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tree / "cwd"
    target = tree / "config" / "handrail" / "settings.json"
    facts = CallFacts("Write", False, str(target), (target,))
    before = PermissionContext(workspace_roots=(ws, tree / "config"), mode="bypassPermissions")
    assert decide(facts, PermissionCheck(), before).behavior == "allow"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tree / "config"))
    after = PermissionContext(workspace_roots=(ws, tree / "config"), mode="bypassPermissions")
    assert decide(facts, PermissionCheck(), after).reason.type == "safety_check"


def test_a_new_file_behind_a_swapped_folder_is_resolved_on_every_decision(tree: Path) -> None:
    """A folder the first decision walked without a link is swapped for a link out of the workspace: the next
    decision (same context, same call) sees where the new file would land."""
    ws = tree / "cwd"
    target = ws / "drop" / "new.txt"
    (ws / "drop").mkdir()
    context = PermissionContext(workspace_roots=(ws,), allow=(_rule("Edit(./drop/**)", ws),))
    facts = CallFacts("Write", False, str(target), (target,))
    assert decide(facts, PermissionCheck(), context).behavior == "allow"
    (ws / "drop").rmdir()
    (ws / "drop").symlink_to(tree / "outside")
    swapped = decide(facts, PermissionCheck(), context)
    assert swapped.behavior == "ask"
    assert swapped.reason.type == "working_dir"
    assert str(tree / "outside" / "new.txt") in swapped.reason.message


def _direct(
    rules: dict[MatchBehavior, list[PermissionRule]], tool: str, paths: tuple[Path, ...], cwd: Path
) -> tuple[MatchBehavior, PermissionRule] | None:
    """The rule a decision meets first, found one rule at a time: deny rules, then ask, then allow."""
    for behavior in ("deny", "ask", "allow"):
        for rule in rules[behavior]:
            if rule_matches_call(rule, tool, None, paths, cwd, behavior=behavior):
                return behavior, rule
    return None


@pytest.mark.parametrize("tool", ["Read", "Edit", "Grep"])
def test_tool_rules_meet_the_same_first_rule_as_one_at_a_time(tree: Path, tool: str) -> None:
    """The deny, ask and allow path rules compiled into one table per context answer what the rules matched one by
    one answer, for every spread of the patterns over the three behaviors, for one path and for two, with and
    without a link on the way."""
    cwd, root = tree / "cwd", tree / "root"
    texts = [p.format(tmp=tree) for p in PATTERNS]
    paths = [tree / p for p in PATHS]
    for shift in range(3):
        rules: dict[MatchBehavior, list[PermissionRule]] = {"deny": [], "ask": [], "allow": []}
        for n, text in enumerate(texts):
            behavior: MatchBehavior = ("deny", "ask", "allow")[(n + shift) % 3]
            rules[behavior].append(_rule(f"{'Edit' if n % 2 else 'Read'}({text})", root))
        context = PermissionContext(workspace_roots=(cwd,), cwd=cwd, **{k: tuple(v) for k, v in rules.items()})
        compiled = context.tool_rules(tool, (), cwd)
        for count in (1, 2):
            for chosen in itertools.combinations(paths, count):
                with one_decision():
                    expected = _direct(rules, tool, chosen, cwd)
                    assert compiled.first_path_rule(call_candidates(chosen, cwd)) == expected, (shift, chosen)


def test_tool_rules_are_compiled_once_per_context(tree: Path) -> None:
    ws = tree / "cwd"
    context = PermissionContext(workspace_roots=(ws,), deny=(_rule("Read(./.env)", ws),))
    assert context.tool_rules("Read", (), ws) is context.tool_rules("Read", (), ws)
    newer = context.with_rule("deny", _rule("Read(./src/**)", ws))
    assert newer.tool_rules("Read", (), ws) is not context.tool_rules("Read", (), ws)
    facts = CallFacts("Read", True, str(ws / "src" / "a.py"), (ws / "src" / "a.py",))
    assert decide(facts, PermissionCheck(), context).behavior == "allow"
    assert decide(facts, PermissionCheck(), newer).behavior == "deny"
