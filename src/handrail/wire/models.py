"""The parameters and results of every method and command in `handrail.wire.names`, and the chat events.

Fields are snake_case in Python and camelCase on the wire. What a client sends ignores fields it does not
know (as the server always did); what the server sends forbids them, so the server cannot send a field
its model does not name. Results are sent with the fields that were set (`to_wire`): an optional field is
absent, not null, unless the model says null is a value.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel
from pydantic.alias_generators import to_camel

from handrail.permissions.modes import PermissionMode
from handrail.tools.background_agents import AgentStatus
from handrail.tools.background_shells import ShellStatus
from handrail.tools.todos import TodoItem
from handrail.wire import names
from handrail.wire.names import ChatEventKind, TurnErrorKind


class ClientMessage(BaseModel):
    """What a client sends: fields it adds that the server does not know are ignored."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class ServerMessage(BaseModel):
    """What the server sends: exactly these fields."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


def to_wire(value: BaseModel) -> Any:
    """A model as JSON for the client: camelCase, with the fields that were set."""
    return value.model_dump(mode="json", by_alias=True, exclude_unset=True)


# ================================================================ shared shapes


class UsageTotals(ServerMessage):
    """Tokens of a series of model requests and their estimated cost (`costUsd` null: a model with no known
    price). `inputTokens` is the plain input; cache reads and writes are counted apart."""

    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: float | None


class Usage(UsageTotals):
    """A turn's usage: its totals, the session's, and how full the context window is."""

    session: UsageTotals
    context_tokens: int
    context_window: int


class TurnError(ServerMessage):
    """Why a turn failed, in words the user can act on."""

    kind: TurnErrorKind
    message: str


class BackgroundTask(ServerMessage):
    """One background sub-agent or shell of a session (`description`: the model's words, so untrusted)."""

    id: str
    kind: Literal["agent", "shell"]
    description: str
    status: AgentStatus | ShellStatus


# ================================================================ commands: parameters and results


class AskParams(ClientMessage):
    """`handrail.ask`: a prompt, in the session named (a new one unless it names one)."""

    prompt: str = Field(min_length=1)
    session_id: str | None = None


class AskResult(ServerMessage):
    """How the turn ended and its final text (`usage` is absent for a turn that never started)."""

    session_id: str
    stop_reason: str
    text: str
    usage: Usage | None = None
    error: TurnError | None = None


class AskStarted(ServerMessage):
    """`handrail.startAsk`: the session whose turn started; the turn reports itself through `handrail/chat`,
    `$/progress` and `window/showMessage` (its final text)."""

    session_id: str


class CancelParams(ClientMessage):
    """`handrail.cancel`: the session whose turn to stop."""

    session_id: str


class CancelResult(ServerMessage):
    """Whether a running turn was stopped."""

    cancelled: bool


class SetModeParams(ClientMessage):
    """`handrail.setMode`: a session's permission mode (without a session: the server's default for every
    session that has not chosen its own)."""

    mode: PermissionMode
    session_id: str | None = None


class SetModeResult(ServerMessage):
    """The mode now in force, and for whom."""

    mode: PermissionMode
    scope: Literal["server", "session"]
    session_id: str | None = None


class PermissionsParams(ClientMessage):
    """`handrail.permissions`: the rules in force for a session (without one: for the workspace)."""

    session_id: str | None = None


class RuleEntry(ServerMessage):
    """A rule in force and the settings source it comes from."""

    rule: str
    source: str


class InactiveRule(ServerMessage):
    """A rule that was read but is not in force, and why; `digest` approves it."""

    rule: str
    behavior: str
    source: str
    reason: str
    digest: str | None = None


class InactiveSetting(ServerMessage):
    """A setting that is not in force, and why; `value` says what it would do, `digest` approves it."""

    setting: str
    source: str
    reason: str
    value: str | None = None
    digest: str | None = None


class SettingsProblem(ServerMessage):
    """Something in a settings file that could not be used (`rule`: the text of a bad rule)."""

    file: str
    message: str
    rule: str | None


class PermissionsReport(ServerMessage):
    """The rules in force by behavior, those that are not (with why), and the settings files' problems."""

    mode: PermissionMode
    working_directories: list[str]
    allow: list[RuleEntry]
    deny: list[RuleEntry]
    ask: list[RuleEntry]
    inactive: list[InactiveRule | InactiveSetting]
    problems: list[SettingsProblem]


class ApproveProjectParams(ClientMessage):
    """`handrail.approveProjectSettings`: the `digest`s of the inactive items the user was shown (without:
    everything that waits now, project skills included)."""

    items: list[str] | None = None


class ApproveProjectResult(ServerMessage):
    """How many items were approved, and what they were (as the user was shown them)."""

    approved: int
    items: list[str]


class McpStatusParams(ClientMessage):
    """`handrail.mcpStatus` takes no arguments."""


McpState = Literal[
    "starting", "running", "failed", "restarting", "stopped", "needsApproval", "untrusted", "needsSignIn"
]


class ToolsChange(ServerMessage):
    """The tools a server's latest `tools/list_changed` added and removed."""

    added: list[str]
    removed: list[str]


class McpApprovalQuestion(ServerMessage):
    """What approving a workspace's server starts (`approval_text`: the definition as written) and the digest of
    that definition, to pass back to `handrail.approveMcpServer` so that a definition changed since is refused."""

    question: str
    digest: str


class McpServerStatus(ServerMessage):
    """One configured MCP server."""

    name: str
    source: str
    state: McpState
    tools: list[str]
    error: str | None = None
    stderr_tail: str | None = None
    tools_changed: ToolsChange | None = None
    restarts: int | None = None  # restarts since the server was started (after crashes)
    remote: bool = False  # reached over HTTP or SSE: it may have a sign-in to sign out of (a local one has none)
    sign_in_at: str | None = None  # needsSignIn: where the user signs in
    approval: McpApprovalQuestion | None = None  # needsApproval: what to show before approving


class McpCommands(ServerMessage):
    """The commands that act on a server (each takes `[{name}]`)."""

    restart: str
    approve: str
    sign_in: str
    sign_out: str


class McpStatus(ServerMessage):
    """Every configured MCP server, and how to act on one."""

    servers: list[McpServerStatus]
    commands: McpCommands


class McpServerParams(ClientMessage):
    """`handrail.approveMcpServer`, `handrail.restartMcpServer`, `handrail.signInMcpServer`,
    `handrail.signOutMcpServer`: the server's name."""

    name: str = Field(min_length=1)
    # approveMcpServer: the digest of the definition the user was shown (`approval.digest` of its status);
    # a definition changed since is refused. Without it the current definition is approved.
    digest: str | None = None


class McpApproveResult(ServerMessage):
    """Whether the workspace's server may now start (and why not)."""

    approved: bool
    name: str
    reason: str | None = None


class McpRestartResult(ServerMessage):
    """Whether the server is starting afresh (and why not)."""

    restarted: bool
    name: str
    reason: str | None = None


class McpSignInResult(ServerMessage):
    """Whether the server is connecting again to let the user sign in (and why not); watch `handrail.mcpStatus`."""

    signing_in: bool
    name: str
    reason: str | None = None


class McpSignOutResult(ServerMessage):
    """Whether a sign-in was forgotten; `detail` says what the authorization server did with the tokens."""

    signed_out: bool
    name: str
    detail: str | None = None
    reason: str | None = None


class McpPromptsParams(ClientMessage):
    """`handrail.mcpPrompts` takes no arguments."""


class McpPromptArgument(ServerMessage):
    """One argument of an MCP prompt."""

    name: str
    description: str | None
    required: bool


class McpPrompt(ServerMessage):
    """An MCP prompt and the slash command that runs it (`usage`: `/command <required> [optional]`)."""

    server: str
    name: str
    title: str | None
    description: str | None
    command: str
    usage: str
    arguments: list[McpPromptArgument]


class McpPromptList(ServerMessage):
    """Every prompt of the connected MCP servers."""

    prompts: list[McpPrompt]


class RunMcpPromptParams(ClientMessage):
    """`handrail.runMcpPrompt`: run a server's prompt as the user's turn (in the session named, or a new one)."""

    server: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    arguments: dict[str, Any] | None = None
    session_id: str | None = None


class McpResourcesParams(ClientMessage):
    """`handrail.mcpResources` takes no arguments."""


class McpMentionable(ServerMessage):
    """A resource (`uri`) or resource template (`uriTemplate`) the user can mention; `mention` is the text to
    insert in the prompt (a template's {variables} are for the user to fill in)."""

    server: str
    uri: str | None = None
    uri_template: str | None = None
    name: str
    mention: str
    description: str | None = None
    mime_type: str | None = None


class McpResourceList(ServerMessage):
    """What the connected MCP servers' resources offer to mention."""

    resources: list[McpMentionable]


class BackgroundTasksParams(ClientMessage):
    """`handrail.backgroundTasks`: the session whose background work to list."""

    session_id: str


class BackgroundTaskList(RootModel[list[BackgroundTask]]):
    """A session's background agents and shells (empty for a session not started yet)."""


# ================================================================ `handrail/chat` events


class ChatEventBase(ServerMessage):
    """Every chat event names its session."""

    session_id: str


class SubAgentCall(ChatEventBase):
    """An event about a tool call; a sub-agent's calls carry the id of the Task call that started it."""

    tool_use_id: str
    parent_tool_use_id: str | None = None


class TurnStartEvent(ChatEventBase):
    """A turn began with this prompt."""

    kind: Literal["turnStart"]
    prompt: str


class TextEvent(ChatEventBase):
    """A piece of the answer's text."""

    kind: Literal["text"]
    text: str


class ThinkingEvent(ChatEventBase):
    """A piece of the model's thinking (show it folded)."""

    kind: Literal["thinking"]
    text: str


class RetryEvent(ChatEventBase):
    """The model request failed and is sent again: drop the partial message."""

    kind: Literal["retry"]
    reason: str


class ToolStartEvent(SubAgentCall):
    """A tool call begins."""

    kind: Literal["toolStart"]
    name: str
    summary: str


class ToolProgressEvent(SubAgentCall):
    """A running tool call reports progress."""

    kind: Literal["toolProgress"]
    message: str


class ToolResultEvent(SubAgentCall):
    """A tool call ended (`preview`: the start of what the model gets)."""

    kind: Literal["toolResult"]
    is_error: bool
    preview: str


class PermissionEvent(SubAgentCall):
    """The user answered a prompt about the call (`cancelled`: the prompt was abandoned; close it)."""

    kind: Literal["permission"]
    decision: Literal["allow", "allow_always", "deny", "cancelled"]


class ModeEvent(ChatEventBase):
    """The session's permission mode changed."""

    kind: Literal["mode"]
    mode: PermissionMode


class TodosEvent(ChatEventBase):
    """The session's task list changed (the whole list)."""

    kind: Literal["todos"]
    todos: list[TodoItem]


class TurnEndEvent(ChatEventBase):
    """A turn ended: why, its final text, its usage, and why it failed if it did."""

    kind: Literal["turnEnd"]
    stop_reason: str
    text: str
    usage: Usage | None = None
    error: TurnError | None = None


class BackgroundEvent(ChatEventBase):
    """The session's background agents and shells (the whole list) changed; it may come between turns."""

    kind: Literal["background"]
    tasks: list[BackgroundTask]


ChatEventModel = (
    TurnStartEvent
    | TextEvent
    | ThinkingEvent
    | RetryEvent
    | ToolStartEvent
    | ToolProgressEvent
    | ToolResultEvent
    | PermissionEvent
    | ModeEvent
    | TodosEvent
    | TurnEndEvent
    | BackgroundEvent
)


class ChatEvent(RootModel[Annotated[ChatEventModel, Field(discriminator="kind")]]):
    """One `handrail/chat` notification."""


# ================================================================ handrail's own methods


class AgentOrigin(ServerMessage):
    """The sub-agent a permission request comes from: its Task call and description."""

    tool_use_id: str
    description: str


class PermissionParams(ServerMessage):
    """`handrail/permission`: `command` is the exact command a shell call runs (show it first, escaped),
    `description` the model's words for it; `suggestions` are the rules "always allow" adds, all together."""

    session_id: str
    tool_use_id: str
    tool: str
    input: dict[str, Any]
    summary: str
    reason: str
    diff: str | None
    suggestions: list[str]
    command: str | None
    description: str | None
    agent: AgentOrigin | None = None


Destination = Literal["session", "localSettings", "projectSettings", "userSettings"]


class PermissionResult(ClientMessage):
    """The answer to `handrail/permission` (a decision the server does not know is a deny; `rules` default to
    the suggestions, and `rule` is their first for older clients)."""

    decision: Literal["allow", "allowAlways", "deny"]
    rules: list[str] | None = None
    rule: str | None = None
    destination: Destination | None = None
    feedback: str | None = None


class QuestionOption(ServerMessage):
    """One choice of a question."""

    label: str
    description: str


class QuestionParams(ServerMessage):
    """One of AskUserQuestion's questions."""

    question: str
    header: str
    options: list[QuestionOption]
    multi_select: bool


class AskUserParams(ServerMessage):
    """`handrail/askUser`: the agent's questions."""

    session_id: str
    tool_use_id: str
    questions: list[QuestionParams]


class AskUserResult(ClientMessage):
    """The answers by question text (a label, labels joined with ", ", or free text); the result is null when
    the user declined."""

    answers: dict[str, str | list[str]]


class SaveDocumentParams(ServerMessage):
    """`handrail/saveDocument`: save the buffer (sent only after an edit of a buffer the user had saved)."""

    uri: str


class SaveDocumentResult(ClientMessage):
    """Whether the buffer was saved."""

    saved: bool


class ShareDocumentParams(ServerMessage):
    """`handrail/shareDocument`: before handrail reads or writes on disk a file the client has not opened to it:
    share the buffer holding it (`textDocument/didOpen` before the answer), if there is one."""

    uri: str


class ShareDocumentResult(ClientMessage):
    """Whether the client holds the file in a buffer (and shared it)."""

    open: bool


class ElicitParams(ServerMessage):
    """`handrail/elicit`: an MCP server's form to show (`requestedSchema`: a flat JSON Schema object of strings,
    numbers, booleans and enums); the answer is checked against it."""

    server: str
    message: str
    requested_schema: dict[str, Any]


class ElicitResult(ClientMessage):
    """The user's answer: the form's values when accepted (null: cancelled)."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


class McpApprovalParams(ServerMessage):
    """`handrail/mcpApproval`: may the workspace's MCP server `server` start? Asked in the session's chat before
    its turn; `question` is the server's definition as written (its command and arguments, URL, the variables of
    the user's environment it is sent): show it exactly. A definition changed while this is open is asked again."""

    session_id: str
    server: str
    question: str


class McpApprovalResult(ClientMessage):
    """Whether the user approved the definition shown (a null result: not now)."""

    approved: bool


class Position(ClientMessage):
    """A position in a document, as the client counts characters."""

    line: int
    character: int


class Range(ClientMessage):
    """A range in a document."""

    start: Position
    end: Position


class Diagnostic(ClientMessage):
    """An LSP diagnostic, as the client's language servers and linters made it."""

    range: Range
    message: str
    severity: int | None = None
    code: str | int | None = None
    source: str | None = None


class DiagnosticsParams(ClientMessage):
    """`handrail/diagnostics`: a document's full current set of diagnostics (`[]` clears it)."""

    uri: str
    version: int | None = None
    diagnostics: list[Diagnostic]


class TrustParams(ClientMessage):
    """`handrail/didChangeTrust`: the editor's word on workspace trust changed (null: it has none)."""

    trusted: bool | None


class HandrailCapabilities(ClientMessage):
    """`capabilities.experimental.handrail`: the requests of handrail's own the client answers."""

    permission_request: bool = False
    save_document: bool = False
    ask_user: bool = False
    diagnostics: bool = False
    share_document: bool = False
    elicitation: bool = False
    mcp_approval: bool = False
    permission_report: bool = False  # the client shows inactive rules itself: handrail only logs them


# ================================================================ the contract: every name with its models

COMMAND_MODELS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    names.ASK_COMMAND: (AskParams, AskResult),
    names.START_ASK_COMMAND: (AskParams, AskStarted),
    names.CANCEL_COMMAND: (CancelParams, CancelResult),
    names.SET_MODE_COMMAND: (SetModeParams, SetModeResult),
    names.PERMISSIONS_COMMAND: (PermissionsParams, PermissionsReport),
    names.APPROVE_COMMAND: (ApproveProjectParams, ApproveProjectResult),
    names.MCP_STATUS_COMMAND: (McpStatusParams, McpStatus),
    names.APPROVE_MCP_COMMAND: (McpServerParams, McpApproveResult),
    names.RESTART_MCP_COMMAND: (McpServerParams, McpRestartResult),
    names.BACKGROUND_TASKS_COMMAND: (BackgroundTasksParams, BackgroundTaskList),
    names.SIGN_IN_MCP_COMMAND: (McpServerParams, McpSignInResult),
    names.SIGN_OUT_MCP_COMMAND: (McpServerParams, McpSignOutResult),
    names.MCP_PROMPTS_COMMAND: (McpPromptsParams, McpPromptList),
    names.RUN_MCP_PROMPT_COMMAND: (RunMcpPromptParams, AskResult),
    names.MCP_RESOURCES_COMMAND: (McpResourcesParams, McpResourceList),
}

