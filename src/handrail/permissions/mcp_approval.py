"""Whether a project-supplied MCP server may start: trust in its workspace, and approval of its exact definition.

A server defined in the workspace (`.mcp.json`, project or local settings) runs code
that came with the repository. It starts only in a trusted workspace and only once
the user approved that definition, as it was shown to them: approving records the
digest of the definition shown (`loosening.item_digest` of `("mcpServers", name)` and
the definition as written), as an approved item of the file that defines it, the same
way the settings-file prompt approves it. A changed definition is a new item and needs
approval again.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from handrail.permissions.loosening import item_digest
from handrail.permissions.trust import Approvals

ServerTrust = Literal["trusted", "untrusted", "unapproved", "changed", "approved"]


def definition_digest(name: str, definition: Mapping[str, Any]) -> str:
    """What approving server `name` with this definition (as written) records."""
    return item_digest(("mcpServers", name), definition)


def approval_key(file: Path, name: str) -> Path:
    """Where the latest approved definition of server `name` in `file` is named (the name quoted: no `/` nor `..`),
    so that a changed definition can be told from one never approved."""
    return Path(f"{file}#mcpServers.{quote(name, safe='')}")


def server_trust(
    *, name: str, file: Path | None, root: Path | None, digest: str, project_supplied: bool, approvals: Approvals
) -> ServerTrust:
    """`trusted` for the user's own servers; for project ones, `untrusted` until the workspace is trusted,
    then `approved` only for the definition the user approved (`digest` is its `definition_digest`)."""
    if not project_supplied:
        return "trusted"
    if root is None or file is None or not approvals.is_trusted(root):
        return "untrusted"
    if digest in approvals.approved_items(file):
        return "approved"
    return "changed" if approvals.approved_digest(approval_key(file, name)) is not None else "unapproved"


def with_server_approved(approvals: Approvals, *, name: str, file: Path, digest: str) -> Approvals:
    """A copy of `approvals` in which this definition (`digest`) of server `name` in `file` is approved."""
    return approvals.with_items(file, (digest,)).with_approval(approval_key(file, name), digest)
