"""`HandrailServer`: the language server's state across requests, and the connection the agent reports through.

Only the LSP side is built before `initialize` is answered; the agent (`AgentHost`: sessions, permissions,
MCP servers…) is imported and made on first use, so the editor's handshake does not wait for pydantic,
the tools and the permission engine to load.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from lsprotocol import types
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from handrail import __version__
from handrail.lsp.client_features import ClientFeatures
from handrail.lsp.document_watch import DocumentWatch
from handrail.lsp.documents import BlockDocument
from handrail.lsp.framing import BoundedReader, max_message_bytes
from handrail.lsp.protocol import HandrailProtocol

if TYPE_CHECKING:
    from handrail.agent.host import AgentHost
    from handrail.agent.ports import EditorPorts
    from handrail.lsp.diagnostics_store import DiagnosticsStore
    from handrail.lsp.plain_prompts import PlainPrompts
    from handrail.wire.models import AskResult

log = logging.getLogger(__name__)
SHOWN_TEXT_CHARS = 4000  # a turn's final text in window/showMessage (the log has all of it)


class DetachedExecutor(ThreadPoolExecutor):
    """The event loop's default executor, which does not wait for its threads when the loop closes.

    After `exit` the process ends at once (cli.exit_now); a thread still at work — the warm-up importing the
    model SDK right after start, a file read — must not hold that up (it did for seconds; editors kill a
    server that is slow to exit).
    """

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop taking work and drop what is queued; never wait for running threads."""
        super().shutdown(wait=False, cancel_futures=True)