# method → (params, result); None: a notification. A client may answer any request of the server's with null
# (a prompt dismissed, a question declined, nothing saved).
METHOD_MODELS: dict[str, tuple[type[BaseModel], type[BaseModel] | None]] = {
    names.CHAT_METHOD: (ChatEvent, None),
    names.PERMISSION_METHOD: (PermissionParams, PermissionResult),
    names.ASK_USER_METHOD: (AskUserParams, AskUserResult),
    names.SAVE_DOCUMENT_METHOD: (SaveDocumentParams, SaveDocumentResult),
    names.SHARE_DOCUMENT_METHOD: (ShareDocumentParams, ShareDocumentResult),
    names.DIAGNOSTICS_METHOD: (DiagnosticsParams, None),
    names.DID_CHANGE_TRUST_METHOD: (TrustParams, None),
    names.ELICIT_METHOD: (ElicitParams, ElicitResult),
    names.MCP_APPROVAL_METHOD: (McpApprovalParams, McpApprovalResult),
}

CHAT_EVENT_MODELS: dict[ChatEventKind, type[ChatEventBase]] = {
    "turnStart": TurnStartEvent,
    "text": TextEvent,
    "thinking": ThinkingEvent,
    "retry": RetryEvent,
    "toolStart": ToolStartEvent,
    "toolProgress": ToolProgressEvent,
    "toolResult": ToolResultEvent,
    "permission": PermissionEvent,
    "mode": ModeEvent,
    "todos": TodosEvent,
    "turnEnd": TurnEndEvent,
    "background": BackgroundEvent,
}
