"""Where sessions keep files: `<state dir>/sessions/<id>/`, tool results that were too large in `tool-results/`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from handrail.state import state_dir

TOOL_RESULTS_DIR = "tool-results"

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def sessions_dir(env: Mapping[str, str] | None = None) -> Path:
    """The folder holding every session's folder."""
    return state_dir(env) / "sessions"


def session_storage(session_id: str, env: Mapping[str, str] | None = None) -> Path:
    """The folder of one session (not created here)."""
    return sessions_dir(env) / _SAFE.sub("_", session_id)
