"""The one line each benchmark prints per measurement, for `python -m tests.bench` to gather into its table."""

from __future__ import annotations

MARK = "BENCH\t"


def row(name: str, measured: str, reference: str, ratio: float | None, *, target: str, ok: bool | None) -> None:
    """Print one table row: what was measured, what it was measured against, their ratio, the target."""
    verdict = "-" if ok is None else ("ok" if ok else "MISSED")
    shown = "-" if ratio is None else f"{ratio:.2f}x"
    print(MARK + "\t".join((name, measured, reference, shown, target, verdict)), flush=True)
