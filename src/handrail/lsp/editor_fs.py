"""The editor as the file system: open buffers first, then disk.

Reads see what the user sees, unsaved text included. Writes to an open document
go through `workspace/applyEdit` as one versioned edit (visible and undoable), are
confirmed by watching the document change, and are saved only when the buffer
had no unsaved user work and the client can save on request. Files no editor
holds are written to disk atomically; a client that can share buffers it did not
open is asked first (see lsp.document_share).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument

from handrail.lsp.buffer_disk import LINE_BREAKS, BufferDiskCache, holds_text, same_file_text
from handrail.lsp.document_share import DocumentShare
from handrail.lsp.document_watch import DocumentWatch
from handrail.lsp.lsp_values import field_of
from handrail.lsp.positions import minimal_change, position_at
from handrail.tools.filesystem import (
    BinaryFileError,
    DiskFileSystem,
    FileSnapshot,
    WriteConflictError,
    WriteOutcome,
    read_disk,
    text_hash,
)
from handrail.wire.names import SAVE_DOCUMENT_METHOD

log = logging.getLogger(__name__)

APPLY_CONFIRM_TIMEOUT = 10.0  # seconds; HANDRAIL_APPLY_CONFIRM_TIMEOUT changes it


def apply_confirm_timeout() -> float:
    """How long an applied edit waits for the editor's `didChange` before it is reported as unconfirmed."""
    try:
        value = float(os.environ.get("HANDRAIL_APPLY_CONFIRM_TIMEOUT", ""))
    except ValueError:
        return APPLY_CONFIRM_TIMEOUT
    return value if value > 0 else APPLY_CONFIRM_TIMEOUT


