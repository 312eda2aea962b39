"""The labelled corpus: every attack is not allowed, every hidden deny is denied, benign commands are allowed.

Each line of corpus.jsonl is ``{"command", "allow", "deny", "ask", "expect", "note"}`` with an
optional ``reason``: a check id the verdict must contain (so an attack is stopped for the right
reason, not by accident). The analyser judges the commands and the pipeline what they touch,
so each row is decided whole: the analyser's verdict, then the pipeline over it, in a workspace
at /work/proj. A path reason is met by the pipeline's matching decision (`PATH_REASONS`).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from handrail.permissions.bash.checks import CHECK_MESSAGES
from handrail.permissions.context import PermissionContext
from handrail.permissions.decision import PermissionDecision
from handrail.permissions.pipeline import CallFacts, decide
from handrail.permissions.rules import PermissionRule
from handrail.tools.builtin.bash_permissions import check_for
from tests.permissions.bash.conftest import PROJECT, check

CORPUS_PATH = Path(__file__).with_name("corpus.jsonl")
CORPUS: list[dict[str, Any]] = [
    json.loads(line) for line in CORPUS_PATH.read_text(encoding="utf-8").splitlines() if line.strip()
]
LABELS = {"allow", "deny", "ask", "not_allow"}

# every check that a command line can trip must have at least one attack in the corpus
ATTACK_CHECKS = {
    "parse_error", "incomplete_command", "arithmetic", "brace_expansion", "prompt_expansion", "heredoc_ambiguous",
    "unresolved_command", "unresolved_argument", "command_substitution", "control_characters",
    "invisible_unicode", "unicode_whitespace", "unicode_lookalike", "line_continuation", "whitespace_padding",
    "comment_quote_desync", "mid_word_hash", "obfuscated_flag", "obfuscated_command", "ansi_c_quoting",
    "escaped_operator", "escaped_whitespace", "shell_metacharacters", "dangerous_variable", "ifs_variable",
    "proc_environ", "jq_exec", "jq_file", "sed_exec", "sed_write", "sed_file", "sed_in_place", "awk_exec",
    "awk_write", "awk_program_file", "git_config_override", "git_exec", "git_config_exec", "find_delete",
    "find_write", "zsh_dangerous", "zsh_expansion", "dangerous_builtin", "privileged", "shell_reads_stdin",
    "network_redirect", "function_shadowing", "exec_option", "too_many_subcommands", "cd_outside",
    "path_outside_working_dirs", "protected_path_write", "word_split", "placeholder_in_script", "paths_from_file",
}  # fmt: skip


def _id(row: dict[str, Any]) -> str:
    return f"{row['expect']}:{row['command'][:60]!r}"


def test_corpus_is_large_and_well_formed() -> None:
    assert len(CORPUS) >= 200
    for row in CORPUS:
        assert set(row) >= {"command", "allow", "deny", "ask", "expect", "note"}, row
        assert row["expect"] in LABELS, row
        assert row["note"], row
        assert "registry" not in row["note"]
    counts = Counter(row["expect"] for row in CORPUS)
    assert counts["allow"] >= 50
    assert counts["not_allow"] >= 100
    assert counts["deny"] >= 40


def test_every_check_has_an_attack_in_the_corpus() -> None:
    named = {row["reason"] for row in CORPUS if row.get("reason")}
    assert named >= ATTACK_CHECKS, sorted(ATTACK_CHECKS - named)
    assert named <= set(CHECK_MESSAGES) | {"cd_outside", "path_outside_working_dirs", "protected_path_write",
                                           "too_many_subcommands"}  # fmt: skip


# what the pipeline decides for the paths a command touches, by the id a row names
PATH_REASONS = {
    "path_outside_working_dirs": {"outside_workspace", "working_dir"},
    "protected_path_write": {"safety_check"},
    "cd_outside": {"outside_workspace", "working_dir"},
}


def decide_row(row: dict[str, Any]) -> PermissionDecision:
    """The whole decision for a corpus row: the analyser under its rules, then the pipeline in /work/proj."""
    rules = {b: tuple(PermissionRule("Bash", spec) for spec in row[b]) for b in ("allow", "deny", "ask")}
    context = PermissionContext(workspace_roots=(PROJECT,), cwd=PROJECT, **rules)
    verdict = check(row["command"], allow=row["allow"], deny=row["deny"], ask=row["ask"])
    return decide(CallFacts("Bash", verdict.read_only, row["command"]), check_for(verdict, context), context)


@pytest.mark.parametrize("row", CORPUS, ids=[_id(r) for r in CORPUS])
def test_corpus(row: dict[str, Any]) -> None:
    verdict = check(row["command"], allow=row["allow"], deny=row["deny"], ask=row["ask"])
    decision = decide_row(row)
    expect = row["expect"]
    explanation = f"{row['note']}: {decision.behavior} {decision.reason} ({verdict.behavior} {verdict.reasons})"
    if expect == "not_allow":
        assert decision.behavior != "allow", explanation
    else:
        assert decision.behavior == expect, explanation
    if row.get("reason"):
        reason = row["reason"]
        assert reason in verdict.reason_ids or decision.reason.type in PATH_REASONS.get(reason, ()), explanation
    if verdict.flagged:
        assert not verdict.suggestions, "no 'always allow' offer on a flagged line"
