"""Benchmark of the Bash command analyser on the labelled corpus (not part of the test suite).

Run: .venv/bin/python -m tests.bench.bench_bash_analyser

For every corpus command it measures, side by side:

1. parsing alone: tree-sitter-bash turning the line into a syntax tree (`Parser.parse`);
2. the full analysis: `analyse(...)` with the line's rules (parse, unwrap, re-parse of nested
   scripts, checks, rule matching, read-only and path checks).

Each command is timed over several rounds and the per-command median kept; the script prints the
median, 90th percentile and maximum over the corpus. Target: median analysis under 1 ms.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from handrail.permissions.bash import analyse
from handrail.permissions.bash.parse import _parser
from tests.bench.report import row as report_row

CORPUS = Path(__file__).resolve().parents[1] / "permissions" / "bash" / "corpus.jsonl"
ROUNDS = 25
TARGET_MS = 1.0


def _median_time(function: object, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        function()  # type: ignore[operator]
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _summary(label: str, seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p90 = ordered[int(len(ordered) * 0.9) - 1]
    return (
        f"{label:<22} median {statistics.median(ordered) * 1e3:8.3f} ms   p90 {p90 * 1e3:8.3f} ms"
        f"   max {ordered[-1] * 1e3:8.3f} ms"
    )


def main() -> int:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    cwd = Path("/work/proj")
    parser = _parser()
    parse_times: list[float] = []
    analyse_times: list[float] = []
    for row in rows:
        data = row["command"].encode("utf-8", "surrogatepass")

        def parse_only(data: bytes = data) -> None:
            parser.parse(data)

        def full(row: dict[str, object] = row) -> None:
            analyse(
                str(row["command"]),
                allow=list(row["allow"]),  # type: ignore[call-overload]
                deny=list(row["deny"]),  # type: ignore[call-overload]
                ask=list(row["ask"]),  # type: ignore[call-overload]
                cwd=cwd,
            )

        full()  # warm caches (compiled rules, parser)
        parse_times.append(_median_time(parse_only, ROUNDS))
        analyse_times.append(_median_time(full, ROUNDS))
    print(f"Bash analyser on {len(rows)} corpus commands ({ROUNDS} rounds each, per-command medians)")
    print(_summary("tree-sitter parse only", parse_times))
    print(_summary("full analyse()", analyse_times))
    ratio = statistics.median(analyse_times) / max(statistics.median(parse_times), 1e-9)
    print(f"analysis / parse (medians): {ratio:.1f}x")
    slowest = sorted(zip(analyse_times, (r["command"] for r in rows), strict=True), reverse=True)[:3]
    for seconds, command in slowest:
        print(f"  slowest {seconds * 1e3:7.3f} ms  {command[:70]!r}")
    median_ms = statistics.median(analyse_times) * 1e3
    verdict = "OK" if median_ms < TARGET_MS else "OVER TARGET"
    print(f"target: median under {TARGET_MS:.1f} ms -> {verdict}")
    report_row("Bash analyser, median corpus command", f"{median_ms:.3f} ms",
        f"tree-sitter parse {statistics.median(parse_times) * 1e3:.3f} ms", ratio,
        target=f"< {TARGET_MS:.0f} ms", ok=median_ms < TARGET_MS)
    return 0 if median_ms < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
