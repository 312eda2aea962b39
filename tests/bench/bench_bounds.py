"""What large inputs cost the server's memory, side by side with the same calls on small ones (not a test).

Run: .venv/bin/python -m tests.bench.bench_bounds [--megabytes 100] [--hook-megabytes 300]

A real `handrail lsp` against the fake model. Each measured turn starts with the server's peak RSS
reset (`/proc/<pid>/clear_refs`); what is reported is the peak during the turn above the RSS before
it, for a turn on a large input and the same turn on a 1 KB one:

1. Read 5 lines of a 100 MB file (offset/limit).
2. Read that file whole (refused: it is over the size read at once) and Edit it (refused: over the
   size the edit tools load).
3. A PreToolUse hook that prints 300 MB (and blocks the call), against one that prints a line.

Target: the large turn's peak within 5 MB of the small one's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from tests.bench.report import row
from tests.e2e.editor import Editor, server_env, start_editor

MB = 1024 * 1024
TARGET_MB = 5.0


def _status_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/{pid}/status")


def _reset_peak(pid: int) -> None:
    """The peak RSS starts again from the current RSS."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


async def _peak_growth(editor: Editor, model: FakeModel, *replies: Reply) -> float:
    """The server's peak RSS during one turn above its RSS before it, in MB."""
    server = editor.client._server
    assert server is not None
    _reset_peak(server.pid)
    before = _status_mb(server.pid, "VmRSS")
    model.add(*replies)
    result = await editor.ask("go")
    assert result["stopReason"] == "end_turn", result
    return _status_mb(server.pid, "VmHWM") - before


def _log(path: Path, megabytes: float) -> Path:
    line = "2026-12-01T10:00:00 INFO request served in 3 ms " + "." * 15 + "\n"  # 64 bytes
    with path.open("w") as handle:
        for _ in range(int(megabytes * MB) // len(line)):
            handle.write(line)
    return path


def _hooks(root: Path, megabytes: int) -> None:
    config = root.parent / "state" / "xdg-config" / "handrail"
    config.mkdir(parents=True, exist_ok=True)
    big = f"head -c {megabytes * MB} /dev/zero | tr '\\0' e >&2; exit 2"
    small = "echo one line >&2; exit 2"
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": big}]},
                            {"matcher": "Grep", "hooks": [{"type": "command", "command": small}]}]}
    (config / "settings.json").write_text(json.dumps({"hooks": hooks}))


def _report(label: str, large: float, small: float, reference: str) -> bool:
    ok = large - small < TARGET_MB
    print(f"  {label:<52} peak +{large:6.1f} MB   {reference}: +{small:5.1f} MB")
    row(label, f"+{large:.1f} MB peak", f"{reference} +{small:.1f} MB", None,
        target=f"within {TARGET_MB:g} MB", ok=ok)
    return ok


async def bench(root: Path, megabytes: int, hook_megabytes: int) -> bool:
    big = _log(root / "big.log", megabytes)
    small = _log(root / "small.log", 1 / 1024)
    _hooks(root, hook_megabytes)
    with FakeModel() as model:
        editor = await start_editor(root, server_env(model.base_url, root.parent / "state"))
        try:
            # warm up: the agent's side of the server loads with the first turn
            await _peak_growth(editor, model, Reply.of(ToolUse("Read", {"file_path": str(small)})), Reply.of("ok"))

            def read(path: Path, **window: int) -> Reply:
                return Reply.of(ToolUse("Read", {"file_path": str(path), **window}))

            def edit(path: Path) -> Reply:
                return Reply.of(ToolUse("Edit", {"file_path": str(path), "old_string": "x", "new_string": "y"}))

            print(f"Server peak RSS per turn (a {megabytes} MB file, a hook printing {hook_megabytes} MB):")
            results = [
                _report(f"Read 5 lines of a {megabytes} MB file",
                        await _peak_growth(editor, model, read(big, offset=1, limit=5), Reply.of(Text("ok"))),
                        await _peak_growth(editor, model, read(small, offset=1, limit=5), Reply.of(Text("ok"))),
                        "of a 1 KB file"),
                _report(f"Read and Edit a {megabytes} MB file whole (refused)",
                        await _peak_growth(editor, model, read(big), edit(big), Reply.of(Text("ok"))),
                        await _peak_growth(editor, model, read(small), edit(small), Reply.of(Text("ok"))),
                        "a 1 KB file"),
                _report(f"a PreToolUse hook printing {hook_megabytes} MB",
                        await _peak_growth(editor, model, Reply.of(ToolUse("Bash", {"command": "true"})),
                                           Reply.of(Text("ok"))),
                        await _peak_growth(editor, model, Reply.of(ToolUse("Grep", {"pattern": "x"})),
                                           Reply.of(Text("ok"))),
                        "one printing a line"),
            ]
        finally:
            await editor.client.shutdown_session()
            await editor.client.stop()
    return all(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--hook-megabytes", type=int, default=300)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="handrail-bench-") as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        ok = asyncio.run(bench(root.resolve(), options.megabytes, options.hook_megabytes))
    print("OK" if ok else "MISSED a target")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
