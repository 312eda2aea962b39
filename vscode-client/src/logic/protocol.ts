/** The handrail client protocol (see COMMON contract / README "The protocol"): message shapes only. */

export const CHAT = "handrail/chat";
export const PERMISSION = "handrail/permission";
export const ASK_USER = "handrail/askUser";
export const SAVE_DOCUMENT = "handrail/saveDocument";
export const DIAGNOSTICS = "handrail/diagnostics";
export const DID_CHANGE_TRUST = "handrail/didChangeTrust";
export const MCP_APPROVAL = "handrail/mcpApproval";
export const ELICIT = "handrail/elicit";

/** Server commands, called with `workspace/executeCommand`. */
export const Commands = {
  ask: "handrail.ask",
  cancel: "handrail.cancel",
  setMode: "handrail.setMode",
  permissions: "handrail.permissions",
  approveProjectSettings: "handrail.approveProjectSettings",
  mcpStatus: "handrail.mcpStatus",
  backgroundTasks: "handrail.backgroundTasks",
  restartMcpServer: "handrail.restartMcpServer",
  approveMcpServer: "handrail.approveMcpServer",
  signInMcpServer: "handrail.signInMcpServer",
  signOutMcpServer: "handrail.signOutMcpServer",
  mcpPrompts: "handrail.mcpPrompts",
  mcpResources: "handrail.mcpResources",
} as const;

/** What this client declares in `capabilities.experimental.handrail`. */
export const EXPERIMENTAL_CAPABILITIES = {
  handrail: { permissionRequest: true, saveDocument: true, askUser: true, diagnostics: true, mcpApproval: true, elicitation: true, permissionReport: true },
} as const;

export const MODES = ["default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"] as const;
export type Mode = (typeof MODES)[number];

