/**
 * The chat view's state per session and the incremental view operations each chat event produces.
 * The extension keeps one ChatSessionModel per session and posts only the returned ops to the webview.
 */

import { readBackgroundTasks, runningCount } from "./background";
import type { LineDiff } from "./lineDiff";
import type { CompletionItem } from "./mcpCompletions";
import type { PromptView } from "./permissionCard";
import type { BackgroundTask, ChatEvent, InactiveItem, Todo, Usage, UsageTotals } from "./protocol";
import { usageLine } from "./status";
import { PANEL_TOOLS, resultView } from "./toolCards";

/** `denied`: the user said no (not an error); `stopped`: the prompt was abandoned because the turn was stopped. */
export type ToolStatus = "running" | "waiting" | "done" | "error" | "denied" | "stopped";

export interface ToolCard {
  id: string;
  name: string;
  summary: string;
  status: ToolStatus;
  progress: string[];
  /** The result as the card shows it (see toolCards.resultView); undefined until the call ends. */
  result?: string | null;
  /** One short fact for the card's head: "42 lines", "3 files". */
  fact?: string;
  permission?: string;
  parentId?: string;
  /** The exact command of a shell call, once the client knows it (its permission request), escaped. */
  command?: string;
  /** The model's description of the call, shown after the command. */
  description?: string;
  /** The open permission question about this call (answered in the card), or null once answered. */
  prompt?: PromptView | null;
  /** What the call changed in its file (or proposes to), with +/− counts. */
  diff?: LineDiff;
  /** A card that repeats a panel of its own (TodoWrite) is not drawn, unless it fails. */
  hidden?: boolean;
}

/** A button under a notice that runs one of the extension's commands (e.g. Set API Key). */
export interface NoticeAction {
  label: string;
  command: HostCommand;
}

/** Extension commands the webview may ask for by name (nothing else is run from a view message). */
export const HOST_COMMANDS = [
  "setApiKey", "tryDemo", "openServerSettings", "restartServer", "showOutput", "pickModel", "pickMode",
  "addSelection", "addActiveFile", "openModelSetting", "showPermissionLog",
] as const;
export type HostCommand = (typeof HOST_COMMANDS)[number];

export type Entry =
  | { type: "user"; id: string; text: string }
  | { type: "assistant"; id: string; text: string }
  /** The model's thinking, shown folded. */
  | { type: "thinking"; id: string; text: string }
  | { type: "tool"; id: string; card: ToolCard }
  /** What a turn used: tokens, cache, cost, context. */
  | { type: "usage"; id: string; text: string }
  | { type: "notice"; id: string; text: string; level: "info" | "warning" | "error"; actions?: NoticeAction[] }
  /** The files a turn changed through handrail's tools, and whether that turn was undone. */
  | { type: "checkpoint"; id: string; files: string[]; undone: boolean }
  /** May the workspace's MCP server start? The server's definition as written, and the user's answer. */
  | { type: "mcpApproval"; id: string; server: string; question: string; answer: McpApprovalAnswer };

/** `pending` until answered; `withdrawn`: the server stopped asking (the turn was cancelled). */
export type McpApprovalAnswer = "pending" | "approved" | "notNow" | "withdrawn";

export interface Status {
  sessionId: string;
  running: boolean;
  mode: string;
  /** The session's totals so far, with how full the context window was at the last request. */
  usage: Omit<Usage, "session">;
  /** How many of the session's background agents and shells still run (the status bar shows it). */
  backgroundRunning: number;
}

export interface SessionSummary {
  id: string;
  title: string;
}

/** A problem with the set-up (the server does not start, no key), shown above the transcript until it is fixed. */
export interface Banner {
  level: "warning" | "error";
  text: string;
  actions: NoticeAction[];
}

/** What the empty chat and the toolbar show about the set-up. */
export interface Setup {
  server: "starting" | "running" | "stopped";
  hasKey: boolean;
  model: string;
  /** Workspace folders, for workspace-relative, clickable paths. */
  roots: string[];
}

