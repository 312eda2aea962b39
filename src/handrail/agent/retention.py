"""Clean-up of old session files: tool-result files and transcripts older than the retention period."""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path

from handrail.agent.storage import TOOL_RESULTS_DIR
from handrail.agent.transcript import TRANSCRIPT_NAME

log = logging.getLogger(__name__)


def remove_old_session_files(sessions_dir: Path, max_age_days: float, now: float | None = None) -> int:
    """Delete tool-result files and transcripts not modified for `max_age_days`; return how many went.

    Blocking (it walks the folder), so run it in a thread. Session folders left
    empty are removed too; anything else in them (audit logs) stays.
    """
    cutoff = (time.time() if now is None else now) - max_age_days * 86400
    removed = 0
    try:
        sessions = [p for p in sessions_dir.iterdir() if p.is_dir() and not p.is_symlink()]
    except OSError:
        return 0
    for session in sessions:
        candidates = [session / TRANSCRIPT_NAME]
        results = session / TOOL_RESULTS_DIR
        if results.is_dir() and not results.is_symlink():
            candidates += [p for p in results.iterdir() if p.is_file() and not p.is_symlink()]
        for path in candidates:
            try:
                if path.is_file() and path.stat().st_mtime < cutoff:
                    path.unlink()
                    removed += 1
            except OSError as exc:
                log.warning("could not remove old session file %s: %s", path, exc)
        for folder in (results, session):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only succeeds when empty
    return removed
