/**
 * The chat view's state per session and the incremental view operations each chat event produces.
 * The extension keeps one ChatSessionModel per session and posts only the returned ops to the webview.
 */

import { readBackgroundTasks, runningCount } from "./background";
import type { BackgroundTask, ChatEvent, InactiveItem, Todo, Usage, UsageTotals } from "./protocol";
import { usageLine } from "./status";

export type ToolStatus = "running" | "waiting" | "done" | "error";

export interface ToolCard {
  id: string;
  name: string;
  summary: string;
  status: ToolStatus;
  progress: string[];
  result?: string;
  permission?: string;
  parentId?: string;
}

export type Entry =
  | { type: "user"; id: string; text: string }
  | { type: "assistant"; id: string; text: string }
  /** The model's thinking, shown folded. */
  | { type: "thinking"; id: string; text: string }
  | { type: "tool"; id: string; card: ToolCard }
  /** What a turn used: tokens, cache, cost, context. */
  | { type: "usage"; id: string; text: string }
  | { type: "notice"; id: string; text: string; level: "info" | "warning" | "error" };

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

/** An operation the webview applies to its DOM. */
export type ViewOp =
  | { op: "reset"; entries: Entry[]; todos: Todo[]; background: BackgroundTask[]; status: Status }
  | { op: "entry"; entry: Entry }
  | { op: "appendText"; id: string; text: string }
  | { op: "appendThinking"; id: string; text: string }
  | { op: "patchTool"; id: string; patch: Partial<ToolCard> }
  | { op: "todos"; todos: Todo[] }
  | { op: "background"; tasks: BackgroundTask[] }
  | { op: "status"; status: Status }
  | { op: "sessions"; sessions: SessionSummary[]; current: string }
  | { op: "inactive"; items: InactiveItem[]; trusted: boolean }
  | { op: "focusPrompt" };

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
  notice(text: string, level: "info" | "warning" | "error" = "info"): ViewOp[] {
    this.openText = null;
    this.openThinking = null;
    return [this.add({ type: "notice", id: this.nextId("n"), text, level })];
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

  /** A permission prompt for this tool call is open in the editor. */
  promptOpened(toolUseId: string, tool: string): ViewOp[] {
    const { card, ops } = this.card(toolUseId, tool);
    return [...ops, this.patch(card, { status: "waiting", permission: "pending" })];
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
        return [...ops, this.patch(card, { status: event.isError ? "error" : "done", result: event.preview })];
      }
      case "permission": {
        const { card, ops } = this.card(event.toolUseId, "tool", event.parentToolUseId);
        const status: ToolStatus = event.decision === "deny" || event.decision === "cancelled" ? "error" : "running";
        return [...ops, this.patch(card, { permission: event.decision, status: card.status === "waiting" || status === "error" ? status : card.status })];
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
          ops.push(...this.notice(stop, level));
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
      return "denied";
    case "cancelled":
      return "prompt cancelled";
    default:
      return decision;
  }
}