/** An operation the webview applies to its DOM. */
export type ViewOp =
  | { op: "reset"; entries: Entry[]; todos: Todo[]; background: BackgroundTask[]; status: Status }
  | { op: "entry"; entry: Entry }
  /** Redraw an entry the view has (same id). */
  | { op: "replaceEntry"; entry: Entry }
  | { op: "appendText"; id: string; text: string }
  | { op: "appendThinking"; id: string; text: string }
  | { op: "patchTool"; id: string; patch: Partial<ToolCard> }
  | { op: "todos"; todos: Todo[] }
  | { op: "background"; tasks: BackgroundTask[] }
  | { op: "status"; status: Status }
  | { op: "sessions"; sessions: SessionSummary[]; current: string }
  | { op: "inactive"; items: InactiveItem[]; trusted: boolean }
  | { op: "focusPrompt" }
  | { op: "banner"; banner: Banner | null }
  | { op: "setup"; setup: Setup }
  | { op: "attachments"; items: { id: string; label: string; kind: string }[] }
  | { op: "completions"; query: string; trigger: "@" | "/"; items: CompletionItem[] }
  | { op: "insertMentions"; mentions: string[] }
  | { op: "setPrompt"; text: string }
  | { op: "checkpointUndone"; id: string };

/** Keep progress short: a card shows the latest lines only. */
const MAX_PROGRESS_LINES = 20;

function describeStop(stopReason: string): string | null {
  switch (stopReason) {
    case "end_turn":
    case "tool_use":
      return null;
    case "cancelled":
      return "Stopped.";
    case "max_tokens":
      return "The answer hit the token limit.";
    case "max_turns":
      return "Stopped after the maximum number of model turns.";
    default:
      return `Turn ended: ${stopReason}`;
  }
}

/** One session's transcript, todo list, background tasks and status, updated by chat events. */
export class ChatSessionModel {
  readonly entries: Entry[] = [];
  todos: Todo[] = [];
  background: BackgroundTask[] = [];
  title = "New session";
  private readonly tools = new Map<string, ToolCard>();
  private openText: { id: string; text: string } | null = null;
  private openThinking: { id: string; text: string } | null = null;
  private counter = 0;
  private turnHadText = false;
  /** The prompt shown since it was sent, until its turn starts (approvals may come first). */
  private sentPrompt: Extract<Entry, { type: "user" }> | null = null;
  readonly status: Status;

  constructor(readonly sessionId: string, mode = "default") {
    this.status = { sessionId, running: false, mode, usage: { inputTokens: 0, outputTokens: 0 }, backgroundRunning: 0 };
  }

  /** Everything the view needs to draw this session from scratch (switching sessions, view reload). */
  snapshot(): ViewOp {
    return {
      op: "reset", entries: this.entries.map((e) => structuredClone(e)), todos: [...this.todos],
      background: this.background.map((t) => ({ ...t })), status: { ...this.status },
    };
  }

