"""The permission modes, in a module of their own so the command line can name them without loading pydantic."""

from __future__ import annotations

from typing import Literal, get_args

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