class EditorFileSystem:
    """A `WorkspaceFileSystem` backed by the LSP client's open documents and the disk."""

    def __init__(
        self,
        server: LanguageServer,
        watch: DocumentWatch,
        can_save: Callable[[], bool],
        can_create: Callable[[], bool] = lambda: False,
        can_share: Callable[[], bool] = lambda: False,
    ) -> None:
        self._server = server
        self._watch = watch
        self._can_save = can_save
        self._can_create = can_create
        self._disk = DiskFileSystem()
        self._buffers = BufferDiskCache()
        self._share = DocumentShare(server, self.open_document, can_share, path_to_uri)

    def open_document(self, path: Path) -> TextDocument | None:
        """The open document for `path`, if the editor has one: the one open under that name, else one open
        under another name of the same file (a symbolic link, or the file a link points to). Edits go to the
        document's own URI, the name the editor knows the file by."""
        real = os.path.realpath(path)
        same_file: TextDocument | None = None
        for uri, document in self._server.workspace.text_documents.items():
            fs_path = to_fs_path(uri)
            if fs_path is None:
                continue
            if Path(fs_path) == path:
                found: TextDocument = document
                return found
            if same_file is None and os.path.realpath(fs_path) == real:
                same_file = document
        return same_file

    async def read(self, path: Path, *, max_bytes: int | None = None) -> FileSnapshot:
        """The buffer's text when the document is open (with its unsaved state), else the disk's (within
        `max_bytes`)."""
        document = await self._share.document(path, writing=False)
        if document is None:
            return await self._disk.read(path, max_bytes=max_bytes)
        text = document.source
        disk = await asyncio.to_thread(self._buffers.view, document.uri, path, text)
        return FileSnapshot(
            path=path,
            text=text,
            source="buffer",
            version=document.version,
            mtime_ns=disk.mtime_ns,
            dirty=disk.dirty,
            encoding=disk.encoding,
        )

    async def read_bytes(self, path: Path, *, max_bytes: int | None = None) -> bytes:
        """The bytes on disk."""
        return await self._disk.read_bytes(path, max_bytes=max_bytes)

    async def dirty_buffers(self) -> dict[Path, str]:
        """Open documents whose text differs from the disk, by path."""
        found: dict[Path, str] = {}
        documents = list(self._server.workspace.text_documents.items())
        self._buffers.keep_only({uri for uri, _ in documents})
        for uri, document in documents:
            fs_path = to_fs_path(uri)
            if fs_path is None:
                continue
            path = Path(fs_path)
            text = document.source
            if (await asyncio.to_thread(self._buffers.view, uri, path, text)).dirty:
                found[path] = text
        return found

    async def disk_changed_under_buffers(self, paths: Sequence[Path], cause: str) -> None:
        """A warning the editor shows (window/showMessage): the files on disk now differ from the user's buffers."""
        names = ", ".join(str(path) for path in paths)
        one = len(paths) == 1
        message = (
            f"handrail: {cause} changed {names} on disk while {'it has' if one else 'they have'} unsaved changes "
            f"in the editor, so the file{'' if one else 's'} on disk now differ{'s' if one else ''} from your "
            f"buffer{'' if one else 's'}. Saving keeps your text and drops the command's change; reverting keeps "
            "the command's change and drops your unsaved text."
        )
        self._server.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    async def write(self, path: Path, text: str, *, base: FileSnapshot | None, label: str) -> WriteOutcome:
        """Write through the editor when the document is open, else to disk.

        A new file is created through the editor (so it opens there, saved) when the
        client can create files and save on request; otherwise it is written to disk.
        """
        document = await self._share.document(path, writing=True)
        if document is not None:
            return await self._write_buffer(path, document, text, base, label)
        # a link with no file behind it yet is written through on disk, not created over in the editor
        new_file = base is None and not await asyncio.to_thread(lambda: path.exists() or path.is_symlink())
        if new_file and self._can_create() and self._can_save():
            created = await self._create_in_editor(path, text, label)
            if created is not None:
                return created
        return await self._disk.write(path, text, base=base, label=label)

    async def _create_in_editor(self, path: Path, text: str, label: str) -> WriteOutcome | None:
        """Create `path` with `text` through `workspace/applyEdit`, then have the client save it."""
        await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
        uri = path_to_uri(path)
        insert = types.TextEdit(
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
            new_text=text,
        )
        edit = types.WorkspaceEdit(
            document_changes=[
                types.CreateFile(uri=uri),
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None), edits=[insert]
                ),
            ]
        )
        result = await self._server.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label=label))
        if not result.applied:
            log.info("client did not create %s (%s); writing it to disk", path, result.failure_reason)
            exists = await asyncio.to_thread(path.exists)
            return await self._finish_created(path, text) if exists else None
        # The new document is our text followed by the client's own empty document: nothing, or one line
        # break where buffers are lines ended by breaks (Neovim). A break the text ends with already is one
        # too many, so it is taken out again; a text without one keeps it (the editor ends files with it).
        await self._watch.wait_until(
            lambda: (doc := self.open_document(path)) is not None and _created_with(doc.source, text) is not None,
            apply_confirm_timeout(),
        )
        document = self.open_document(path)
        extra = _created_with(document.source, text) if document is not None else None
        if document is not None and extra and text.endswith(LINE_BREAKS):
            await self._apply_to_document(path, document, text, label)
        return await self._finish_created(path, text)

    async def _finish_created(self, path: Path, text: str) -> WriteOutcome:
        document = self.open_document(path)
        held = document.source if document is not None else ""
        if document is not None and holds_text(held, text) and await self._save(document.uri, path, held):
            return _created_outcome(path, text, held)
        disk = await asyncio.to_thread(_try_read_disk, path)
        if disk is not None and disk.text == text:
            return WriteOutcome(path, on_disk=True, in_buffer=document is not None)
        # The client made the file but did not fill and save it: write it ourselves, unless the user
        # already typed into the new buffer.
        if document is None or same_file_text(document.source, "") or holds_text(document.source, text):
            outcome = await self._disk.write(path, text, base=None, label="")
            return WriteOutcome(path, on_disk=outcome.on_disk, in_buffer=document is not None)
        raise WriteConflictError(f"{path} was created in the editor but its content differs; read it again.")

    async def _write_buffer(
        self, path: Path, document: TextDocument, text: str, base: FileSnapshot | None, label: str
    ) -> WriteOutcome:
        current = document.source
        if base is not None and text_hash(current) != base.content_hash:
            raise WriteConflictError(f"{path} changed in the editor while the edit was prepared; read it again.")
        was_clean = not (await asyncio.to_thread(self._buffers.view, document.uri, path, current)).dirty
        unconfirmed = await self._apply_to_document(path, document, text, label)
        if unconfirmed:
            return WriteOutcome(path, on_disk=False, in_buffer=True, note=unconfirmed)
        if not was_clean:
            return WriteOutcome(
                path,
                on_disk=False,
                in_buffer=True,
                note=(
                    f"The user has unsaved changes in {path.name}; the edit was added to the open buffer and "
                    "was not saved. The file on disk still has the old content until the user saves."
                ),
            )
        if self._can_save() and await self._save(document.uri, path, text):
            return WriteOutcome(path, on_disk=True, in_buffer=True)
        return WriteOutcome(
            path,
            on_disk=False,
            in_buffer=True,
            note=(
                f"The edit is in the editor's open buffer for {path.name} and is not saved yet; commands that "
                "read the file from disk (Bash, tests) see the old content until the user saves."
            ),
        )

    async def _apply_to_document(self, path: Path, document: TextDocument, text: str, label: str) -> str:
        """Turn the open document's text into `text` with one versioned edit, and wait until it shows.

        Returns "" once the editor's `didChange` shows the text, or a note when the editor said it applied
        the edit but has not confirmed it yet (a client busy with a blocking request sends no `didChange`).
        Raises WriteConflictError when the editor refuses the edit, skips it, or the text landed elsewhere.
        """
        current = document.source
        version = document.version
        encoding = str(self._server.workspace.position_encoding or "utf-16")
        start, end, replacement = minimal_change(current, text)
        edit = types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=document.uri, version=version),
            edits=[
                types.TextEdit(
                    range=types.Range(
                        start=position_at(current, start, encoding), end=position_at(current, end, encoding)
                    ),
                    new_text=replacement,
                )
            ],
        )
        result = await self._server.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=types.WorkspaceEdit(document_changes=[edit]), label=label)
        )
        if not result.applied:
            reason = result.failure_reason or "no reason given"
            raise WriteConflictError(f"The editor refused the edit to {path}: {reason}. Read the file and try again.")
        # Clients may answer applied=true yet skip an edit whose version is stale (Neovim does):
        # confirm it landed. The buffer moving to other text than ours means it was overtaken.
        landed = await self._watch.wait_until(lambda: self._settled(path, version, text), apply_confirm_timeout())
        doc_now = self.open_document(path)
        if doc_now is not None and doc_now.source == text:
            return ""
        if not landed and doc_now is not None:
            return (
                f"The edit to {path} is applied; not yet confirmed by the editor (it answered that it applied the "
                "edit but has not reported the buffer's new text yet). It is not saved to disk."
            )
        raise WriteConflictError(_unconfirmed_edit(path, current, start, replacement, doc_now))

    def _settled(self, path: Path, sent_version: int | None, text: str) -> bool:
        """Whether the document shows our edit, or moved on without it."""
        doc = self.open_document(path)
        if doc is None:
            return True
        return doc.source == text or doc.version != sent_version

    async def _save(self, uri: str, path: Path, text: str) -> bool:
        try:
            answer: Any = await self._server.protocol.send_request_async(SAVE_DOCUMENT_METHOD, {"uri": uri})
        except Exception as exc:
            log.warning("%s failed for %s: %s", SAVE_DOCUMENT_METHOD, uri, exc)
            return False
        saved = field_of(answer, "saved") is True
        if not saved:
            return False
        disk = await asyncio.to_thread(_try_read_disk, path)
        return disk is not None and same_file_text(text, disk.text)


