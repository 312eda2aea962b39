"""Where sessions keep files: `$XDG_STATE_HOME/handrail/sessions/<id>/` (or `HANDRAIL_STATE_DIR`)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """handrail's state folder."""
    env = os.environ if env is None else env
    if env.get("HANDRAIL_STATE_DIR"):
        return Path(env["HANDRAIL_STATE_DIR"])
    base = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "handrail"


def session_storage(session_id: str, env: Mapping[str, str] | None = None) -> Path:
    """The folder of one session (not created here)."""
    return state_dir(env) / "sessions" / _SAFE.sub("_", session_id)
