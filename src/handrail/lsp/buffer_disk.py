"""Whether an open buffer differs from its file, reading the file again only when either side changed."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from handrail.tools.filesystem import BinaryFileError, read_disk

# A file changed this recently may change again within its timestamp's resolution without the
# stamp showing it ("racy git"), so what was read from it is not remembered.
_SETTLED_NS = 1_000_000_000


@dataclass(frozen=True)
class DiskView:
    """What the disk holds for an open buffer, as far as the buffer is concerned."""

    dirty: bool
    mtime_ns: int | None
    encoding: str


class BufferDiskCache:
    """`DiskView`s of open buffers, kept while the buffer's text (the same string) and the file's stat stay the same."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[str, tuple[int, int, int], DiskView]] = {}

    def view(self, uri: str, path: Path, text: str) -> DiskView:
        """The disk's view of buffer `uri` holding `text` (blocking: call it in a thread)."""
        try:
            st = os.stat(path)
        except OSError:
            self._known.pop(uri, None)
            return DiskView(dirty=True, mtime_ns=None, encoding="utf-8")
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        known = self._known.get(uri)
        if known is not None and known[0] is text and known[1] == stamp:
            return known[2]
        try:
            disk = read_disk(path)
        except (OSError, BinaryFileError):
            self._known.pop(uri, None)
            return DiskView(dirty=True, mtime_ns=None, encoding="utf-8")
        view = DiskView(dirty=disk.text != text, mtime_ns=disk.mtime_ns, encoding=disk.encoding)
        if time.time_ns() - st.st_mtime_ns > _SETTLED_NS and disk.mtime_ns == st.st_mtime_ns:
            self._known[uri] = (text, stamp, view)
        else:
            self._known.pop(uri, None)
        return view

    def keep_only(self, uris: set[str]) -> None:
        """Forget the buffers that are no longer open."""
        for uri in self._known.keys() - uris:
            self._known.pop(uri, None)
