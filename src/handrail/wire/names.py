"""Every name the server and its clients share: methods, commands, chat event kinds, permission modes and the
client's capability flags.

Light enough for start-up (no pydantic): the server registers its handlers with these names before
`initialize` is answered. Their parameters and results are `handrail.wire.models`;
protocol/handrail.schema.json and nvim-client/lua/handrail/wire.lua are generated from both
(`python -m handrail.wire.schema`), and a test checks that the README names every one of them.
"""

from __future__ import annotations

from typing import Literal, get_args

from handrail.permissions.modes import PERMISSION_MODES, PermissionMode

# ---------------------------------------------------------------- commands (`workspace/executeCommand`)

ASK_COMMAND = "handrail.ask"
START_ASK_COMMAND = "handrail.startAsk"  # handrail.ask answered at once with the session; the turn reports itself
CANCEL_COMMAND = "handrail.cancel"
SET_MODE_COMMAND = "handrail.setMode"
PERMISSIONS_COMMAND = "handrail.permissions"
APPROVE_COMMAND = "handrail.approveProjectSettings"
MCP_STATUS_COMMAND = "handrail.mcpStatus"
APPROVE_MCP_COMMAND = "handrail.approveMcpServer"
RESTART_MCP_COMMAND = "handrail.restartMcpServer"
BACKGROUND_TASKS_COMMAND = "handrail.backgroundTasks"
SIGN_IN_MCP_COMMAND = "handrail.signInMcpServer"
SIGN_OUT_MCP_COMMAND = "handrail.signOutMcpServer"
MCP_PROMPTS_COMMAND = "handrail.mcpPrompts"
RUN_MCP_PROMPT_COMMAND = "handrail.runMcpPrompt"
MCP_RESOURCES_COMMAND = "handrail.mcpResources"

COMMANDS = (
    ASK_COMMAND,
    START_ASK_COMMAND,
    CANCEL_COMMAND,
    SET_MODE_COMMAND,
    PERMISSIONS_COMMAND,
    APPROVE_COMMAND,
    MCP_STATUS_COMMAND,
    APPROVE_MCP_COMMAND,
    RESTART_MCP_COMMAND,
    BACKGROUND_TASKS_COMMAND,
    SIGN_IN_MCP_COMMAND,
    SIGN_OUT_MCP_COMMAND,
    MCP_PROMPTS_COMMAND,
    RUN_MCP_PROMPT_COMMAND,
    MCP_RESOURCES_COMMAND,
)

# ---------------------------------------------------------------- methods of handrail's own

CHAT_METHOD = "handrail/chat"  # server → client notification: a turn as it happens
PERMISSION_METHOD = "handrail/permission"  # server → client request (capability permissionRequest)
ASK_USER_METHOD = "handrail/askUser"  # server → client request (capability askUser)
SAVE_DOCUMENT_METHOD = "handrail/saveDocument"  # server → client request (capability saveDocument)
SHARE_DOCUMENT_METHOD = "handrail/shareDocument"  # server → client request (capability shareDocument)
DIAGNOSTICS_METHOD = "handrail/diagnostics"  # client → server notification (capability diagnostics)
DID_CHANGE_TRUST_METHOD = "handrail/didChangeTrust"  # client → server notification
ELICIT_METHOD = "handrail/elicit"  # server → client request (capability elicitation): an MCP server's form
MCP_APPROVAL_METHOD = "handrail/mcpApproval"  # server → client request (capability mcpApproval): may it start?

Direction = Literal["serverToClient", "clientToServer"]
MessageKind = Literal["request", "notification"]

METHODS: dict[str, tuple[Direction, MessageKind]] = {
    CHAT_METHOD: ("serverToClient", "notification"),
    PERMISSION_METHOD: ("serverToClient", "request"),
    ASK_USER_METHOD: ("serverToClient", "request"),
    SAVE_DOCUMENT_METHOD: ("serverToClient", "request"),
    SHARE_DOCUMENT_METHOD: ("serverToClient", "request"),
    DIAGNOSTICS_METHOD: ("clientToServer", "notification"),
    DID_CHANGE_TRUST_METHOD: ("clientToServer", "notification"),
    ELICIT_METHOD: ("serverToClient", "request"),
    MCP_APPROVAL_METHOD: ("serverToClient", "request"),
}

# ---------------------------------------------------------------- `handrail/chat` event kinds

ChatEventKind = Literal[
    "turnStart",
    "text",
    "thinking",
    "retry",
    "toolStart",
    "toolProgress",
    "toolResult",
    "permission",
    "mode",
    "todos",
    "turnEnd",
    "background",
]
CHAT_EVENT_KINDS: tuple[ChatEventKind, ...] = get_args(ChatEventKind)

# why a turn failed (`error.kind` of `handrail.ask` and `turnEnd`): clients offer to set the key for
# noApiKey and apiKey, and the model setting for model
TurnErrorKind = Literal[
    "noApiKey", "apiKey", "billing", "forbidden", "model", "rateLimited", "overloaded", "server", "network",
    "badRequest", "stream", "other",
]
TURN_ERROR_KINDS: tuple[TurnErrorKind, ...] = get_args(TurnErrorKind)

# ---------------------------------------------------------------- permission modes (`handrail.setMode`)

MODES: tuple[PermissionMode, ...] = PERMISSION_MODES

# ---------------------------------------------------------------- `capabilities.experimental.handrail`

Capability = Literal[
    "permissionRequest", "saveDocument", "askUser", "diagnostics", "shareDocument", "elicitation", "mcpApproval",
    "permissionReport",
]
CAPABILITIES: tuple[Capability, ...] = get_args(Capability)
