"""Run the demo: the real server over stdio, the real SDK, a scripted model on 127.0.0.1.

The demo plays a small editor client: it prints the streamed answer and each
tool call, shows the diff of every change it is asked to approve, and approves.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from handrail.fake_model import FakeModel, Reply, Text, ToolUse
from handrail.lsp.lsp_values import to_plain

SAMPLE = Path(__file__).parent / "sample"

_BOLD, _DIM, _RED, _GREEN, _CYAN, _RESET = "\033[1m", "\033[2m", "\033[31m", "\033[32m", "\033[36m", "\033[0m"


def _color(enabled: bool) -> dict[str, str]:
    names = ("bold", "dim", "red", "green", "cyan", "reset")
    codes = (_BOLD, _DIM, _RED, _GREEN, _CYAN, _RESET)
    return {n: (c if enabled else "") for n, c in zip(names, codes, strict=True)}


def demo_script(root: Path) -> list[Reply]:
    """What the scripted model says: read, search, fix the bug, run the checks, report."""
    calculator = root / "calculator.py"
    return [
        Reply.of(Text("Let me look at the calculator first."), ToolUse("Read", {"file_path": str(calculator)})),
        Reply.of(ToolUse("Grep", {"pattern": "average", "path": str(root), "output_mode": "content"})),
        Reply.of(
            Text("The average divides by one less than the number of values. Fixing it."),
            ToolUse(
                "Edit",
                {
                    "file_path": str(calculator),
                    "old_string": "return total / (len(values) - 1)",
                    "new_string": "return total / len(values)",
                },
            ),
        ),
        Reply.of(ToolUse("Bash", {"command": "python3 check_calculator.py", "description": "Run the checks"})),
        Reply.of(Text("Fixed `average` in calculator.py: it now divides by `len(values)`, and the checks pass.")),
    ]


def _print_diff(diff: str, c: dict[str, str]) -> None:
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            print(f"    {c['green']}{line}{c['reset']}")
        elif line.startswith("-") and not line.startswith("---"):
            print(f"    {c['red']}{line}{c['reset']}")
        else:
            print(f"    {c['dim']}{line}{c['reset']}")


async def _session(root: Path, base_url: str, c: dict[str, str]) -> dict[str, Any]:
    client = LanguageClient("handrail-demo", "0.1")
    at_line_start = True

    @client.feature("handrail/chat")
    def on_chat(params: Any) -> None:
        nonlocal at_line_start
        event = to_plain(params)
        kind = event["kind"]
        if kind == "text":
            print(event["text"], end="", flush=True)
            at_line_start = event["text"].endswith("\n")
            return
        if not at_line_start:
            print()
            at_line_start = True
        if kind == "toolStart":
            print(f"{c['cyan']}● {event['summary']}{c['reset']}")
        elif kind == "toolResult":
            preview = event["preview"].strip("\n").splitlines()
            shown = preview[:6]
            color = c["red"] if event["isError"] else c["dim"]
            for line in shown:
                print(f"  {color}│ {line}{c['reset']}")
            if len(preview) > len(shown):
                print(f"  {c['dim']}│ … {len(preview) - len(shown)} more lines{c['reset']}")
        elif kind == "permission":
            print(f"  {c['bold']}✓ user answered: {event['decision']}{c['reset']}")
        elif kind == "retry":
            print(f"  {c['dim']}(retrying: {event['reason']}){c['reset']}")

    @client.feature("handrail/permission")
    def on_permission(params: Any) -> dict[str, str]:
        request = to_plain(params)
        reason = f"{c['dim']}({request['reason']}){c['reset']}"
        print(f"  {c['bold']}? permission: {request['summary']}{c['reset']} {reason}")
        if request.get("diff"):
            _print_diff(request["diff"], c)
        return {"decision": "allow"}

    env = {**os.environ, "ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "demo-key"}
    handrail = Path(sys.executable).parent / "handrail"
    command = [str(handrail), "lsp"] if handrail.exists() else [sys.executable, "-m", "handrail.cli", "lsp"]
    await client.start_io(*command, env=env, cwd=str(root))
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(experimental={"handrail": {"permissionRequest": True}}),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        )
    )
    client.initialized(types.InitializedParams())
    prompt = "average() in calculator.py gives the wrong answer. Please fix it and run the checks."
    print(f"{c['bold']}> {prompt}{c['reset']}\n")
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="handrail.ask", arguments=[{"prompt": prompt}])
    )
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return dict(result) if isinstance(result, dict) else {}


def run_demo(keep: bool = False) -> int:
    """Copy the sample workspace, run one turn against the scripted model, print it all."""
    c = _color(sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    tmp = Path(tempfile.mkdtemp(prefix="handrail-demo-"))
    root = (tmp / "sample").resolve()
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("__pycache__"))
    try:
        with FakeModel(demo_script(root)) as model:
            print(f"{c['dim']}workspace: {root}\nscripted model: {model.base_url}{c['reset']}")
            result = asyncio.run(_session(root, model.base_url, c))
        print(f"\n{c['bold']}stop reason: {result.get('stopReason')}{c['reset']}")
        fixed = "return total / len(values)" in (root / "calculator.py").read_text()
        print(f"calculator.py fixed on disk: {'yes' if fixed else 'no'}")
        return 0 if fixed and result.get("stopReason") == "end_turn" else 1
    finally:
        if keep:
            print(f"{c['dim']}kept {root}{c['reset']}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