def _unconfirmed_edit(
    path: Path, before: str, start: int, replacement: str, document: TextDocument | None
) -> str:
    """Why an edit the editor said it applied is not in the buffer as sent: closed, skipped, or moved."""
    if document is None:
        return f"The buffer of {path} was closed before the editor confirmed the edit. Read the file again."
    now = document.source
    changed_at, _, inserted = minimal_change(before, now)  # what the editor's changes put in, together
    found = changed_at + inserted.find(replacement) if replacement and replacement in inserted else -1
    if found < 0:
        return (
            f"The editor did not apply the edit to {path} (the buffer changed meanwhile). "
            "Read the file again and redo the edit."
        )
    expected_line = before.count("\n", 0, start) + 1
    line = now.count("\n", 0, found) + 1
    where = f"at line {line}" if line == expected_line else f"at line {line}, not line {expected_line}"
    return (
        f"The editor applied the edit to {path}, but the buffer also changed otherwise meanwhile: the new text "
        f"is {where}, and the file is not what the edit was to make. Read the file again and check it before "
        "editing further."
    )


def _created_with(document_text: str, text: str) -> str | None:
    """What a document created by inserting `text` holds besides it: "" or the client's one line break for
    an empty file; None while it does not hold `text` that way (yet)."""
    if document_text == text:
        return ""
    extra = document_text[len(text) :] if document_text.startswith(text) else None
    return extra if extra in LINE_BREAKS else None


def _created_outcome(path: Path, text: str, held: str) -> WriteOutcome:
    """A file created and saved by the editor, which holds it as `held` (`text`, or `text` and a final line break)."""
    if held == text:
        return WriteOutcome(path, on_disk=True, in_buffer=True)
    return WriteOutcome(
        path,
        on_disk=True,
        in_buffer=True,
        text=held,
        note=f"The editor ends every file with a line break, so {path.name} ends with one.",
    )


def _try_read_disk(path: Path) -> FileSnapshot | None:
    try:
        return read_disk(path)
    except (OSError, BinaryFileError):
        return None


def path_to_uri(path: Path) -> str:
    """The file URI for `path`."""
    uri = from_fs_path(str(path))
    return uri if uri is not None else path.as_uri()
