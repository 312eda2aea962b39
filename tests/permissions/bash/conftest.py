"""Shared fixtures for the Bash analyser tests: a fixed home directory and working directory."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from handrail.permissions.bash import BashVerdict, analyse

HOME = Path("/home/user")
PROJECT = Path("/work/proj")


@pytest.fixture(autouse=True)
def fixed_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """`~` means /home/user in every test, whoever runs them."""
    monkeypatch.setenv("HOME", str(HOME))


def check(
    command: str,
    *,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    ask: Sequence[str] = (),
    cwd: Path = PROJECT,
) -> BashVerdict:
    return analyse(command, allow=allow, deny=deny, ask=ask, cwd=cwd)
