"""The workspace file-system port: what tools see of files, and how their writes land.

The server implements it on top of the editor (open buffers first, then disk);
`DiskFileSystem` is the plain implementation used for files no editor holds and in tests.
"""

from __future__ import annotations

import asyncio
import codecs
import hashlib
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal, Protocol

from handrail.errors import HandrailError
from handrail.fileio import write_target, write_through
from handrail.tools.errors import ToolError

Source = Literal["buffer", "disk"]


class BinaryFileError(HandrailError):
    """The file is not text (it has NUL bytes or does not decode)."""


class FileTooLargeError(HandrailError):
    """The file on disk is larger than the reader's limit; it was not read."""

    def __init__(self, path: Path, size: int, limit: int) -> None:
        super().__init__(f"{path} is {size} bytes, over the limit of {limit}")
        self.path = path
        self.size = size
        self.limit = limit


@dataclass(frozen=True)
class FileSnapshot:
    """The text of a file at one moment, and where it came from.

    `version` is the editor's document version for open buffers; `mtime_ns` the
    disk modification time; `dirty` says the buffer holds unsaved changes.
    """

    path: Path
    text: str
    source: Source
    version: int | None = None
    mtime_ns: int | None = None
    dirty: bool = False
    encoding: str = "utf-8"

    @cached_property
    def content_hash(self) -> str:
        """A hash of the text, to tell whether two snapshots hold the same content (computed once, when asked)."""
        return text_hash(self.text)


@dataclass(frozen=True)
class WriteOutcome:
    """Where a write landed, said so the model can be told plainly."""

    path: Path
    on_disk: bool
    in_buffer: bool
    note: str = ""


class WriteConflictError(ToolError):
    """The file changed between the snapshot a write was based on and the write itself."""


class WorkspaceFileSystem(Protocol):
    """The port through which tools read and change files."""

    async def read(self, path: Path, *, max_bytes: int | None = None) -> FileSnapshot:
        """The current text of `path`. Raises FileNotFoundError, IsADirectoryError, BinaryFileError, and
        FileTooLargeError for a file on disk larger than `max_bytes` (an open buffer is in memory already)."""
        ...

    async def read_bytes(self, path: Path, *, max_bytes: int | None = None) -> bytes:
        """The raw bytes on disk (for binary files); FileTooLargeError beyond `max_bytes`."""
        ...

    async def write(self, path: Path, text: str, *, base: FileSnapshot | None, label: str) -> WriteOutcome:
        """Replace the content of `path` with `text`; `base` is the snapshot the change was made from."""
        ...

    async def dirty_buffers(self) -> Mapping[Path, str]:
        """Open editor buffers whose text differs from the disk (for searches to include)."""
        ...

    async def disk_changed_under_buffers(self, paths: Sequence[Path], cause: str) -> None:
        """Tell the user that `cause` (a sentence's subject) changed these files on disk while their open
        buffers held unsaved changes: the buffers and the disk now differ."""
        ...


def text_hash(text: str) -> str:
    """A short stable hash of text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def bom_encoding(head: bytes) -> str | None:
    """The encoding a byte-order mark at the start of `head` announces, if any."""
    return next((encoding for bom, encoding in _BOMS if head.startswith(bom)), None)


def check_text_head(head: bytes) -> None:
    """Raise BinaryFileError when a file's first bytes (8 KB) show it is not text: a NUL byte."""
    if b"\x00" in head[:8192]:
        raise BinaryFileError("the file contains NUL bytes")


def check_latin1_head(head: bytes) -> None:
    """Latin-1 decodes anything: raise BinaryFileError unless the first 8 KB look like text."""
    sample = head[:8192]
    controls = sum(1 for b in sample if b < 0x09 or 0x0E <= b < 0x20)
    if controls > len(sample) // 100:
        raise BinaryFileError("the file is not valid text in UTF-8 or Latin-1")


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode file bytes into (text, encoding); raises BinaryFileError for binary content."""
    encoding = bom_encoding(data)
    if encoding is not None:
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError as exc:
            raise BinaryFileError(str(exc)) from exc
    check_text_head(data)
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    check_latin1_head(data)
    return data.decode("latin-1"), "latin-1"


def encode_text(text: str, encoding: str) -> bytes:
    """Encode text back the way the file was stored (BOM kept for utf-8-sig and utf-16)."""
    return text.encode(encoding)


def read_limited(path: Path, max_bytes: int | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes of `path` and its stat, taken from one open file; FileTooLargeError (nothing read) when it
    is larger than `max_bytes`, IsADirectoryError for a folder (blocking)."""
    with open(path, "rb") as handle:
        info = os.fstat(handle.fileno())
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(str(path))
        if max_bytes is not None and info.st_size > max_bytes:
            raise FileTooLargeError(path, info.st_size, max_bytes)
        data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
    if max_bytes is not None and len(data) > max_bytes:  # it grew since the stat
        raise FileTooLargeError(path, len(data), max_bytes)
    return data, info


def read_disk(path: Path, max_bytes: int | None = None) -> FileSnapshot:
    """Snapshot `path` from disk (blocking; call it in a thread from async code); see `read_limited`."""
    data, info = read_limited(path, max_bytes)
    text, encoding = decode_text(data)
    return FileSnapshot(path=path, text=text, source="disk", mtime_ns=info.st_mtime_ns, encoding=encoding)


class DiskFileSystem:
    """A `WorkspaceFileSystem` on the local disk only."""

    async def read(self, path: Path, *, max_bytes: int | None = None) -> FileSnapshot:
        """Read `path` from disk in a worker thread."""
        return await asyncio.to_thread(read_disk, path, max_bytes)

    async def read_bytes(self, path: Path, *, max_bytes: int | None = None) -> bytes:
        """The raw bytes of `path`."""
        return (await asyncio.to_thread(read_limited, path, max_bytes))[0]

    async def dirty_buffers(self) -> Mapping[Path, str]:
        """No editor, no buffers."""
        return {}

    async def disk_changed_under_buffers(self, paths: Sequence[Path], cause: str) -> None:
        """No editor, no one to tell."""

    async def write(self, path: Path, text: str, *, base: FileSnapshot | None, label: str) -> WriteOutcome:
        """Write (through symbolic links, keeping hard links shared), refusing when the disk moved on since `base`."""

        def work() -> WriteOutcome:
            target = write_target(path)  # resolved once: the file checked is the file written
            if base is not None and target.exists():
                current = read_disk(target)
                if current.content_hash != base.content_hash:
                    raise WriteConflictError(f"{path} changed on disk since it was read")
            write_through(target, encode_text(text, base.encoding if base else "utf-8"))
            return WriteOutcome(path=path, on_disk=True, in_buffer=False)

        return await asyncio.to_thread(work)
