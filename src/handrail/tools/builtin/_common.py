"""Helpers the built-in tools share: input model base, paths, reading files, validation."""

from __future__ import annotations

import asyncio
import difflib
import os
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from handrail.fileio import link_count
from handrail.permissions.decision import PASSTHROUGH, PermissionCheck
from handrail.permissions.paths import resolve
from handrail.tools.context import ToolUseContext
from handrail.tools.editor_diagnostics import write_diagnostics_note
from handrail.tools.errors import ToolError
from handrail.tools.file_state import ReadRecord
from handrail.tools.filesystem import (
    BinaryFileError,
    FileSnapshot,
    FileTooLargeError,
    WriteConflictError,
    WriteOutcome,
)
from handrail.tools.protocol import VALID, ValidationResult
from handrail.tools.text_ops import diff_label, unified_diff

InputT = TypeVar("InputT", bound=BaseModel)


class ToolInput(BaseModel):
    """Base for tool inputs: unknown fields are refused; aliased fields accept their names too."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def require_absolute(path: str, *, field: str = "file_path") -> Path:
    """`path` as a Path; raises ToolError unless it is absolute."""
    if not path or not os.path.isabs(path):
        raise ToolError(f"{field} must be an absolute path, not a relative one: {path!r}.")
    return Path(os.path.normpath(path))


def display_path(path: Path, cwd: Path) -> str:
    """`path` relative to `cwd` when it lies inside it, else absolute."""
    try:
        relative = path.relative_to(cwd)
    except ValueError:
        return str(path)
    return str(relative) if str(relative) != "." else str(path)


def similar_path(path: Path) -> Path | None:
    """The name in `path`'s directory closest to `path`'s, if one is close enough."""
    try:
        names = os.listdir(path.parent)
    except OSError:
        return None
    stem_matches = [n for n in names if n != path.name and Path(n).stem == path.stem]
    if stem_matches:
        return path.parent / sorted(stem_matches)[0]
    close = difflib.get_close_matches(path.name, names, n=1, cutoff=0.6)
    return path.parent / close[0] if close else None


async def missing_file_message(path: Path, cwd: Path) -> str:
    """The error text for a file that does not exist, with a suggestion when there is one."""
    message = "File does not exist."
    suggestion = await asyncio.to_thread(similar_path, path)
    if suggestion is not None:
        message += f" Did you mean {suggestion}?"
    message += f" Current working directory: {cwd}"
    return message


MAX_EDIT_BYTES = 16 * 1024 * 1024
"""Files on disk larger than this are not loaded to be edited (Edit, MultiEdit, Write, NotebookEdit)."""


async def read_existing(ctx: ToolUseContext, path: Path, *, max_bytes: int = MAX_EDIT_BYTES) -> FileSnapshot | None:
    """The current snapshot of `path`, or None when it does not exist.

    Directories, binary files, files on disk over `max_bytes` and unreadable files raise ToolError.
    """
    try:
        return await ctx.fs.read(path, max_bytes=max_bytes)
    except FileNotFoundError:
        return None
    except (OSError, BinaryFileError, FileTooLargeError) as exc:
        raise read_error(path, exc) from exc


def size_text(size: int) -> str:
    """A byte count as people read it: 512 bytes, 300 KB, 100.0 MB."""
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size // 1024} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def read_error(path: Path, exc: BaseException) -> ToolError:
    """The ToolError for a failed read of `path` (directory, binary, too large, permission and other errors)."""
    if isinstance(exc, FileTooLargeError):
        return ToolError(
            f"{path} is {size_text(exc.size)}, more than the {size_text(exc.limit)} the file tools load at once. "
            "Read parts of it with offset and limit, search it with Grep, or change it through Bash (e.g. sed)."
        )
    if isinstance(exc, IsADirectoryError):
        return ToolError(
            f"{path} is a directory, not a file. Use Glob to find files in it, or Bash with `ls` to list it."
        )
    if isinstance(exc, NotADirectoryError):
        return ToolError(f"{path} is not a valid path: one of its parents is a file.")
    if isinstance(exc, BinaryFileError):
        return ToolError(
            f"{path} is a binary file ({exc}), so it cannot be shown or edited as text. Read shows text files, "
            "images (PNG, JPEG, GIF, WebP), PDFs and Jupyter notebooks; for other binary files use Bash "
            "(e.g. `file`, or `xxd | head`)."
        )
    if isinstance(exc, PermissionError):
        return ToolError(f"Permission denied reading {path}.")
    return ToolError(f"Could not read {path}: {exc}")


def resolve_path(path: str, cwd: Path, *, field: str = "path") -> Path:
    """`path` as an absolute path: relative ones are taken from `cwd`; `..` is folded."""
    if not path:
        raise ToolError(f"{field} must not be empty.")
    return Path(os.path.normpath(os.path.join(cwd, path)))


def reported_paths(path: str | None) -> tuple[Path, ...]:
    """The paths a tool names for the permission checks: `path` as given (absolute, `..` folded) and,
    when that goes through a symbolic link, the file it really reaches.

    Relative paths are returned as they are; the permission pipeline takes them from its working directory.
    """
    if not path:
        return ()
    if not os.path.isabs(path):
        return (Path(path),)
    written = Path(os.path.normpath(path))
    real = resolve(written)
    return (written,) if real == written else (written, real)


def require_read(ctx: ToolUseContext, path: Path) -> ReadRecord:
    """The file-state record of `path`; raises ToolError when the model has not read it."""
    record = ctx.file_state.get(path)
    if record is None:
        raise ToolError("File has not been read yet. Read it first before writing to it.")
    return record


async def write_and_record(
    ctx: ToolUseContext, path: Path, text: str, *, base: FileSnapshot | None, label: str
) -> WriteOutcome:
    """Write `text` through the file-system port and remember it as what the model now knows.

    The outcome's note also tells of new errors the editor reports in the changed lines.
    """
    before = ctx.diagnostics.current(path).get(path, ())
    try:
        outcome = await ctx.fs.write(path, text, base=base, label=label)
    except WriteConflictError as exc:
        raise ToolError(
            f"The file changed while this change was being made ({exc}). Read it again, then retry."
        ) from exc
    except PermissionError as exc:
        raise ToolError(f"Permission denied writing {path}.") from exc
    except IsADirectoryError as exc:
        raise ToolError(f"{path} is a directory, not a file.") from exc
    ctx.file_state.record(
        FileSnapshot(
            path=path,
            text=text if outcome.text is None else outcome.text,
            source="buffer" if outcome.in_buffer else "disk",
            dirty=outcome.in_buffer and not outcome.on_disk,
            encoding=base.encoding if base is not None else "utf-8",
        )
    )
    old_text = base.text if base is not None else ""
    errors = await write_diagnostics_note(ctx.diagnostics, path, old_text, text, before)
    return replace(outcome, note="\n\n".join(n for n in (outcome.note, errors) if n)) if errors else outcome


def validator(
    check: Callable[[InputT, ToolUseContext], Awaitable[Any]],
) -> Callable[[InputT, ToolUseContext], Awaitable[ValidationResult]]:
    """A `validate_input` hook that runs `check` and turns its ToolError into a failed validation."""

    async def validate(value: InputT, ctx: ToolUseContext) -> ValidationResult:
        try:
            await check(value, ctx)
        except ToolError as exc:
            return ValidationResult(ok=False, message=str(exc))
        return VALID

    return validate


class FilePlan(Protocol):
    """A planned change to one file: the file now (None when it is new) and its new text."""

    @property
    def path(self) -> Path: ...

    @property
    def base(self) -> FileSnapshot | None: ...

    @property
    def new_text(self) -> str: ...


PlanT = TypeVar("PlanT", bound=FilePlan)


def plan_diff(plan: FilePlan, cwd: Path) -> str:
    """The unified diff a planned change would make, for permission prompts."""
    shown = display_path(plan.path, cwd)
    old_label = diff_label(shown, "a") if plan.base is not None else "/dev/null"
    old = plan.base.text if plan.base is not None else ""
    return unified_diff(old, plan.new_text, old_label=old_label, new_label=diff_label(shown, "b"))


def diff_check(
    plan: Callable[[InputT, ToolUseContext], Awaitable[PlanT]],
) -> Callable[[InputT, ToolUseContext], Awaitable[PermissionCheck]]:
    """A `check_permissions` hook that leaves the decision to the pipeline and shows the planned diff."""

    async def check(value: InputT, ctx: ToolUseContext) -> PermissionCheck:
        try:
            planned = await plan(value, ctx)
        except ToolError:
            return PASSTHROUGH
        diff = plan_diff(planned, ctx.options.cwd)
        links = await asyncio.to_thread(link_count, planned.path) if planned.base is not None else 0
        if links > 1:  # the write keeps them shared (in place), so it changes files the rules cannot see
            message = (
                f"{planned.path} has {links} hard links: the change shows under each of the file's names, "
                "which may lie outside the workspace, so it always needs approval"
            )
            return PermissionCheck("ask", message, diff=diff, safety=True)
        return PermissionCheck("passthrough", diff=diff)

    return check


def allow_check(message: str) -> Callable[[Any, ToolUseContext], Awaitable[PermissionCheck]]:
    """A `check_permissions` hook that allows every call (for tools whose outcome the user decides anyway)."""

    async def check(value: Any, ctx: ToolUseContext) -> PermissionCheck:
        return PermissionCheck("allow", message)

    return check


def with_notes(text: str, *notes: str) -> str:
    """`text` followed by the non-empty notes, one paragraph each."""
    parts = [text, *(note for note in notes if note)]
    return "\n\n".join(parts)
