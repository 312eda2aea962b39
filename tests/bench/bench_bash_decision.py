"""Benchmark of a whole Bash permission decision against the analysis alone (not part of the test suite).

Run: .venv/bin/python tests/bench/bench_bash_decision.py

With 20 allow, 5 deny and 2 ask Bash rules and a Read deny rule in force, for every corpus
command it measures, side by side:

1. Bash's own check: one analysis under every rule, then the Read/Edit rules on its files;
2. the whole decision: that check plus the pipeline, whose Bash content-rule steps reuse the
   check's (cached) analysis instead of analysing the line again per rule.

The analysis cache is cleared before every sample, so each is a first-time decision. Prints
medians and the ratio of the two.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from handrail.permissions.bash.covering import analysis
from handrail.permissions.context import PermissionContext
from handrail.permissions.pipeline import CallFacts, decide
from handrail.permissions.rules import PermissionRule
from handrail.tools.builtin.bash_permissions import command_check

CORPUS = Path(__file__).resolve().parents[1] / "permissions" / "bash" / "corpus.jsonl"
ROUNDS = 9
ROOT = Path("/work/proj")


def _context() -> PermissionContext:
    allow = tuple(PermissionRule("Bash", f"tool{i} run:*") for i in range(20))
    deny = (
        *(PermissionRule("Bash", s) for s in ("rm:*", "curl:*", "wget:*", "sudo:*", "dd:*")),
        PermissionRule("Read", "./.env"),
    )
    ask = (PermissionRule("Bash", "git push:*"), PermissionRule("Bash", "npm publish:*"))
    return PermissionContext(workspace_roots=(ROOT,), cwd=ROOT, allow=allow, deny=deny, ask=ask)


def _sample(command: str, context: PermissionContext, whole: bool) -> float:
    analysis.cache_clear()
    start = time.perf_counter()
    check = command_check(command, context, ROOT)
    if whole:
        decide(CallFacts("Bash", False, command), check, context)
    return time.perf_counter() - start


def main() -> None:
    context = _context()
    commands = [json.loads(line)["command"] for line in CORPUS.read_text().splitlines() if line.strip()]
    checks: list[float] = []
    decisions: list[float] = []
    for command in commands:
        checks.append(statistics.median(_sample(command, context, False) for _ in range(ROUNDS)))
        decisions.append(statistics.median(_sample(command, context, True) for _ in range(ROUNDS)))
    check_ms, decision_ms = statistics.median(checks) * 1000, statistics.median(decisions) * 1000
    print(f"{len(commands)} commands, median per command:")
    print(f"  Bash's check (analysis + file rules): {check_ms:.3f} ms")
    print(f"  whole decision (check + pipeline):    {decision_ms:.3f} ms  ({decision_ms / check_ms:.2f}x the check)")


if __name__ == "__main__":
    main()
