"""Where sessions keep files: `<state dir>/sessions/<id>/`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from handrail.state import state_dir

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def session_storage(session_id: str, env: Mapping[str, str] | None = None) -> Path:
    """The folder of one session (not created here)."""
    return state_dir(env) / "sessions" / _SAFE.sub("_", session_id)
