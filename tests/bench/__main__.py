"""Run every benchmark, one after another, and print their results as one table.

Run from the repository root: .venv/bin/python -m tests.bench [--only NAME ...] [--quick]

Each benchmark is its own process (`python -m tests.bench.<name>`), so none inherits another's
imports, caches or memory. Their own output is shown as it comes; the rows they report
(`tests.bench.report.row`) are gathered into a Markdown table at the end.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from tests.bench.report import MARK

BENCHMARKS: dict[str, list[str]] = {
    "bench_permissions": [],
    "bench_engine": [],
    "bench_bash_analyser": [],
    "bench_bash_decision": [],
    "bench_mcp_startup": [],
    "bench_server": [],
    "bench_file_tools": [],
    "bench_session": [],
    "bench_bounds": [],
    "bench_monorepo": [],
    "bench_exit": [],
}
QUICK: dict[str, list[str]] = {"bench_server": ["--turns", "100", "--context-window", "20000"],
                               "bench_file_tools": ["--files", "5000", "--megabytes", "50"],
                               "bench_bounds": ["--megabytes", "20", "--hook-megabytes", "50"],
                               "bench_monorepo": ["--files", "20000"]}
HEADER = ("measurement", "handrail", "side by side", "ratio", "target", "")


def run(name: str, args: list[str]) -> tuple[list[tuple[str, ...]], int]:
    """Run one benchmark, echoing its output; returns its rows and exit status."""
    print(f"== {name} {' '.join(args)}".rstrip(), flush=True)
    rows: list[tuple[str, ...]] = []
    with subprocess.Popen([sys.executable, "-m", f"tests.bench.{name}", *args], stdout=subprocess.PIPE,
                          text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(MARK):
                rows.append(tuple(line[len(MARK):].rstrip("\n").split("\t")))
            else:
                print("   " + line, end="", flush=True)
    return rows, proc.returncode


def table(rows: list[tuple[str, ...]]) -> str:
    """The rows as a Markdown table."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="+", choices=sorted(BENCHMARKS), help="run only these")
    parser.add_argument("--quick", action="store_true", help="smaller trees and fewer turns (not the targets' sizes)")
    options = parser.parse_args()
    started = time.perf_counter()
    rows: list[tuple[str, ...]] = []
    failed: list[str] = []
    for name in options.only or BENCHMARKS:
        args = QUICK.get(name, []) if options.quick else BENCHMARKS[name]
        found, status = run(name, args)
        rows += found
        if not found and status == 0:  # a benchmark that reports in its own words only
            rows.append((name, "see its output above", "-", "-", "-", "-"))
        elif not found:
            failed.append(name)
            rows.append((name, "failed", "-", "-", "-", f"exit {status}"))
    print(f"\n{table(rows)}\n")
    print(f"{len(rows)} measurements in {time.perf_counter() - started:.0f} s; "
          f"{sum(r[-1] == 'MISSED' for r in rows)} missed their target")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
