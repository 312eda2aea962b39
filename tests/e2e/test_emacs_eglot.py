"""Real Emacs with Eglot against `handrail lsp` and the scripted model (skipped where Emacs is not installed).

`emacs_driver.el` runs in `emacs -nw` on a terminal of its own, as a user runs it: it connects Eglot,
asks without blocking (`handrail.startAsk`, with the snippet the README shows), answers one prompt,
dismisses one with C-g (never answered), presses RET on one (the pre-filled first action), cancels a
turn, and shuts the server down; only the user at the minibuffer is scripted, everything else is
Eglot's own code.

Not `emacs --batch`: batch Emacs never reads the input a command loop reads, file-notify events
among them, and with one unread (the lock file Emacs makes beside a buffer it first modifies, in a
folder Eglot watches for the server) it runs no process sentinel, so jsonrpc kills the server at
shutdown ("Sentinel … still hasn't run, deleting it!") in a way no user's Emacs does.
"""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from handrail.fake_model import FakeModel, Hold, Reply, Text, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import handrail_command, server_env, tool_results

EMACS = shutil.which("emacs")
SETSID = shutil.which("setsid")
DRIVER = Path(__file__).with_name("emacs_driver.el")
NOTES = "é ☕ 🐍\nalpha\nbeta\n"


def _emacs_major() -> int:
    if EMACS is None:
        return 0
    first = subprocess.run([EMACS, "--version"], capture_output=True, text=True, check=False).stdout.split("\n")[0]
    version = first.rsplit(" ", 1)[-1]  # "GNU Emacs 30.1"
    return int(version.split(".")[0]) if version[:1].isdigit() else 0


pytestmark = pytest.mark.skipif(
    _emacs_major() < 29 or SETSID is None,
    reason="Emacs 29 or later (it has Eglot; Debian: emacs-nox from backports) or setsid is not installed",
)


def _on_terminal(argv: list[str], env: dict[str, str], cwd: Path) -> str:
    """Run `argv` on a pseudo-terminal of its own (its controlling terminal); what it showed, at the end.

    `argv` starts with util-linux's `setsid --ctty --wait`, which makes the terminal (its stdin) the
    controlling terminal of a new session, as a terminal emulator does.
    """
    controller, terminal = pty.openpty()
    shown: list[bytes] = []

    def read_screen() -> None:  # a full pty would block the program's writes
        while chunk := _read(controller):
            shown.append(chunk)

    try:
        program = subprocess.Popen(argv, env=env, cwd=cwd, stdin=terminal, stdout=terminal, stderr=terminal)
        os.close(terminal)
        reader = threading.Thread(target=read_screen, daemon=True)
        reader.start()
        try:
            program.wait(timeout=300)
        finally:
            program.kill()
        reader.join(timeout=10)
    finally:
        os.close(controller)
    return b"".join(shown).decode("utf-8", "replace")


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:  # EIO once the program has closed the terminal
        return b""


def _run_emacs(workspace: Path, model: FakeModel) -> dict[str, Any]:
    assert EMACS is not None and SETSID is not None
    out = workspace.parent / "emacs-results.json"
    env = {
        **server_env(model.base_url, workspace.parent / "state"),
        "HR_WORKSPACE": str(workspace),
        "HR_COMMAND": "\t".join(handrail_command(warm=False)),  # Emacs times the process it started: the real one
        "HR_OUT": str(out),
        "HOME": str(workspace.parent / "home"),  # no user init, no packages
        "TERM": "xterm-256color",
    }
    screen = _on_terminal([SETSID, "--ctty", "--wait", EMACS, "-nw", "-Q", "-l", str(DRIVER)], env, workspace)
    assert out.exists(), f"Emacs wrote no results; its screen ended with:\n{screen[-4000:]}"
    results: dict[str, Any] = json.loads(out.read_text())
    assert "error" not in results, f"{results}\n{screen[-4000:]}"
    return results


def test_eglot_asks_without_blocking_answers_dismisses_cancels_and_shuts_down_cleanly(
    workspace: Path, model: FakeModel
) -> None:
    notes = workspace / "notes.txt"
    notes.write_text(NOTES)
    hold = Hold(Reply.of(Text("too late")))
    model.add(
        Reply.of(ToolUse("Read", {"file_path": str(notes)})),
        Reply.of(ToolUse("Edit", {"file_path": str(notes), "old_string": "beta", "new_string": "BETA"})),
        Reply.of(Text("edited")),
        Reply.of(ToolUse("Bash", {"command": "touch x.txt"})),
        Reply.of(Text("x not made")),
        Reply.of(ToolUse("Bash", {"command": "touch y.txt"})),
        Reply.of(Text("y not made")),
        hold,
    )
    try:
        results = _run_emacs(workspace, model)
    finally:
        hold.release.set()

    # 1. the edit after é ☕ 🐍 landed on the right characters, approved at a prompt that shows the file first
    assert results["edit"]["stopReason"] == "end_turn" and results["edit"]["text"] == "edited"
    assert results["buffer"] == "é ☕ 🐍\nalpha\nBETA\n"
    (edit_result,) = tool_results(model.requests[2])
    assert not edit_result.get("is_error"), result_text(edit_result)
    prompt = results["editPrompt"]
    assert prompt["default"] == "Deny" and prompt["choices"][0] == "Deny"
    assert f"Server reports (type=2): Edit {notes}" in prompt["prompt"]
    # 2. C-g: Eglot never answers; the call is denied after the wait and the user is told once
    assert not (workspace / "x.txt").exists()
    (denied,) = tool_results(model.requests[4])
    assert denied["is_error"] and "no answer within 2 s" in result_text(denied)
    assert sum("counts as Deny" in m for m in results["messages"]) == 1
    # 3. RET takes the pre-filled first action: Deny
    assert not (workspace / "y.txt").exists()
    (refused,) = tool_results(model.requests[6])
    assert "declined" in result_text(refused)
    # 4. cancel
    assert results["cancelAnswer"] == {"cancelled": True}
    assert results["cancelled"]["stopReason"] == "cancelled"
    # every turn's final text was shown in the echo area too (results of startAsk come back at once)
    assert any("handrail: edited" in m for m in results["messages"])
    # 5. shut down: the server wrote nothing after `shutdown` (output then makes jsonrpc stop waiting), and
    # ended by itself before jsonrpc gave up on it (0.1 s) and killed it ("deleting it!", status 9)
    assert "No more requests" not in results["stderr"]
    assert (results["processStatus"], results["exitStatus"]) == ("exit", 0), (results["warnings"], results["stderr"])
    assert results["warnings"] == []
