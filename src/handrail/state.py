"""Where handrail keeps state: `$HANDRAIL_STATE_DIR`, else `$XDG_STATE_HOME/handrail` (`~/.local/state/handrail`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """handrail's state folder (not created here)."""
    env = os.environ if env is None else env
    if env.get("HANDRAIL_STATE_DIR"):
        return Path(env["HANDRAIL_STATE_DIR"])
    base = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "handrail"
