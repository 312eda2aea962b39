"""A scripted editor for end-to-end tests: a pytest-lsp client that keeps buffers like a real editor.

It applies `workspace/applyEdit` to its own buffers and reports them back with
`didChange`, saves on `handrail/saveDocument`, answers permission prompts from a
queue, and records the chat stream. `skip_stale_edits` mimics Neovim, which
answers `applied: true` yet silently skips an edit whose version is stale, and
`line_ends` its buffers: lines each ended by a line break, so an empty file is
one line break and a text always ends with one. `unshared` are buffers the
editor holds without having opened them to the server (`handrail/shareDocument`
shares them on request when the client declares it).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec
from pytest_lsp import LanguageClient
from pytest_lsp.client import make_test_lsp_client

from handrail.lsp.lsp_values import to_plain
from tests.warm_server import WARM_START

WORKSPACE_ALWAYS = "Always allow … in this workspace"  # an answer that picks the workspace-wide "always"


def handrail_command(*, warm: bool = True) -> list[str]:
    """`handrail lsp`, from the same environment as the tests; under pytest started from the session's warm
    process (tests/warm_server.py) unless `warm` is False or the test is marked `cold_server`."""
    script = Path(sys.executable).parent / "handrail"
    found = str(script) if script.exists() else shutil.which("handrail")
    assert found, "the handrail console script is not installed (pip install -e .)"
    return WARM_START.command([found, "lsp"], warm=warm)


@dataclass
class Editor:
    """The client side of a test: buffers, prompts answered from a queue, the chat log."""

    client: LanguageClient
    root: Path
    buffers: dict[str, TextDocument] = field(default_factory=dict)
    answers: deque[str] = field(default_factory=deque)
    prompts: list[Any] = field(default_factory=list)
    chat: list[dict[str, Any]] = field(default_factory=list)
    edits: list[types.ApplyWorkspaceEditParams] = field(default_factory=list)
    saves: list[str] = field(default_factory=list)
    skip_stale_edits: bool = False
    line_ends: bool = False
    unshared: dict[str, str] = field(default_factory=dict)  # uri -> text of buffers the server was not told of
    share_answer: dict[str, Any] | Exception | None = None  # the answer to every shareDocument, instead of sharing
    share_requests: list[str] = field(default_factory=list)
    encoding: str = "utf-16"
    prompt_started: asyncio.Event = field(default_factory=asyncio.Event)
    release_prompt: asyncio.Event | None = None
    chat_arrived: asyncio.Event = field(default_factory=asyncio.Event)
    question_answers: deque[dict[str, Any] | None] = field(default_factory=deque)  # handrail/askUser results
    permission_answers: deque[dict[str, Any]] = field(default_factory=deque)  # whole handrail/permission results
    after_edit: Callable[[TextDocument], None] | None = None  # e.g. a language server's diagnostics
    elicit_answers: deque[dict[str, Any] | None] = field(default_factory=deque)  # handrail/elicit results
    elicitations: list[dict[str, Any]] = field(default_factory=list)  # the handrail/elicit requests seen
    registrations: list[types.Registration] = field(default_factory=list)  # client/registerCapability
    registered: asyncio.Event = field(default_factory=asyncio.Event)
    # answers window/showMessageRequest instead of the queue (an editor that cannot ask: raise, or never return)
    # what the editor makes of an edit's text before it reports it (another change landing with it)
    edit_transform: Callable[[str], str] | None = None
    held_changes: list[tuple[str, str]] | None = None  # set: applied edits are not reported (a client that blocks)
    prompt_reply: Callable[[types.ShowMessageRequestParams], Awaitable[types.MessageActionItem | None]] | None = None

    def uri(self, path: Path) -> str:
        """The URI the editor uses for `path`."""
        return path.as_uri()

    def open(self, path: Path, text: str | None = None) -> None:
        """Open `path` in a buffer (with `text`, or the disk's content)."""
        content = path.read_text() if text is None else text
        uri = self.uri(path)
        self.buffers[uri] = TextDocument(uri, content, version=1, position_codec=PositionCodec(self.encoding))
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "plaintext", 1, content))
        )

    def type(self, path: Path, text: str) -> None:
        """The user replaces the buffer's text (without saving)."""
        self._set_text(self.uri(path), text)

    def _set_text(self, uri: str, text: str) -> None:
        doc = self.buffers[uri]
        version = (doc.version or 0) + 1
        self.buffers[uri] = TextDocument(uri, text, version=version, position_codec=PositionCodec(self.encoding))
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                [types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def hold(self, path: Path, text: str) -> None:
        """The editor holds `path` in a buffer with `text` but has not opened it to the server."""
        self.unshared[self.uri(path)] = text

    def share(self, uri: str) -> dict[str, Any]:
        """`handrail/shareDocument`: open a held buffer to the server, then say whether there was one."""
        self.share_requests.append(uri)
        if isinstance(self.share_answer, Exception):
            raise self.share_answer
        if self.share_answer is not None:
            return self.share_answer
        text = self.unshared.pop(uri, None)
        if text is None:
            return {"open": False}
        self.open(Path(TextDocument(uri).path), text)
        return {"open": True}

    def buffer(self, path: Path) -> str:
        """The buffer's text."""
        return self.buffers[self.uri(path)].source

    def apply(self, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        """Apply a workspace edit the way editors do."""
        self.edits.append(params)
        for change in params.edit.document_changes or []:
            if isinstance(change, types.CreateFile):
                self._create(change.uri)
                continue
            assert isinstance(change, types.TextDocumentEdit), f"unexpected change {change!r}"
            uri = change.text_document.uri
            doc = self.buffers.get(uri)
            if doc is None:
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason=f"{uri} is not open")
            if change.text_document.version is not None and change.text_document.version != doc.version:
                if self.skip_stale_edits:
                    continue  # Neovim: "Buffer … newer than edits", and still reports applied
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason="version mismatch")
            scratch = TextDocument(uri, doc.source, version=doc.version, position_codec=PositionCodec(self.encoding))
            for edit in sorted(change.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
                assert isinstance(edit, types.TextEdit)
                scratch.apply_change(types.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text))
            text = scratch.source
            if self.line_ends and not text.endswith(("\n", "\r")):
                text += "\n"  # Neovim: the last line ends with a break too ('eol')
            if self.edit_transform is not None:
                text = self.edit_transform(text)
            if self.held_changes is not None:
                self.held_changes.append((uri, text))  # in the buffer, not yet told to the server
                continue
            self._set_text(uri, text)
            if self.after_edit is not None:
                self.after_edit(self.buffers[uri])
        return types.ApplyWorkspaceEditResult(applied=True)

    def report_held_changes(self) -> None:
        """Send the `didChange` of the edits applied while holding them (the client stopped blocking)."""
        held, self.held_changes = self.held_changes or [], None
        for uri, text in held:
            self._set_text(uri, text)

    def _create(self, uri: str) -> None:
        """Like VS Code: an empty file on disk, opened in a buffer."""
        path = Path(TextDocument(uri).path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        self.open(path, "\n" if self.line_ends else "")

    def save(self, uri: str) -> dict[str, bool]:
        """Save a buffer to disk."""
        self.saves.append(uri)
        doc = self.buffers[uri]
        assert doc.path
        Path(doc.path).write_text(doc.source, newline="")
        return {"saved": True}

    async def prompt_shown(self) -> None:
        """A prompt is up: say so, and wait for a test's release first when one is set."""
        self.prompt_started.set()
        if self.release_prompt is not None:
            await self.release_prompt.wait()

    async def answer_prompt(self) -> str | None:
        """The next queued answer (after `prompt_shown`)."""
        await self.prompt_shown()
        return self.answers.popleft() if self.answers else None

    async def ask(self, prompt: str, session_id: str | None = None) -> dict[str, Any]:
        """Run `handrail.ask` and return its result."""
        return await self._asking("handrail.ask", prompt, session_id)

    async def start_ask(self, prompt: str, session_id: str | None = None) -> dict[str, Any]:
        """Run `handrail.startAsk` (answered at once, with the session) and return its result."""
        return await self._asking("handrail.startAsk", prompt, session_id)

    async def _asking(self, command: str, prompt: str, session_id: str | None) -> dict[str, Any]:
        argument: dict[str, Any] = {"prompt": prompt}
        if session_id:
            argument["sessionId"] = session_id
        result = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=[argument])
        )
        assert isinstance(result, dict)
        return result

    async def cancel(self, session_id: str) -> Any:
        """Run `handrail.cancel` for a session and return its result."""
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="handrail.cancel", arguments=[{"sessionId": session_id}])
        )

    async def wait_for_chat(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first chat notification (seen or to come) that `predicate` accepts (within ten seconds)."""
        async with asyncio.timeout(10):
            while True:
                for event in self.chat:
                    if predicate(event):
                        return event
                self.chat_arrived.clear()
                await self.chat_arrived.wait()

    async def wait_for_message(self, predicate: Callable[[types.ShowMessageParams], bool]) -> types.ShowMessageParams:
        """The first `window/showMessage` (seen or to come) that `predicate` accepts (within ten seconds)."""
        async with asyncio.timeout(10):
            while True:
                for message in self.client.messages:
                    if predicate(message):
                        return message
                await self.client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)

    def chat_kinds(self) -> list[str]:
        """The kinds of chat notifications seen, in order."""
        return [event["kind"] for event in self.chat]


def capabilities(
    *, rich: bool, save: bool, extra: dict[str, Any] | None = None, watchers: bool = False
) -> types.ClientCapabilities:
    """Capabilities of a VS Code-like client, with or without handrail's extensions (`extra` adds flags).

    `watchers`: the client registers file watchers dynamically (workspace/didChangeWatchedFiles).
    """
    experimental: dict[str, Any] = {"handrail": {"permissionRequest": rich, "saveDocument": save, **(extra or {})}}
    return types.ClientCapabilities(
        window=types.WindowClientCapabilities(
            work_done_progress=True, show_document=types.ShowDocumentClientCapabilities(support=True)
        ),
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            configuration=True,
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)
            if watchers
            else None,
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True, resource_operations=[types.ResourceOperationKind.Create]
            ),
        ),
        general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf16]),
        experimental=experimental,
    )


async def start_editor(
    root: Path,
    env: dict[str, str],
    *,
    rich: bool = False,
    save: bool = True,
    init_options: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    watchers: bool = False,
    warm: bool = True,
) -> Editor:
    """Launch `handrail lsp` and initialize a session rooted at `root` (`watchers`: see `capabilities`; `warm`:
    see `handrail_command`)."""
    client = make_test_lsp_client()
    editor = Editor(client=client, root=root)

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def _apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return editor.apply(params)

    @client.feature("handrail/saveDocument")
    def _save(params: Any) -> dict[str, bool]:
        return editor.save(params.uri)

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    async def _ask(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        editor.prompts.append(params)
        if editor.prompt_reply is not None:
            return await editor.prompt_reply(params)
        answer = await editor.answer_prompt()
        if answer is None:
            return None
        for action in params.actions or []:
            if answer == WORKSPACE_ALWAYS:
                if action.title.startswith("Always allow") and action.title.endswith("in this workspace"):
                    return action
            elif action.title.startswith(answer):
                return action
        raise AssertionError(f"no action {answer!r} in {[a.title for a in params.actions or []]}")

    @client.feature("handrail/permission")
    async def _permission(params: Any) -> dict[str, Any] | None:
        editor.prompts.append(to_plain(params))
        if editor.permission_answers:
            await editor.prompt_shown()
            return editor.permission_answers.popleft()
        answer = await editor.answer_prompt()
        return {"decision": answer} if answer else None

    @client.feature("handrail/shareDocument")
    def _share(params: Any) -> dict[str, Any]:
        return editor.share(params.uri)

    @client.feature("handrail/askUser")
    async def _ask_user(params: Any) -> dict[str, Any] | None:
        editor.prompts.append(to_plain(params))
        await editor.prompt_shown()
        return editor.question_answers.popleft() if editor.question_answers else None

    @client.feature("handrail/elicit")
    async def _elicit(params: Any) -> dict[str, Any] | None:
        editor.elicitations.append(to_plain(params))
        await editor.prompt_shown()
        return editor.elicit_answers.popleft() if editor.elicit_answers else None
    @client.feature("handrail/mcpApproval")
    async def _mcp_approval(params: Any) -> dict[str, Any] | None:
        editor.prompts.append(to_plain(params))
        answer = await editor.answer_prompt()
        return None if answer is None else {"approved": answer == "Approve"}

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params: types.RegistrationParams) -> None:
        editor.registrations.extend(params.registrations)
        editor.registered.set()

    @client.feature("handrail/chat")
    def _chat(params: Any) -> None:
        editor.chat.append(to_plain(params))
        editor.chat_arrived.set()

    await client.start_io(*handrail_command(warm=warm), env=env, cwd=str(root))
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(rich=rich, save=save, extra=extra, watchers=watchers),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=init_options,
        )
    )
    return editor


def server_env(base_url: str, state_dir: Path) -> dict[str, str]:
    """The environment for the server under test: the fake model, no retry delays, state in a temp folder."""
    return {
        **os.environ,
        "HANDRAIL_STATE_DIR": str(state_dir),
        "XDG_STATE_HOME": str(state_dir / "xdg-state"),
        "XDG_CONFIG_HOME": str(state_dir / "xdg-config"),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "HANDRAIL_RETRY_BASE_DELAY": "0",
        "HANDRAIL_LOG_LEVEL": "WARNING",
    }


def system_text(request: dict[str, Any]) -> str:
    """A model request's system prompt as text (it is sent as text blocks when marked for caching)."""
    system = request.get("system") or ""
    return system if isinstance(system, str) else "".join(block.get("text", "") for block in system)


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of the last user message of a model request."""
    content = request["messages"][-1]["content"]
    if isinstance(content, str):
        return []
    return [block for block in content if block.get("type") == "tool_result"]
