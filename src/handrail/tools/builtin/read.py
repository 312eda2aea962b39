"""Read: show a file to the model.

Text files come numbered like `cat -n` (the editor's unsaved text when the file is open);
images come as image blocks (scaled down when huge), PDFs as text page by page, and
Jupyter notebooks cell by cell with their outputs.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

from pydantic import Field

from handrail.tools.builtin._common import (
    ToolInput,
    missing_file_message,
    read_error,
    read_existing,
    reported_paths,
    require_absolute,
    size_text,
    validator,
    with_notes,
)
from handrail.tools.context import ToolUseContext
from handrail.tools.errors import ToolError
from handrail.tools.filesystem import BinaryFileError, FileSnapshot, FileTooLargeError
from handrail.tools.images import ImageError, is_image_path, prepare_image, sniff_media_type
from handrail.tools.messages import ToolResultBlock
from handrail.tools.notebooks import NotebookError, parse_notebook, render_notebook
from handrail.tools.pdf import MAX_PAGES_PER_READ, PAGES_REQUIRED_ABOVE, PdfError, extract_pages, format_pages, is_pdf
from handrail.tools.protocol import ToolResult, build_tool, default_result_block
from handrail.tools.text_ops import MAX_LINE_CHARS, cut_line, line_window, numbered
from handrail.tools.text_window import read_window

DEFAULT_LIMIT = 2000
MAX_OUTPUT_CHARS = 100_000
MAX_TEXT_CHARS = 256 * 1024
"""Text files larger than this are only read with offset/limit."""
MAX_TEXT_BYTES = MAX_TEXT_CHARS
"""Text files on disk larger than this are never loaded whole: a window of lines is read from them."""
MAX_BINARY_BYTES = 32 * 1024 * 1024
"""Images and PDFs larger than this are not loaded."""

EMPTY_FILE = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
DIRTY_NOTE = (
    "<system-reminder>This is the unsaved text of the file as it is open in the editor; "
    "the file on disk differs.</system-reminder>"
)


class ReadInput(ToolInput):
    # No docstring: it would become the schema description the model sees.
    file_path: str = Field(description="The absolute path to the file to read")
    offset: int | None = Field(
        default=None,
        ge=0,
        description="The line number to start reading from. Only provide if the file is too large to read at once",
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        description="The number of lines to read. Only provide if the file is too large to read at once.",
    )
    pages: str | None = Field(
        default=None,
        description=f'Page range for PDF files (e.g., "1-5", "3", "10-20"). Only applicable to PDF files. '
        f"Maximum {MAX_PAGES_PER_READ} pages per request.",
    )


PROMPT = f"""Reads a file from the local filesystem. You can access any file directly by using this tool.
Assume this tool is able to read all files on the machine. If the User provides a path to a file assume that path is valid. It is okay to read a file that does not exist; an error will be returned.

