"""The audit log: one JSON line per permission decision in the session's storage, readable by the user."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# One writer thread keeps entries in order and the event loop free of file I/O.
_WRITER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="handrail-audit")


def _append(path: Path, line: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(line)
    except OSError as exc:
        log.warning("could not write the audit log %s: %s", path, exc)


class AuditFile:
    """An AuditLog appending JSON Lines to `path`."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def record(self, entry: Mapping[str, Any]) -> None:
        """Queue one entry for writing."""
        _WRITER.submit(_append, self.path, json.dumps(dict(entry), default=str) + "\n")

    def flush(self) -> None:
        """Wait until every queued entry is written (for tests and shutdown)."""
        _WRITER.submit(lambda: None).result()