/** Tokens of a series of model requests and their estimated cost (`costUsd` null: a model with no known price). */
export interface UsageTotals {
  /** Plain input (billed at the input price); cache reads and writes are counted apart. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  costUsd?: number | null;
}

/** `turnEnd`'s usage: the turn's totals, the session's, and how full the context window is. */
export interface Usage extends UsageTotals {
  session?: UsageTotals;
  contextTokens?: number;
  contextWindow?: number;
}

/**
 * Why a turn failed, in words the user can act on. `noApiKey` and `apiKey` mean the key is missing or
 * refused (offer to set it); `model` an unknown model; others: forbidden, billing, rateLimited, overloaded,
 * server, network, badRequest, stream, other.
 */
export interface TurnError {
  kind: string;
  message: string;
}

export interface Todo {
  content: string;
  status: "pending" | "in_progress" | "completed";
  activeForm?: string;
}

/**
 * The statuses the server reports: agents end completed, failed or stopped (tools/background_agents.py),
 * shells completed, failed or killed (tools/background_shells.py).
 */
export type BackgroundStatus = "running" | "completed" | "failed" | "stopped" | "killed";

/** One background sub-agent or shell of a session (the `background` chat event, `handrail.backgroundTasks`). */
export interface BackgroundTask {
  id: string;
  kind: "agent" | "shell";
  /** The agent's description or the shell's command line: the model's text, so untrusted. */
  description: string;
  /** A BackgroundStatus; kept as a string so a status a newer server adds is still shown. */
  status: string;
}

interface ChatBase {
  sessionId: string;
}

/** One `handrail/chat` notification. */
export type ChatEvent = ChatBase &
  (
    | { kind: "turnStart"; prompt: string }
    | { kind: "text"; text: string }
    | { kind: "thinking"; text: string }
    | { kind: "retry"; reason: string }
    | { kind: "toolStart"; toolUseId: string; name: string; summary: string; parentToolUseId?: string }
    | { kind: "toolProgress"; toolUseId: string; message: string; parentToolUseId?: string }
    | { kind: "toolResult"; toolUseId: string; isError: boolean; preview: string; parentToolUseId?: string }
    | { kind: "permission"; toolUseId: string; decision: string; parentToolUseId?: string }
    | { kind: "turnEnd"; stopReason: string; text: string; usage?: Usage; error?: TurnError }
    | { kind: "todos"; todos: Todo[] }
    | { kind: "background"; tasks: BackgroundTask[] }
    | { kind: "mode"; mode: string }
  );

export type Destination = "session" | "localSettings" | "projectSettings" | "userSettings";

/** Params of `handrail/permission`. `command` is the exact command a shell call runs (show it first, escaped),
 * `description` the model's words for it; `suggestions` are the rules "always allow" adds, all together. */
export interface PermissionParams {
  sessionId: string;
  toolUseId: string;
  tool: string;
  input: Record<string, unknown>;
  summary: string;
  reason: string;
  diff: string | null;
  suggestions: string[];
  agent?: { toolUseId: string; description: string };
  command?: string | null;
  description?: string | null;
}

/** Result of `handrail/permission`: `rules` are the rules an "always allow" adds (`rule`, their first, for older servers). */
export interface PermissionResult {
  decision: "allow" | "allowAlways" | "deny";
  rules?: string[];
  rule?: string;
  destination?: Destination;
  feedback?: string;
}

export interface AskOption {
  label: string;
  description?: string;
}

export interface AskQuestion {
  question: string;
  header?: string;
  options: AskOption[];
  multiSelect?: boolean;
}

/** Params of `handrail/askUser`. */
export interface AskUserParams {
  sessionId: string;
  toolUseId: string;
  questions: AskQuestion[];
}

export interface AskUserResult {
  answers: Record<string, string>;
}

/** Params of `handrail/mcpApproval`: may the workspace's MCP server start? Asked before the session's turn;
 * `question` is the server's definition as written (command, arguments, URL, the variables it is sent): shown exactly. */
export interface McpApprovalParams {
  sessionId: string;
  server: string;
  question: string;
}

/** Result of `handrail/mcpApproval` (null or false: not now). */
export interface McpApprovalResult {
  approved: boolean;
}

/** Result of `handrail.ask`. */
export interface AskResult {
  sessionId: string;
  stopReason: string;
  text: string;
  usage?: Usage;
  error?: TurnError;
}

/** One entry of `handrail.permissions`' `inactive` list (a rule or a setting). `value` says what a held-back setting
 * would do; `digest` approves it (`handrail.approveProjectSettings [{items: [digest]}]`). */
export interface InactiveItem {
  rule?: string;
  setting?: string;
  behavior?: string;
  source: string;
  reason: string;
  value?: string;
  digest?: string;
}

export interface PermissionsReport {
  mode: string;
  inactive: InactiveItem[];
  problems?: { file: string; message: string; rule?: string | null }[];
}

/** One configured MCP server; `state` is starting, running, failed, restarting, stopped, needsApproval,
 * untrusted or needsSignIn (kept a string so a state a newer server adds is still shown). */
export interface McpServerStatus {
  name: string;
  source: string;
  state: string;
  tools: string[];
  error?: string;
  stderrTail?: string;
  toolsChanged?: { added: string[]; removed: string[] };
  restarts?: number;
  /** Reached over HTTP or SSE: it may have a sign-in to sign out of (a server run on this machine has none). */
  remote?: boolean;
  /** needsSignIn: where the user signs in. */
  signInAt?: string;
  /** needsApproval: what approving starts (the definition as written) and its digest, passed back to approve. */
  approval?: { question: string; digest: string };
}

/** What `handrail.approveMcpServer` answers. */
export interface McpApproveResult {
  approved: boolean;
  name: string;
  reason?: string;
}

/** What `handrail.signInMcpServer` answers (the browser opens through window/showDocument). */
export interface McpSignInResult {
  signingIn: boolean;
  name: string;
  reason?: string;
}

/** What `handrail.signOutMcpServer` answers. */
export interface McpSignOutResult {
  signedOut: boolean;
  name: string;
  detail?: string;
  reason?: string;
}

export interface McpPromptArgument {
  name: string;
  description: string | null;
  required: boolean;
}

/** An MCP prompt: `command` (`/mcp__server__prompt`) typed as a prompt runs it; `usage` shows its arguments. */
export interface McpPrompt {
  server: string;
  name: string;
  title: string | null;
  description: string | null;
  command: string;
  usage: string;
  arguments: McpPromptArgument[];
}

/** A resource or resource template to mention: `mention` (`@server:uri`) is the text to insert. */
export interface McpMentionable {
  server: string;
  uri?: string;
  uriTemplate?: string;
  name: string;
  mention: string;
  description?: string;
  mimeType?: string;
}

/** Params of `handrail/elicit`: an MCP server's form (a flat JSON Schema object). */
export interface ElicitParams {
  server: string;
  message: string;
  requestedSchema: Record<string, unknown>;
}

/** Result of `handrail/elicit`. */
export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown> | null;
}

/** What `handrail.restartMcpServer` answers. */
export interface McpRestartResult {
  restarted: boolean;
  name: string;
  reason?: string;
}

/** An LSP diagnostic as sent in `handrail/diagnostics`. */
export interface LspDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity?: number;
  code?: string | number;
  source?: string;
  message: string;
}

export interface DiagnosticsParams {
  uri: string;
  version: number | null;
  diagnostics: LspDiagnostic[];
}

/** Read a chat event from untrusted JSON: null unless it has a session id and a kind. */
export function asChatEvent(value: unknown): ChatEvent | null {
  if (typeof value !== "object" || value === null) {
    return null;
  }
  const record = value as Record<string, unknown>;
  if (typeof record.sessionId !== "string" || typeof record.kind !== "string") {
    return null;
  }
  return value as ChatEvent;
}