Usage:
- The file_path parameter must be an absolute path, not a relative path
- By default, it reads up to {DEFAULT_LIMIT} lines starting from the beginning of the file
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters. Files over {MAX_TEXT_CHARS // 1024} KB must be read with offset and limit (or searched with Grep)
- Any lines longer than {MAX_LINE_CHARS} characters will be truncated
- Results are returned using cat -n format, with line numbers starting at 1
- When the file is open in the editor with unsaved changes, you see the editor's text: that is what edits apply to
- This tool allows reading images (PNG, JPG, GIF, WebP): their contents are presented visually. Very large images are scaled down
- This tool can read PDF files (.pdf): their text is extracted page by page. For PDFs over {PAGES_REQUIRED_ABOVE} pages you must give the pages parameter (e.g. "1-5"), at most {MAX_PAGES_PER_READ} pages per request
- This tool can read Jupyter notebooks (.ipynb files) and returns all cells with their outputs, combining code, text, and visualizations
- This tool cannot read directories. To list a directory, use Glob or `ls` via the Bash tool
- You must read a file before you edit or overwrite it with the Edit, MultiEdit, Write or NotebookEdit tools
- If you read a file that exists but has empty contents you will receive a system reminder warning in place of file contents."""  # noqa: E501


async def _check(value: ReadInput, _: ToolUseContext) -> None:
    path = require_absolute(value.file_path)
    if value.pages is not None and path.suffix.lower() != ".pdf":
        raise ToolError("pages applies only to PDF files; use offset and limit to read part of a text file.")


async def _call(value: ReadInput, ctx: ToolUseContext) -> ToolResult:
    await _check(value, ctx)
    path = require_absolute(value.file_path)
    suffix = path.suffix.lower()
    if is_image_path(path):
        return await _read_image(path, await _bytes(ctx, path))
    if suffix == ".pdf":
        return await _read_pdf(path, await _bytes(ctx, path), value.pages)
    if suffix == ".ipynb":
        return await _read_notebook(path, ctx)
    try:
        snapshot = await ctx.fs.read(path, max_bytes=MAX_TEXT_BYTES)
    except FileNotFoundError as exc:
        raise ToolError(await missing_file_message(path, ctx.options.cwd)) from exc
    except FileTooLargeError as exc:
        return await _read_large(value, path, exc.size, ctx)
    except BinaryFileError as exc:
        return await _read_binary(value, path, exc, ctx)
    except OSError as exc:
        raise read_error(path, exc) from exc
    return _read_text(value, snapshot, ctx)


async def _read_binary(value: ReadInput, path: Path, exc: BinaryFileError, ctx: ToolUseContext) -> ToolResult:
    """An image or PDF by content under another name is still shown as one; other binary files are refused."""
    head = await _bytes(ctx, path, head=True)
    if sniff_media_type(head) is None and not is_pdf(head):
        raise read_error(path, exc) from exc
    data = await _bytes(ctx, path)
    if sniff_media_type(data) is not None:
        return await _read_image(path, data)
    return await _read_pdf(path, data, value.pages)


async def _bytes(ctx: ToolUseContext, path: Path, *, head: bool = False) -> bytes:
    """The file's bytes (within MAX_BINARY_BYTES), or with `head` only its first KB (to tell what it is)."""
    try:
        if head:
            return await asyncio.to_thread(_head, path)
        return await ctx.fs.read_bytes(path, max_bytes=MAX_BINARY_BYTES)
    except FileNotFoundError as exc:
        raise ToolError(await missing_file_message(path, ctx.options.cwd)) from exc
    except FileTooLargeError as exc:
        raise ToolError(
            f"{path} is {size_text(exc.size)}; Read shows images and PDFs up to {size_text(exc.limit)}."
        ) from exc
    except OSError as exc:
        raise read_error(path, exc) from exc


def _head(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(1024)


async def _read_large(value: ReadInput, path: Path, size: int, ctx: ToolUseContext) -> ToolResult:
    """A text file too large to load: a window of its lines, read without loading the rest."""
    if value.offset is None and value.limit is None:
        head = await _bytes(ctx, path, head=True)
        if sniff_media_type(head) is not None or is_pdf(head):
            return await _read_binary(value, path, BinaryFileError("not text"), ctx)
        raise ToolError(
            f"File content ({size_text(size)}) exceeds the maximum size that can be read at once "
            f"({MAX_TEXT_BYTES // 1024} KB). Use offset and limit to read specific parts of the file "
            "(e.g. offset=1, limit=500), or use Grep to search for specific content."
        )
    start = max(value.offset or 1, 1)
    try:
        window = await asyncio.to_thread(read_window, path, start, value.limit or DEFAULT_LIMIT)
    except BinaryFileError as exc:
        return await _read_binary(value, path, exc, ctx)
    except OSError as exc:
        raise read_error(path, exc) from exc
    if not window.lines:
        return ToolResult(
            f"<system-reminder>Warning: the file exists but is shorter than the provided offset ({start}). "
            f"The file has {window.line_count} lines.</system-reminder>"
        )
    shown = _fit(list(window.lines), start)
    end = start + len(shown) - 1
    ctx.file_state.record_window(path, window.mtime_ns, offset=start, limit=len(shown))
    body = numbered(shown, start, cut=False)
    if not window.more and len(shown) == len(window.lines):
        return ToolResult(body)  # the file ends here
    return ToolResult(
        with_notes(
            body,
            f"(Showing lines {start}-{end} of a {size_text(window.size)} file. To read more, call Read again "
            f"with offset={end + 1}.)",
        )
    )


# ---------------------------------------------------------------- text


def _read_text(value: ReadInput, snapshot: FileSnapshot, ctx: ToolUseContext) -> ToolResult:
    text = snapshot.text
    dirty_note = DIRTY_NOTE if snapshot.dirty else ""
    if not text:
        ctx.file_state.record(snapshot)
        return ToolResult(with_notes(EMPTY_FILE, dirty_note))
    ranged = value.offset is not None or value.limit is not None
    if not ranged and len(text) > MAX_TEXT_CHARS:
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        size = len(text.encode("utf-8", "surrogatepass"))
        raise ToolError(
            f"File content ({size // 1024} KB, {lines} lines) exceeds the maximum size that can be read at once "
            f"({MAX_TEXT_CHARS // 1024} KB). Use offset and limit to read specific parts of the file "
            "(e.g. offset=1, limit=500), or use Grep to search for specific content."
        )

    start = max(value.offset or 1, 1)
    window, total = line_window(text, start, value.limit or DEFAULT_LIMIT)
    if not window:
        return ToolResult(
            f"<system-reminder>Warning: the file exists but is shorter than the provided offset ({start}). "
            f"The file has {total} lines.</system-reminder>"
        )
    shown = _fit([cut_line(line) for line in window], start)
    body = numbered(shown, start, cut=False)
    end = start + len(shown) - 1

    if start == 1 and end == total:
        ctx.file_state.record(snapshot)
    else:
        ctx.file_state.record(snapshot, offset=start, limit=len(shown))
    more = ""
    if end < total:
        more = f"(Showing lines {start}-{end} of {total}. To read more, call Read again with offset={end + 1}.)"
    return ToolResult(with_notes(body, more, dirty_note))


def _fit(lines: list[str], start: int) -> list[str]:
    """The longest leading run of `lines` (cut already) whose numbered form fits in MAX_OUTPUT_CHARS."""
    size = 0
    for count, line in enumerate(lines):
        size += len(numbered([line], start + count, cut=False)) + 1
        if size > MAX_OUTPUT_CHARS:
            return lines[: max(count, 1)]
    return lines


# ---------------------------------------------------------------- images, PDFs, notebooks


async def _read_image(path: Path, data: bytes) -> ToolResult:
    if not data:
        raise ToolError(f"{path} is empty (0 bytes), so there is no image to show.")
    try:
        image = await asyncio.to_thread(prepare_image, data)
    except ImageError as exc:
        raise ToolError(f"{path} could not be read as an image: {exc}") from exc
    blocks: list[dict[str, Any]] = [image.block()]
    if image.resized:
        blocks.append({"type": "text", "text": image.describe()})
    return ToolResult(blocks)


async def _read_pdf(path: Path, data: bytes, pages: str | None) -> ToolResult:
    try:
        extracted = await asyncio.to_thread(extract_pages, data, pages)
    except PdfError as exc:
        raise ToolError(f"{path}: {exc}") from exc
    count = extracted.page_count
    numbers = [number for number, _ in extracted.pages]
    parts = [
        f"PDF file {path}: {count} page{'s' if count != 1 else ''}"
        + (f"; showing page{'s' if len(numbers) != 1 else ''} {format_pages(numbers)}." if numbers else ".")
    ]
    for number, text in extracted.pages:
        body = text.strip() or "(No text could be extracted from this page; it may be a scanned image.)"
        parts.append(f"--- Page {number} ---\n{body}")
    output = "\n\n".join(parts)
    if len(output) > MAX_OUTPUT_CHARS:
        output = (
            output[:MAX_OUTPUT_CHARS]
            + f"\n\n(Output cut at {MAX_OUTPUT_CHARS} characters; read fewer pages at a time with the pages parameter.)"
        )
    return ToolResult(output)


async def _read_notebook(path: Path, ctx: ToolUseContext) -> ToolResult:
    # Through the file-system port like text files, so the record matches what NotebookEdit will write over.
    snapshot = await read_existing(ctx, path)
    if snapshot is None:
        raise ToolError(await missing_file_message(path, ctx.options.cwd))
    try:
        notebook = parse_notebook(snapshot.text)
    except NotebookError as exc:
        raise ToolError(f"{path}: {exc}") from exc
    blocks = await asyncio.to_thread(render_notebook, notebook)
    ctx.file_state.record(snapshot)
    if snapshot.dirty:
        blocks.append({"type": "text", "text": DIRTY_NOTE})
    blocks = _within_budget(blocks, MAX_OUTPUT_CHARS)
    if all(block["type"] == "text" for block in blocks):
        return ToolResult("\n\n".join(block["text"] for block in blocks))
    return ToolResult(blocks)


def _within_budget(blocks: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """`blocks` with their text cut to `budget` characters in all, saying so when something was left out."""
    kept: list[dict[str, Any]] = []
    used = 0
    for block in blocks:
        if block["type"] != "text":
            kept.append(block)
            continue
        text = block["text"]
        if used + len(text) > budget:
            kept.append({"type": "text", "text": text[: max(budget - used, 0)]})
            kept.append(
                {
                    "type": "text",
                    "text": f"(Notebook cut at {budget} characters. Use Grep on the file, or Bash with `jq`, "
                    "to look at specific cells.)",
                }
            )
            return kept
        used += len(text)
        kept.append(block)
    return kept


def _result_block(data: Any, tool_use_id: str) -> ToolResultBlock:
    """Text as a string; images, notebooks with images and the like as a list of content blocks."""
    if isinstance(data, list):
        return {"type": "tool_result", "tool_use_id": tool_use_id, "content": data}
    return default_result_block(data, tool_use_id)


READ = build_tool(
    name="Read",
    input_model=ReadInput,
    description="Read a file: text numbered like cat -n, images, PDFs and notebooks",
    prompt=PROMPT,
    search_hint="read view open file contents image pdf notebook",
    call=_call,
    validate_input=validator(_check),
    is_read_only=lambda _: True,
    is_concurrency_safe=lambda _: True,
    max_result_size_chars=math.inf,  # Read bounds its own output (limit, long lines, MAX_OUTPUT_CHARS)
    paths=lambda value: reported_paths(value.file_path),
    rule_content=lambda value: value.file_path,
    summary=lambda value: f"Read {value.file_path}" + (f" (pages {value.pages})" if value.pages else ""),
    map_result_to_block=_result_block,
)
