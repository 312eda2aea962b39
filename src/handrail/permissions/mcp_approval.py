"""Whether a project-supplied MCP server may start: trust in its workspace, and approval of its exact definition.

A server defined in the workspace (`.mcp.json`, project or local settings) runs code
that came with the repository. It starts only in a trusted workspace and only once
the user approved that definition (its sha256); a changed definition needs approval
again. Approvals are kept with the settings-file approvals (`trust.Approvals`), under
the key `<file>#mcpServers.<quoted name>`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import quote

from handrail.permissions.trust import Approvals

ServerTrust = Literal["trusted", "untrusted", "unapproved", "changed", "approved"]


def approval_key(file: Path, name: str) -> Path:
    """Where the approval of server `name` defined in `file` is recorded (the name quoted: no `/` nor `..`)."""
    return Path(f"{file}#mcpServers.{quote(name, safe='')}")


def server_trust(
    *, name: str, file: Path | None, root: Path | None, digest: str, project_supplied: bool, approvals: Approvals
) -> ServerTrust:
    """`trusted` for the user's own servers; for project ones, `untrusted` until the workspace is trusted,
    then `approved` only for the definition the user approved."""
    if not project_supplied:
        return "trusted"
    if root is None or file is None or not approvals.is_trusted(root):
        return "untrusted"
    approved = approvals.approved_digest(approval_key(file, name))
    if approved == digest:
        return "approved"
    return "unapproved" if approved is None else "changed"


def with_server_approved(approvals: Approvals, *, name: str, file: Path, digest: str) -> Approvals:
    """A copy of `approvals` in which this definition of server `name` is approved."""
    return approvals.with_approval(approval_key(file, name), digest)