class HandrailServer(LanguageServer):
    """The language server: the client's documents, settings and capabilities, and the agent it serves.

    It is the agent's `Workspace` and `Notices` (agent/ports.py); `editor_ports()` makes the rest of what
    an operation needs of the editor.
    """

    protocol: HandrailProtocol

    def __init__(self) -> None:
        super().__init__(
            "handrail",
            __version__,
            protocol_cls=HandrailProtocol,
            # Incremental sync, applied by lsp/documents.py rather than pygls (which splits
            # lines like str.splitlines and rebuilds the whole text on every change).
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.document_watch = DocumentWatch()
        self.options: dict[str, Any] = {}
        self.pushed_settings: dict[str, Any] = {}
        self.trusted: bool | None = None  # the editor's word on workspace trust, when it gives one
        self.features = ClientFeatures()
        self.message_limit = max_message_bytes()
        self.exit_code = 0  # pygls's: 1 when `exit` came without `shutdown` first
        self.exit_at_once = False  # the console script's server: `exit` ends the process (lsp/process_exit.py)

    def _start_io_async(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio as pygls 2.1.1 does, reading the client's messages through a `BoundedReader`."""
        self._stop_event = threading.Event()
        reader = BoundedReader(stdin or sys.stdin.buffer, self.message_limit, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            with asyncio.Runner() as runner:
                runner.get_loop().set_default_executor(DetachedExecutor())
                runner.run(run_async(self._stop_event, reader, self.protocol, log, self.report_server_error))
        except BrokenPipeError:
            log.error("the client's end of the connection is gone; stopping")
        except SystemExit as stop:  # `exit`
            self.exit_code = stop.code if isinstance(stop.code, int) else 0
        except KeyboardInterrupt:
            pass
        finally:
            self.shutdown()

    def shutdown(self) -> None:
        """Stop serving, without waiting for the thread that may still be reading the client's pipe."""
        if self._stop_event is not None:
            self._stop_event.set()
        if self._thread_pool is not None:
            self._thread_pool.shutdown(wait=False, cancel_futures=True)
        if self._server is not None:
            self._server.close()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Answer unreadable input in JSON-RPC terms; other errors as pygls does (a message to the user)."""
        if not self.protocol.answer_unreadable(error):
            super().report_server_error(error, source)

    @cached_property
    def agent(self) -> AgentHost:
        """The agent: sessions, permissions, MCP servers, model clients and turns."""
        from handrail.agent.host import AgentHost
        from handrail.lsp.editor import LspDialogs
        from handrail.lsp.mcp_client_ui import LspMcpClient

        mcp_client = LspMcpClient(self, lambda: self.features, self.roots)
        return AgentHost(self, self, mcp_client=mcp_client, dialogs=LspDialogs(self))

    @cached_property
    def diagnostics(self) -> DiagnosticsStore:
        """The diagnostics the client forwards (`handrail/diagnostics`)."""
        from handrail.lsp.diagnostics_store import DiagnosticsStore

        return DiagnosticsStore(self._diagnostic_column)

    @cached_property
    def plain_prompts(self) -> PlainPrompts:
        """`window/showMessageRequest` prompts, one at a time, failing closed (lsp/plain_prompts.py)."""
        from handrail.lsp.plain_prompts import PlainPrompts, prompt_timeout

        return PlainPrompts(self, lambda: prompt_timeout(self.options))

    def editor_ports(self) -> EditorPorts:
        """The editor as an operation of the agent works with it."""
        from handrail.lsp.editor import editor_ports

        return editor_ports(self)

    def _diagnostic_column(self, uri: str, line: int, character: int) -> int | None:
        """A diagnostic's character (counted as the client counts) as an index into the open document's line."""
        document = self.workspace.text_documents.get(uri)
        return document.column(line, character) if isinstance(document, BlockDocument) else None

    # ------------------------------------------------------------------ the agent's Workspace

    def roots(self) -> tuple[Path, ...]:
        """The workspace folders the client opened (the process's cwd when it named none)."""
        roots: list[Path] = []
        for folder in self.workspace.folders.values():
            path = to_fs_path(folder.uri)
            if path:
                roots.append(Path(path))
        if not roots and self.workspace.root_path:
            roots.append(Path(self.workspace.root_path))
        return tuple(roots) or (Path.cwd(),)

    def init_options(self) -> Mapping[str, Any]:
        """The client's `initializationOptions` (an object, or nothing)."""
        return self.options

    def client_trusted(self) -> bool | None:
        """Whether the client says the workspace is trusted (None: it says nothing)."""
        return self.trusted

    # ------------------------------------------------------------------ the agent's Notices

    def warn(self, message: str) -> None:
        """Tell the user something went wrong that they can fix (and log it)."""
        log.warning("%s", message)
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    def held_back(self, message: str) -> None:
        """Inactive rules and settings: a client that shows them itself (`permissionReport`) gets a log line, so
        one cause does not also pop a toast on every server start."""
        if self.features.permission_report:
            log.warning("%s", message)
            self.log(message, warning=True)
        else:
            self.warn(message)

    def turn_finished(self, outcome: AskResult | Exception) -> None:
        """Show how a turn started with `handrail.startAsk` ended: its final text, or what stopped it."""
        if isinstance(outcome, Exception):
            self.warn(f"handrail could not run the turn: {outcome}")
            return
        ended = "" if outcome.stop_reason == "end_turn" else f" ({outcome.stop_reason})"
        if outcome.error is not None:
            ended = f" ({outcome.error.message})"
        text = outcome.text.strip() or "(no text)"
        message = f"handrail{ended}: {text}"
        self.log(message)
        shown = message if len(message) <= SHOWN_TEXT_CHARS else message[: SHOWN_TEXT_CHARS - 1] + "…"
        kind = types.MessageType.Info if not ended else types.MessageType.Warning
        self.window_show_message(types.ShowMessageParams(type=kind, message=shown))

    def log(self, message: str, *, warning: bool = False) -> None:
        """A line for the client's log of the server (`window/logMessage`)."""
        kind = types.MessageType.Warning if warning else types.MessageType.Info
        self.window_log_message(types.LogMessageParams(type=kind, message=message))
