"""Which handrail extensions a client declared in `capabilities.experimental.handrail`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from handrail.lsp.lsp_values import field_of


@dataclass(frozen=True)
class ClientFeatures:
    """Optional server→client requests the client answers; plain LSP clients have none of them."""

    permission_request: bool = False
    save_document: bool = False
    ask_user: bool = False
    create_files: bool = False
    diagnostics: bool = False  # the client forwards its diagnostics (`handrail/diagnostics`)
    share_document: bool = False  # the client shares a buffer it did not open on request (`handrail/shareDocument`)
    elicitation: bool = False  # the client shows MCP elicitation forms itself (`handrail/elicit`)
    mcp_approval: bool = False  # the client asks about a workspace's MCP server in its chat (`handrail/mcpApproval`)
    show_document: bool = False  # window/showDocument (opens a sign-in page in the browser)
    permission_report: bool = False  # the client shows inactive rules from `handrail.permissions` itself

    @classmethod
    def from_capabilities(cls, capabilities: types.ClientCapabilities | None) -> ClientFeatures:
        """Read the flags from the client's capabilities (absent or malformed means no)."""
        experimental: Any = capabilities.experimental if capabilities is not None else None
        handrail = field_of(experimental, "handrail")
        return cls(
            permission_request=field_of(handrail, "permissionRequest") is True,
            save_document=field_of(handrail, "saveDocument") is True,
            ask_user=field_of(handrail, "askUser") is True,
            diagnostics=field_of(handrail, "diagnostics") is True,
            share_document=field_of(handrail, "shareDocument") is True,
            elicitation=field_of(handrail, "elicitation") is True,
            mcp_approval=field_of(handrail, "mcpApproval") is True,
            permission_report=field_of(handrail, "permissionReport") is True,
            create_files=_can_create_files(capabilities),
            show_document=_can_show_documents(capabilities),
        )


def _can_show_documents(capabilities: types.ClientCapabilities | None) -> bool:
    window = capabilities.window if capabilities is not None else None
    show = window.show_document if window is not None else None
    return show is not None and bool(show.support)


def _can_create_files(capabilities: types.ClientCapabilities | None) -> bool:
    workspace = capabilities.workspace if capabilities is not None else None
    edit = workspace.workspace_edit if workspace is not None else None
    operations = edit.resource_operations if edit is not None else None
    return bool(operations) and types.ResourceOperationKind.Create in (operations or [])
