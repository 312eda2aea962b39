/** The chat view's controller: sessions, the webview's messages, and which ops reach the view. */

import { ChatSessionModel, type SessionSummary, type Status, type ViewOp } from "./chatModel";
import type { HandrailCommands } from "./handlers";
import type { ChatEvent, PermissionParams, PermissionsReport, TurnError } from "./protocol";

/** Messages the webview sends. */
export type WebviewMessage =
  | { type: "ready" }
  | { type: "ask"; prompt: string }
  | { type: "stop" }
  | { type: "newSession" }
  | { type: "switchSession"; id: string }
  | { type: "approveProject" };

export interface ChatHost {
  /** Post one op to the webview (dropped if the view is not open; `ready` redraws it). */
  post(op: ViewOp): void;
  /** The server's commands once it runs (waits while it starts); null if it is not running. */
  commands(): Promise<Pick<HandrailCommands, "ask" | "cancel"> | null>;
  newSessionId(): string;
  /** Review and approve the project settings (the extension opens the file and asks). */
  approveProject(): Promise<void>;
  /** The current session's status changed (for the status bar). */
  statusChanged(status: Status): void;
  /** A turn failed in a way the user can act on (the chat shows the message; the host may offer a fix). */
  turnFailed?(error: TurnError): void;
}

/** Failures whose fix is a command of this extension: the key is missing or refused. */
export const KEY_FAILURES: readonly string[] = ["noApiKey", "apiKey"];

/** Read a message from the webview (untrusted input). */
export function asWebviewMessage(value: unknown): WebviewMessage | null {
  if (typeof value !== "object" || value === null) {
    return null;
  }
  const m = value as Record<string, unknown>;
  switch (m.type) {
    case "ready":
    case "stop":
    case "newSession":
    case "approveProject":
      return { type: m.type };
    case "ask":
      return typeof m.prompt === "string" ? { type: "ask", prompt: m.prompt } : null;
    case "switchSession":
      return typeof m.id === "string" ? { type: "switchSession", id: m.id } : null;
    default:
      return null;
  }
}

export class ChatController {
  private readonly sessions = new Map<string, ChatSessionModel>();
  private currentId: string;
  private inactive: ViewOp = { op: "inactive", items: [], trusted: true };

  constructor(private readonly host: ChatHost, private mode = "default") {
    this.currentId = this.create().sessionId;
  }

  /** The session the view shows. */
  get current(): ChatSessionModel {
    return this.sessions.get(this.currentId) ?? this.create();
  }

  private create(id = this.host.newSessionId()): ChatSessionModel {
    const model = new ChatSessionModel(id, this.mode);
    this.sessions.set(id, model);
    this.currentId ??= id;
    return model;
  }

  private summaries(): SessionSummary[] {
    return [...this.sessions.values()].reverse().map((s) => ({ id: s.sessionId, title: s.title }));
  }

  private emit(model: ChatSessionModel, ops: ViewOp[]): void {
    if (model.sessionId !== this.currentId) {
      return; // the view shows another session; `snapshot()` draws this one when switched to
    }
    for (const op of ops) {
      this.host.post(op);
    }
    if (ops.some((op) => op.op === "status")) {
      this.host.statusChanged({ ...model.status });
    }
  }

  /** A `handrail/chat` event from the server. */
  handleEvent(event: ChatEvent): void {
    const model = this.sessions.get(event.sessionId) ?? this.create(event.sessionId);
    const hadTitle = model.title;
    this.emit(model, model.apply(event));
    if (model.title !== hadTitle) {
      this.host.post({ op: "sessions", sessions: this.summaries(), current: this.currentId });
    }
    if (event.kind === "mode") {
      this.mode = event.mode;
    }
    if (event.kind === "turnEnd" && event.error) {
      this.host.turnFailed?.(event.error);
    }
  }

  /** A permission prompt opened: mark its card as waiting. */
  promptOpened(params: PermissionParams): void {
    const model = this.sessions.get(params.sessionId);
    if (model) {
      this.emit(model, model.promptOpened(params.toolUseId, params.tool));
    }
  }

  /** A client-side notice in the current session (server restarts, errors). */
  notice(text: string, level: "info" | "warning" | "error" = "info"): void {
    this.emit(this.current, this.current.notice(text, level));
  }

  /** The server's `handrail.permissions` report: show inactive project rules and why. */
  setPermissions(report: PermissionsReport | null, trusted: boolean): void {
    this.inactive = { op: "inactive", items: report?.inactive ?? [], trusted };
    this.host.post(this.inactive);
  }

  /**
   * The server process changed: background work dies with the process that ran it, so the rows the
   * view shows are re-read from the server (`list`), or cleared when no server runs (`list` null).
   * Only sessions that show rows are asked about; a failed query clears them too (their process is gone).
   */
  async resyncBackground(list: ((sessionId: string) => Promise<unknown>) | null): Promise<void> {
    for (const model of [...this.sessions.values()].filter((m) => m.background.length > 0)) {
      let tasks: unknown = [];
      try {
        tasks = list ? await list(model.sessionId) : [];
      } catch {
        tasks = [];
      }
      this.emit(model, model.setBackground(tasks));
    }
  }

  /** The permission mode was switched by the user. */
  setMode(mode: string): void {
    this.mode = mode;
    this.emit(this.current, this.current.apply({ sessionId: this.currentId, kind: "mode", mode }));
  }

  /** Ask in the current session; resolves when the turn ends. */
  async ask(prompt: string): Promise<void> {
    const text = prompt.trim();
    const model = this.current;
    if (!text) {
      return;
    }
    const commands = await this.host.commands();
    if (!commands) {
      this.emit(model, model.notice("The handrail server is not running.", "error"));
      return;
    }
    if (model.status.running) {
      this.emit(model, model.notice("A turn is still running in this session: stop it or wait.", "warning"));
      return;
    }
    this.emit(model, model.setRunning(true));
    try {
      await commands.ask(text, model.sessionId);
    } catch (error) {
      this.emit(model, model.notice(`The ask failed: ${error instanceof Error ? error.message : String(error)}`, "error"));
    } finally {
      this.emit(model, model.setRunning(false));
    }
  }

  /** Stop the current session's turn. */
  async stop(): Promise<void> {
    await (await this.host.commands())?.cancel(this.currentId);
  }

  /** Start a new (empty) session and show it. */
  newSession(): void {
    const model = this.create();
    this.switchTo(model.sessionId);
  }

  /** Show another session. */
  switchTo(id: string): void {
    if (!this.sessions.has(id)) {
      return;
    }
    this.currentId = id;
    this.redraw();
  }

  /** Draw everything (the view was opened or reloaded). */
  redraw(): void {
    this.host.post({ op: "sessions", sessions: this.summaries(), current: this.currentId });
    this.host.post(this.current.snapshot());
    this.host.post(this.inactive);
    this.host.statusChanged({ ...this.current.status });
  }

  /** Dispatch a webview message. */
  async handleMessage(raw: unknown): Promise<void> {
    const message = asWebviewMessage(raw);
    switch (message?.type) {
      case "ready":
        this.redraw();
        return;
      case "ask":
        return this.ask(message.prompt);
      case "stop":
        return this.stop();
      case "newSession":
        this.newSession();
        return;
      case "switchSession":
        this.switchTo(message.id);
        return;
      case "approveProject":
        return this.host.approveProject();
      default:
        return;
    }
  }
}