  private nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}-${this.counter}`;
  }

  private add(entry: Entry): ViewOp {
    this.entries.push(entry);
    return { op: "entry", entry: structuredClone(entry) };
  }

  /** A local notice (errors of the client itself, e.g. the server is restarting). */
  notice(text: string, level: "info" | "warning" | "error" = "info", actions: NoticeAction[] = []): ViewOp[] {
    this.openText = null;
    this.openThinking = null;
    return [this.add({ type: "notice", id: this.nextId("n"), text, level, ...(actions.length > 0 ? { actions } : {}) })];
  }

  /** Draw a past session from its transcript (see pastSessions.ts); a turn that did not finish is marked. */
  loadPast(entries: readonly Entry[], interrupted: boolean): void {
    for (const entry of entries) {
      this.entries.push(entry);
      if (entry.type === "tool") {
        this.tools.set(entry.id, entry.card);
      }
    }
    if (interrupted) {
      this.entries.push({ type: "notice", id: this.nextId("n"), level: "warning",
        text: "Interrupted: the last turn did not finish (the window or the server closed while it ran). Ask again to go on; the agent keeps what it did so far." });
    }
  }

  /** The user sent a prompt: it shows at once, also while the server asks something before the turn starts. */
  promptSent(text: string): ViewOp[] {
    this.openText = null;
    this.openThinking = null;
    this.sentPrompt = { type: "user", id: this.nextId("u"), text };
    return [this.add(this.sentPrompt)];
  }

  /** The prompt sent got no turn (the server refused it): the next turn's prompt is a new entry. */
  promptSettled(): void {
    this.sentPrompt = null;
  }

  /** A workspace's MCP server waits for approval: a card in the chat. */
  mcpApprovalOpened(id: string, server: string, question: string): ViewOp[] {
    this.openText = null;
    this.openThinking = null;
    return [this.add({ type: "mcpApproval", id, server, question, answer: "pending" })];
  }

  /** The approval card was answered (or withdrawn). */
  mcpApprovalClosed(id: string, answer: McpApprovalAnswer): ViewOp[] {
    const entry = this.entries.find((e) => e.type === "mcpApproval" && e.id === id);
    if (entry?.type !== "mcpApproval") {
      return [];
    }
    entry.answer = answer;
    return [{ op: "replaceEntry", entry: structuredClone(entry) }];
  }

  /** The turn that just ended changed these files (shown workspace-relative): it can be undone as a whole. */
  checkpoint(id: string, files: string[]): ViewOp[] {
    this.openText = null;
    this.openThinking = null;
    return [this.add({ type: "checkpoint", id, files, undone: false })];
  }

  /** The turn's changes were undone. */
  checkpointUndone(id: string): ViewOp[] {
    const entry = this.entries.find((e) => e.type === "checkpoint" && e.id === id);
    if (entry?.type !== "checkpoint") {
      return [];
    }
    entry.undone = true;
    return [{ op: "checkpointUndone", id }];
  }

  /** A piece of streamed text or thinking: appended to its open block, or a new block. */
  private stream(kind: "assistant" | "thinking", text: string): ViewOp[] {
    const open = kind === "assistant" ? this.openText : this.openThinking;
    if (open) {
      open.text += text;
      const entry = this.entries.find((e) => e.id === open.id);
      if (entry && (entry.type === "assistant" || entry.type === "thinking")) {
        entry.text = open.text;
      }
      return [{ op: kind === "assistant" ? "appendText" : "appendThinking", id: open.id, text }];
    }
    const id = this.nextId(kind === "assistant" ? "a" : "k");
    if (kind === "assistant") {
      this.openText = { id, text };
      this.openThinking = null;
    } else {
      this.openThinking = { id, text };
      this.openText = null;
    }
    return [this.add({ type: kind, id, text })];
  }

  /** The session's totals after a turn: the server's own when it sends them, else summed here. */
  private addUsage(usage: Usage): void {
    const previous = this.status.usage;
    const totals: UsageTotals = usage.session ?? {
      inputTokens: previous.inputTokens + usage.inputTokens,
      outputTokens: previous.outputTokens + usage.outputTokens,
      cacheReadTokens: (previous.cacheReadTokens ?? 0) + (usage.cacheReadTokens ?? 0),
      cacheWriteTokens: (previous.cacheWriteTokens ?? 0) + (usage.cacheWriteTokens ?? 0),
    };
    this.status.usage = { ...totals, contextTokens: usage.contextTokens, contextWindow: usage.contextWindow };
  }

  /** The status changed outside the chat stream (a turn started from this client). */
  setRunning(running: boolean): ViewOp[] {
    if (this.status.running === running) {
      return [];
    }
    this.status.running = running;
    return [{ op: "status", status: { ...this.status } }];
  }

  private card(id: string, name = "tool", parentId?: string): { card: ToolCard; ops: ViewOp[] } {
    const existing = this.tools.get(id);
    if (existing) {
      return { card: existing, ops: [] };
    }
    // a card for a call we have not seen start (e.g. the first event is a permission prompt)
    const card: ToolCard = { id, name, summary: name, status: "running", progress: [], ...(parentId ? { parentId } : {}) };
    this.tools.set(id, card);
    this.openText = parentId ? this.openText : null;
    return { card, ops: [this.add({ type: "tool", id, card })] };
  }

  private patch(card: ToolCard, patch: Partial<ToolCard>): ViewOp {
    Object.assign(card, patch);
    return { op: "patchTool", id: card.id, patch: structuredClone(patch) };
  }

  /**
   * Replace the background task list (the server always sends the whole list). The status op
   * follows only when the running count changed, so the status bar is not redrawn for nothing.
   */
  setBackground(tasks: unknown): ViewOp[] {
    this.background = readBackgroundTasks(tasks);
    const ops: ViewOp[] = [{ op: "background", tasks: this.background.map((t) => ({ ...t })) }];
    const running = runningCount(this.background);
    if (running !== this.status.backgroundRunning) {
      this.status.backgroundRunning = running;
      ops.push({ op: "status", status: { ...this.status } });
    }
    return ops;
  }

  /** A permission question about this tool call is open: the card asks it (and shows the exact command). */
  promptOpened(view: PromptView, parentId?: string): ViewOp[] {
    const { card, ops } = this.card(view.toolUseId, view.tool, parentId);
    const patch: Partial<ToolCard> = { status: "waiting", permission: "pending", prompt: view, hidden: false };
    if (view.command !== undefined) {
      patch.command = view.command;
      if (view.description !== undefined) {
        patch.description = view.description;
      }
    }
    if (view.diff !== undefined) {
      patch.diff = view.diff;
    }
    return [...ops, this.patch(card, patch)];
  }

  /** The question was answered (or withdrawn): the card stops asking. */
  promptClosed(toolUseId: string): ViewOp[] {
    const card = this.tools.get(toolUseId);
    return card?.prompt ? [this.patch(card, { prompt: null, status: card.status === "waiting" ? "running" : card.status })] : [];
  }

  /** What a file-changing call did to its file (from snapshots taken around it). */
  setDiff(toolUseId: string, diff: LineDiff): ViewOp[] {
    const card = this.tools.get(toolUseId);
    if (!card) {
      return [];
    }
    const patch: Partial<ToolCard> = { diff };
    if (card.result !== undefined && card.status === "done") {
      patch.result = null; // the diff says it better than the text written for the model
    }
    return [this.patch(card, patch)];
  }

  /** The tool call, if this session has seen it. */
  tool(toolUseId: string): ToolCard | undefined {
    return this.tools.get(toolUseId);
  }

  /** Apply one `handrail/chat` event. */
  apply(event: ChatEvent): ViewOp[] {
    switch (event.kind) {
      case "turnStart": {
        this.openText = null;
        this.openThinking = null;
        this.turnHadText = false;
        if (this.title === "New session" && event.prompt.trim()) {
          this.title = event.prompt.trim().split("\n")[0].slice(0, 60);
        }
        this.status.running = true;
        const sent = this.sentPrompt;
        this.sentPrompt = null;
        if (sent) { // shown since it was sent: now as the server has it (attachments spelled out)
          sent.text = event.prompt;
          return [{ op: "replaceEntry", entry: structuredClone(sent) }, { op: "status", status: { ...this.status } }];
        }
        return [this.add({ type: "user", id: this.nextId("u"), text: event.prompt }), { op: "status", status: { ...this.status } }];
      }
      case "text":
        this.turnHadText = true;
        return this.stream("assistant", event.text);
      case "thinking":
        return this.stream("thinking", event.text);
      case "retry":
        return this.notice(`Retrying: ${event.reason}`, "warning");
      case "toolStart": {
        const existing = this.tools.get(event.toolUseId);
        if (existing) {
          return [this.patch(existing, { name: event.name, summary: event.summary })];
        }
        const card: ToolCard = {
          id: event.toolUseId, name: event.name, summary: event.summary, status: "running", progress: [],
          ...(event.parentToolUseId ? { parentId: event.parentToolUseId } : {}),
          ...(PANEL_TOOLS.has(event.name) ? { hidden: true } : {}),
        };
        this.tools.set(card.id, card);
        if (!event.parentToolUseId) {
          this.openText = null;
          this.openThinking = null;
        }
        return [this.add({ type: "tool", id: card.id, card })];
      }
      case "toolProgress": {
        const { card, ops } = this.card(event.toolUseId, "tool", event.parentToolUseId);
        const progress = [...card.progress, event.message].slice(-MAX_PROGRESS_LINES);
        return [...ops, this.patch(card, { progress })];
      }
      case "toolResult": {
        const { card, ops } = this.card(event.toolUseId, "tool", event.parentToolUseId);
        const view = resultView(card.name, event.preview, event.isError, card.diff !== undefined && !card.prompt);
        let status: ToolStatus = event.isError ? "error" : "done";
        if (card.permission === "deny") {
          status = "denied"; // the user's answer, not a failure
        } else if (card.permission === "cancelled") {
          status = "stopped";
        }
        const patch: Partial<ToolCard> = { status, result: view.body, fact: view.fact, prompt: null };
        if (event.isError && card.hidden) {
          patch.hidden = false;
        }
        return [...ops, this.patch(card, patch)];
      }
      case "permission": {
        const { card, ops } = this.card(event.toolUseId, "tool", event.parentToolUseId);
        let status: ToolStatus = card.status === "waiting" ? "running" : card.status;
        if (event.decision === "deny") {
          status = "denied";
        } else if (event.decision === "cancelled") {
          status = "stopped";
        }
        return [...ops, this.patch(card, { permission: event.decision, status, prompt: null })];
      }
      case "turnEnd": {
        this.openText = null;
        this.openThinking = null;
        this.status.running = false;
        const ops: ViewOp[] = [];
        if (!this.turnHadText && event.text && !event.error) {
          ops.push(this.add({ type: "assistant", id: this.nextId("a"), text: event.text }));
        }
        const stop = event.error ? event.error.message : describeStop(event.stopReason);
        if (stop) {
          const level = event.error ? "error" : event.stopReason === "cancelled" ? "info" : "warning";
          ops.push(...this.notice(stop, level, event.error ? fixesFor(event.error.kind) : []));
        }
        if (event.usage) {
          this.addUsage(event.usage);
          if (event.usage.inputTokens + event.usage.outputTokens + (event.usage.cacheReadTokens ?? 0) > 0) {
            ops.push(this.add({ type: "usage", id: this.nextId("c"), text: usageLine(event.usage) }));
          }
        }
        ops.push({ op: "status", status: { ...this.status } });
        return ops;
      }
      case "todos":
        this.todos = event.todos.map((t) => ({ ...t }));
        return [{ op: "todos", todos: this.todos.map((t) => ({ ...t })) }];
      case "background":
        return this.setBackground(event.tasks); // from the wire: read, not trusted to match the type
      case "mode":
        this.status.mode = event.mode;
        return [{ op: "status", status: { ...this.status } }];
      default:
        return [];
    }
  }
}

/** Failures whose fix is a command of this extension: the key is missing or refused. */
export const KEY_FAILURES: readonly string[] = ["noApiKey", "apiKey"];

/** The buttons under a failed turn's message: the fix this extension can run. */
export function fixesFor(kind: string): NoticeAction[] {
  if (KEY_FAILURES.includes(kind)) {
    return [{ label: "Set API Key", command: "setApiKey" }, { label: "Try without a key", command: "tryDemo" }];
  }
  if (kind === "model") {
    return [{ label: "Choose a model", command: "pickModel" }];
  }
  return [];
}

/** How the view labels a permission decision on a tool card. */
export function decisionLabel(decision: string | undefined): string {
  switch (decision) {
    case undefined:
      return "";
    case "pending":
      return "waiting for your answer";
    case "allow":
      return "allowed once";
    case "allow_always":
    case "allowAlways":
      return "always allowed";
    case "deny":
      return "denied by you";
    case "cancelled":
      return "question withdrawn: the turn was stopped";
    default:
      return decision;
  }
}
