"""Test helpers for the permission policy: approvals that trust workspaces, session rules as a source."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from handrail.permissions.paths import resolve
from handrail.permissions.sources import LoadedSource, load_mapping
from handrail.permissions.trust import Approvals


def trusting(*roots: Path) -> Approvals:
    """Approvals in which the user trusts `roots` (as the approvals file records it), and nothing is approved."""
    return Approvals(trusted=frozenset(str(resolve(root)) for root in roots))


def session_source(
    *,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    ask: Sequence[str] = (),
    root: Path | None = None,
) -> LoadedSource:
    """Session rules as a source (the lowest precedence for single-valued settings)."""
    return load_mapping({"permissions": {"allow": list(allow), "deny": list(deny), "ask": list(ask)}}, "session", root)
