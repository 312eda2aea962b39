"""Test helpers for the tools: a context over a temporary directory, an editor-buffer file system, running calls."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handrail.tools.context import PermissionAnswer, PermissionRequest, ToolOptions, ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.execution import CallOutcome, ToolUse
from handrail.tools.file_state import FileStateCache
from handrail.tools.filesystem import (
    DiskFileSystem,
    FileSnapshot,
    WorkspaceFileSystem,
    WriteConflictError,
    WriteOutcome,
    text_hash,
)
from handrail.tools.protocol import Tool
from handrail.tools.streaming_executor import StreamingToolExecutor

BUFFER_NOTE = "The change is in the editor buffer and not saved to disk yet."


class NoPrompter:
    """A prompter for tests where asking the user would be a bug."""

    async def ask_permission(self, request: PermissionRequest) -> PermissionAnswer:
        raise AssertionError(f"the user must not be asked here: {request}")


class ProgressRecorder:
    """Records progress lines, and lets a test wait for one."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []
        self._changed = asyncio.Event()

    @property
    def messages(self) -> list[str]:
        return [message for kind, _, message in self.events if kind == "progress"]

    def tool_started(self, tool_use_id: str, name: str, summary: str) -> None:
        self.events.append(("started", tool_use_id, summary))

    def tool_progress(self, tool_use_id: str, message: str) -> None:
        self.events.append(("progress", tool_use_id, message))
        self._changed.set()

    def tool_finished(self, tool_use_id: str, *, is_error: bool, text: str) -> None:
        self.events.append(("finished", tool_use_id, text))

    async def wait_for(self, text: str) -> None:
        """Wait until a progress line contains `text` (bounded, so a broken tool fails the test)."""
        async with asyncio.timeout(10):
            while not any(text in message for message in self.messages):
                self._changed.clear()
                await self._changed.wait()


@dataclass
class Buffer:
    """An open editor document."""

    text: str
    version: int = 1
    dirty: bool = False


class BufferFileSystem(DiskFileSystem):
    """Disk, plus open editor buffers that shadow some paths (as the server's file system does).

    `writes` records every write (path, label), so tests can check one write per tool call.
    """

    def __init__(self) -> None:
        self.buffers: dict[Path, Buffer] = {}
        self.writes: list[tuple[Path, str]] = []

    def open(self, path: Path, text: str | None = None) -> Buffer:
        """Open `path` in the "editor" (with its disk text unless `text` is given)."""
        buffer = Buffer(path.read_text() if text is None else text, dirty=text is not None)
        self.buffers[path] = buffer
        return buffer

    def type(self, path: Path, text: str) -> None:
        """The user changes the buffer's text."""
        buffer = self.buffers[path]
        buffer.text = text
        buffer.version += 1
        buffer.dirty = True

    async def read(self, path: Path, *, max_bytes: int | None = None) -> FileSnapshot:
        buffer = self.buffers.get(path)
        if buffer is None:
            return await super().read(path, max_bytes=max_bytes)
        return FileSnapshot(path=path, text=buffer.text, source="buffer", version=buffer.version, dirty=buffer.dirty)

    async def dirty_buffers(self) -> Mapping[Path, str]:
        """Open buffers whose text differs from the disk (or that have no file on disk)."""
        found: dict[Path, str] = {}
        for path, buffer in self.buffers.items():
            try:
                disk = path.read_text()
            except OSError:
                disk = None
            if disk != buffer.text:
                found[path] = buffer.text
        return found

    async def write(self, path: Path, text: str, *, base: FileSnapshot | None, label: str) -> WriteOutcome:
        self.writes.append((path, label))
        buffer = self.buffers.get(path)
        if buffer is None:
            return await super().write(path, text, base=base, label=label)
        if base is not None and base.content_hash != text_hash(buffer.text):
            raise WriteConflictError(f"{path} changed in the editor")
        self.type(path, text)
        return WriteOutcome(path=path, on_disk=False, in_buffer=True, note=BUFFER_NOTE)


def make_context(root: Path, fs: WorkspaceFileSystem | None = None) -> ToolUseContext:
    """A context over `root` with the disk (or `fs`), an empty file-state cache and a progress recorder."""
    return ToolUseContext(
        options=ToolOptions(cwd=root, workspace_roots=(root,)),
        fs=fs or DiskFileSystem(),
        file_state=FileStateCache(),
        prompter=NoPrompter(),
        progress=ProgressRecorder(),
        tool_use_id="toolu_test",
    )


def recorder(ctx: ToolUseContext) -> ProgressRecorder:
    """The progress recorder of a context made by `make_context`."""
    assert isinstance(ctx.progress, ProgressRecorder)
    return ctx.progress


async def run_block(tool: Tool[Any], ctx: ToolUseContext, **raw: Any) -> dict[str, Any]:
    """Run a tool the way the executor does (parse, validate, call) and return its tool_result block.

    A failed validation raises ToolError, like a failing call does.
    """
    value = tool.input_model.model_validate(raw)
    check = await tool.validate_input(value, ctx)
    if not check.ok:
        raise ToolError(check.message)
    result = await tool.call(value, ctx)
    block = tool.map_result_to_block(result.data, ctx.tool_use_id)
    assert block["type"] == "tool_result" and block["tool_use_id"] == ctx.tool_use_id
    return block


async def run_tools(uses: Sequence[ToolUse], tools: Sequence[Tool[Any]], ctx: ToolUseContext) -> list[CallOutcome]:
    """Run a whole message's calls through the streaming executor and return one outcome per call, in order."""
    executor = StreamingToolExecutor(tools, ctx)
    for use in uses:
        executor.add(use)
    return await executor.collect()


async def run(tool: Tool[Any], ctx: ToolUseContext, **raw: Any) -> str:
    """Run a tool like `run_block` and return the result text (which must be a plain string)."""
    content = (await run_block(tool, ctx, **raw))["content"]
    assert isinstance(content, str)
    return content


def make_pdf(pages: list[str]) -> bytes:
    """A minimal PDF with one page per item of `pages`, each line of it written in Helvetica."""
    count = len(pages)
    page_ids = [4 + 2 * index for index in range(count)]
    objects: dict[int, bytes] = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: f"<< /Type /Pages /Kids [{' '.join(f'{p} 0 R' for p in page_ids)}] /Count {count} >>".encode(),
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    }
    for page_id, text in zip(page_ids, pages, strict=True):
        shown = " T* ".join(f"({_pdf_string(line)}) Tj" for line in text.split("\n"))
        stream = f"BT /F1 12 Tf 14 TL 72 720 Td {shown} ET".encode("latin-1")
        objects[page_id] = (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {page_id + 1} 0 R >>"
        ).encode()
        objects[page_id + 1] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)
    out = bytearray(b"%PDF-1.4\n")
    offsets: dict[int, int] = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, objects[number])
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for number in sorted(objects):
        out += f"{offsets[number]:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _pdf_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
