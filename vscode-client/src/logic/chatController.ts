/** The chat view's controller: sessions, the webview's messages, permission questions, and which ops reach the view. */

import type { CancellationToken } from "vscode-jsonrpc";
import {
  ChatSessionModel, HOST_COMMANDS, fixesFor, type Banner, type HostCommand, type SessionSummary, type Setup, type Status, type ViewOp,
} from "./chatModel";
import type { HandrailCommands } from "./handlers";
import { diffTexts } from "./lineDiff";
import { isPromptCommand, promptItems, resourceItems, type CompletionItem } from "./mcpCompletions";
import { composePrompt, mentionText, mentionedPaths, type Attachment, type NewAttachment, type PathCandidate } from "./mentions";
import { cardResult, isDestination, promptView, type CardAnswer } from "./permissionCard";
import type {
  ChatEvent, McpApprovalParams, McpApprovalResult, McpMentionable, McpPrompt, PermissionParams, PermissionResult, PermissionsReport,
} from "./protocol";
import { changedFile } from "./toolCards";
import { displayPath } from "./paths";
import { TurnFiles, restoreFiles, undoNote, type Checkpoint } from "./checkpoints";
import { readTranscript, shortDate, type StoredSession } from "./pastSessions";

/** Messages the webview sends. */
export type WebviewMessage =
  | { type: "ready" }
  | { type: "ask"; prompt: string }
  | { type: "stop" }
  | { type: "newSession" }
  | { type: "switchSession"; id: string }
  | { type: "approveProject" }
  | { type: "permission"; toolUseId: string; answer: CardAnswer }
  | { type: "openDiff"; toolUseId: string }
  | { type: "openFile"; path: string; line?: number }
  | { type: "copy"; text: string }
  | { type: "command"; command: HostCommand }
  | { type: "complete"; query: string; trigger: "@" | "/" }
  | { type: "drop"; uris: string[] }
  | { type: "removeAttachment"; id: string }
  | { type: "undoTurn"; id: string }
  | { type: "mcpApproval"; id: string; approved: boolean };

/** The server commands the chat uses. */
export type ChatCommands = Pick<HandrailCommands, "ask" | "cancel" | "setMode">;

export interface ChatHost {
  /** Post one op to the webview (dropped if the view is not open; `ready` redraws it). */
  post(op: ViewOp): void;
  /** The commands of the server that runs `sessionId` (the demo's for a demo session), once it runs; null if it does not. */
  commands(sessionId: string): Promise<ChatCommands | null>;
  newSessionId(): string;
  /** Review and approve the project settings (the extension opens the file and asks). */
  approveProject(): Promise<void>;
  /** The current session's status changed (for the status bar). */
  statusChanged(status: Status): void;
  /** Run one of the extension's commands for a button of the view. */
  run?(command: HostCommand): Promise<void>;
  /** The text of a file as the editor has it (open buffer, else disk), read at once; null when unreadable. */
  readText?(path: string): string | null;
  /** Open a workspace file (an absolute path, or one relative to the workspace), at a line. */
  openFile?(path: string, line?: number): Promise<void>;
  /** Open a permission request's proposed change in the diff editor. */
  openDiff?(params: PermissionParams): Promise<void>;
  copy?(text: string): Promise<void>;
  /** Workspace files and folders for `@` completion. */
  complete?(query: string): Promise<PathCandidate[]>;
  /** The MCP servers' prompts for `/` completion (empty when none, or no server runs). */
  mcpPrompts?(): Promise<McpPrompt[]>;
  /** The MCP servers' resources for `@` completion. */
  mcpResources?(): Promise<McpMentionable[]>;
  /** What `@path` mentions (typed, dropped) attach: null for a path that is not in the workspace. */
  resolveMention?(path: string): Promise<Attachment | null>;
  /** Dropped URIs as workspace-relative paths to mention. */
  dropped?(uris: string[]): Promise<string[]>;
  /** How many permission questions are open (the extension sets a context key for its shortcuts). */
  questionsChanged?(open: number): void;
  /**
   * Undo a turn: show the user what goes back (the preview) and, once confirmed, put each file back as
   * it was before the turn. True when it was done; false when the user declined.
   */
  undoFiles?(checkpoint: Checkpoint): Promise<boolean>;
  /** A session's title or running state changed (the extension remembers the workspace's sessions). */
  sessionChanged?(session: StoredSession): void;
  /** The transcript the server saved for a session (`transcript.jsonl`), or null when there is none. */
  readTranscript?(sessionId: string): string | null;
}

function isHostCommand(value: unknown): value is HostCommand {
  return typeof value === "string" && (HOST_COMMANDS as readonly string[]).includes(value);
}

function readAnswer(value: unknown): CardAnswer | null {
  if (typeof value !== "object" || value === null) {
    return null;
  }
  const a = value as Record<string, unknown>;
  if (a.decision !== "allow" && a.decision !== "allowAlways" && a.decision !== "deny") {
    return null;
  }
  const answer: CardAnswer = { decision: a.decision };
  if (isDestination(a.destination)) {
    answer.destination = a.destination;
  }
  if (typeof a.feedback === "string") {
    answer.feedback = a.feedback.slice(0, 10_000);
  }
  return answer;
}

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
    case "permission": {
      const answer = readAnswer(m.answer);
      return typeof m.toolUseId === "string" && answer ? { type: "permission", toolUseId: m.toolUseId, answer } : null;
    }
    case "openDiff":
      return typeof m.toolUseId === "string" ? { type: "openDiff", toolUseId: m.toolUseId } : null;
    case "openFile":
      return typeof m.path === "string"
        ? { type: "openFile", path: m.path, ...(typeof m.line === "number" && Number.isInteger(m.line) && m.line > 0 ? { line: m.line } : {}) }
        : null;
    case "copy":
      return typeof m.text === "string" ? { type: "copy", text: m.text } : null;
    case "command":
      return isHostCommand(m.command) ? { type: "command", command: m.command } : null;
    case "complete":
      return typeof m.query === "string" ? { type: "complete", query: m.query.slice(0, 200), trigger: m.trigger === "/" ? "/" : "@" } : null;
    case "drop":
      return Array.isArray(m.uris) ? { type: "drop", uris: m.uris.filter((u): u is string => typeof u === "string").slice(0, 100) } : null;
    case "removeAttachment":
      return typeof m.id === "string" ? { type: "removeAttachment", id: m.id } : null;
    case "undoTurn":
      return typeof m.id === "string" ? { type: "undoTurn", id: m.id } : null;
    case "mcpApproval":
      return typeof m.id === "string" && typeof m.approved === "boolean" ? { type: "mcpApproval", id: m.id, approved: m.approved } : null;
    default:
      return null;
  }
}

interface OpenQuestion {
  params: PermissionParams;
  resolve: (result: PermissionResult) => void;
}

export class ChatController {
  private readonly sessions = new Map<string, ChatSessionModel>();
  private currentId: string;
  private inactive: ViewOp = { op: "inactive", items: [], trusted: true };
  private banner: Banner | null = null;
  private setup: Setup = { server: "starting", hasKey: true, model: "", roots: [] };
  private readonly questions = new Map<string, OpenQuestion>();
  /** Open MCP server approval cards, by card id. */
  private readonly serverApprovals = new Map<string, (approved: boolean) => void>();
  private approvalCounter = 0;
  /** Snapshots of files before a file-changing call ran, by tool call. */
  private readonly before = new Map<string, { path: string; text: string | null }>();
  /** Sessions whose mode the server has not been told yet (carried over from the previous session). */
  private readonly modeToApply = new Map<string, Promise<void>>();
  /** The files each session's running turn changes (their text before the turn). */
  private readonly turnFiles = new Map<string, TurnFiles>();
  /** Turns that can be undone, by checkpoint id. */
  private readonly checkpoints = new Map<string, Checkpoint>();
  private checkpointCounter = 0;
  /** Said to the model with a session's next prompt (an undo it should know about). */
  private readonly notes = new Map<string, string[]>();
  /** Sessions of earlier windows, not drawn until the user opens one (newest first). */
  private past: StoredSession[] = [];
  private attachments: Attachment[] = [];
  private attachmentCounter = 0;

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
    const open = [...this.sessions.values()].reverse().map((s) => ({ id: s.sessionId, title: s.title }));
    const earlier = this.past.map((s) => ({ id: s.id, title: `${s.title} · ${shortDate(s.updated)}${s.running ? " · interrupted" : ""}` }));
    return [...open, ...earlier];
  }

  /** The workspace's sessions from earlier windows (their transcripts are read when one is opened). */
  addPastSessions(list: readonly StoredSession[]): void {
    this.past = list.filter((s) => !this.sessions.has(s.id));
    this.host.post({ op: "sessions", sessions: this.summaries(), current: this.currentId });
  }

  /** Open a past session: drawn from its transcript; its next prompt resumes it on the server (same id). */
  private openPast(stored: StoredSession): boolean {
    const text = this.host.readTranscript?.(stored.id) ?? null;
    if (text === null) {
      this.past = this.past.filter((s) => s.id !== stored.id);
      this.notice(`The session "${stored.title}" has no saved transcript any more.`, "warning");
      return false;
    }
    const model = new ChatSessionModel(stored.id, this.mode);
    model.title = stored.title;
    const transcript = readTranscript(text);
    model.loadPast(transcript.entries, transcript.interrupted || stored.running);
    this.sessions.set(stored.id, model);
    this.past = this.past.filter((s) => s.id !== stored.id);
    this.applyCarriedMode(model); // the server resumes it in the mode the chat shows
    return true;
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
    if (event.kind === "turnStart") {
      this.turnFiles.set(event.sessionId, new TurnFiles(event.prompt));
    }
    if (event.kind === "toolStart") {
      this.snapshotBefore(event.sessionId, event.toolUseId, event.name, event.summary);
    }
    if (event.kind === "toolResult") {
      this.emit(model, this.diffAfter(model, event.toolUseId, event.isError));
    }
    this.emit(model, model.apply(event));
    if (event.kind === "turnEnd") {
      this.checkpoint(model);
    }
    if (event.kind === "turnStart" || event.kind === "turnEnd") {
      this.host.sessionChanged?.({ id: model.sessionId, title: model.title, updated: Date.now(), running: event.kind === "turnStart" });
    }
    if (model.title !== hadTitle) {
      this.host.post({ op: "sessions", sessions: this.summaries(), current: this.currentId });
    }
    if (event.kind === "mode") {
      this.mode = event.mode;
    }
  }

  /** Before a file-changing call runs, keep the file's text (read at once: the edit arrives after this event). */
  private snapshotBefore(sessionId: string, toolUseId: string, name: string, summary: string): void {
    const path = changedFile(name, summary);
    if (path !== null && this.host.readText) {
      const text = this.host.readText(path);
      this.before.set(toolUseId, { path, text });
      this.turnFiles.get(sessionId)?.keep(path, text);
    }
  }

  /** A turn ended: the files it really changed make a checkpoint the user can undo in one action. */
  private checkpoint(model: ChatSessionModel): void {
    const files = this.turnFiles.get(model.sessionId);
    this.turnFiles.delete(model.sessionId);
    if (!files || !this.host.readText) {
      return;
    }
    const restored = restoreFiles(files.list(), (path) => this.host.readText?.(path) ?? null);
    if (restored.length === 0) {
      return;
    }
    this.checkpointCounter += 1;
    const checkpoint: Checkpoint = { id: `cp-${this.checkpointCounter}`, sessionId: model.sessionId, prompt: files.prompt, files: restored };
    this.checkpoints.set(checkpoint.id, checkpoint);
    this.emit(model, model.checkpoint(checkpoint.id, restored.map((f) => displayPath(f.path, this.setup.roots))));
  }

  /**
   * Undo a turn: every file it changed through handrail's tools goes back to its state before the turn,
   * after the host's preview is confirmed. Not while that session runs a turn.
   */
  async undoTurn(id: string): Promise<void> {
    const checkpoint = this.checkpoints.get(id);
    const model = checkpoint && this.sessions.get(checkpoint.sessionId);
    if (!checkpoint || !model || !this.host.undoFiles || !this.host.readText) {
      return;
    }
    if (model.status.running) {
      this.emit(model, model.notice("Stop the running turn before undoing one.", "warning"));
      return;
    }
    const files = restoreFiles(checkpoint.files, (path) => this.host.readText?.(path) ?? null);
    if (files.length === 0) {
      this.checkpoints.delete(id);
      this.emit(model, model.checkpointUndone(id));
      this.emit(model, model.notice("Nothing to undo: the files are already as they were before that turn.", "info"));
      return;
    }
    const current = { ...checkpoint, files };
    if (!(await this.host.undoFiles(current))) {
      return;
    }
    this.checkpoints.delete(id);
    this.emit(model, model.checkpointUndone(id));
    const shown = (path: string): string => displayPath(path, this.setup.roots);
    this.emit(model, model.notice(`Undone: ${files.map((f) => shown(f.path)).join(", ")} ${files.length === 1 ? "is" : "are"} back as before the turn.`, "info"));
    this.notes.set(model.sessionId, [...(this.notes.get(model.sessionId) ?? []), undoNote(current, shown)]);
  }

  private diffAfter(model: ChatSessionModel, toolUseId: string, isError: boolean): ViewOp[] {
    const before = this.before.get(toolUseId);
    this.before.delete(toolUseId);
    if (!before || isError || !this.host.readText) {
      return [];
    }
    const after = this.host.readText(before.path);
    if (after === null || after === before.text) {
      return [];
    }
    return model.setDiff(toolUseId, diffTexts(before.text ?? "", after));
  }

  /**
   * A permission request: the question opens in its tool card and stays there until it is answered (in
   * the card, or through `answer` from a quick pick or a command) or the server withdraws it. Nothing
   * else closes it: a quick input opened meanwhile (Ctrl+P) does not deny it.
   */
  askPermission(params: PermissionParams, token: CancellationToken): Promise<PermissionResult> {
    const model = this.sessions.get(params.sessionId) ?? this.create(params.sessionId);
    return new Promise<PermissionResult>((resolve) => {
      const settle = (result: PermissionResult): void => {
        if (this.questions.get(params.toolUseId)?.resolve === settle) {
          this.questions.delete(params.toolUseId);
          this.host.questionsChanged?.(this.questions.size);
          subscription.dispose();
          this.emit(model, model.promptClosed(params.toolUseId));
          resolve(result);
        }
      };
      this.questions.set(params.toolUseId, { params, resolve: settle });
      this.host.questionsChanged?.(this.questions.size);
      const subscription = token.onCancellationRequested(() => settle({ decision: "deny" })); // the server ignores it
      this.emit(model, model.promptOpened(promptView(params, this.setup.roots), params.agent?.toolUseId));
    });
  }

  /**
   * May the workspace's MCP server start? A card in the session's chat, under the prompt that waits for it,
   * showing the server's definition exactly; it stays until answered or withdrawn by the server.
   */
  askMcpApproval(params: McpApprovalParams, token: CancellationToken): Promise<McpApprovalResult> {
    const model = this.sessions.get(params.sessionId) ?? this.create(params.sessionId);
    this.approvalCounter += 1;
    const id = `mcp-approval-${this.approvalCounter}`;
    return new Promise<McpApprovalResult>((resolve) => {
      const settle = (approved: boolean, withdrawn = false): void => {
        if (this.serverApprovals.delete(id)) {
          subscription.dispose();
          this.emit(model, model.mcpApprovalClosed(id, withdrawn ? "withdrawn" : approved ? "approved" : "notNow"));
          resolve({ approved });
        }
      };
      this.serverApprovals.set(id, settle);
      const subscription = token.onCancellationRequested(() => settle(false, true));
      this.emit(model, model.mcpApprovalOpened(id, params.server, params.question));
    });
  }

  /** Answer an open question (from the card, a quick pick or a command); false when it is no longer open. */
  answer(toolUseId: string, result: PermissionResult): boolean {
    const question = this.questions.get(toolUseId);
    question?.resolve(result);
    return question !== undefined;
  }

  /** The open questions of the current session, oldest first. */
  openQuestions(): PermissionParams[] {
    return [...this.questions.values()].map((q) => q.params).filter((p) => p.sessionId === this.currentId);
  }

  /** A client-side notice in the current session (server restarts, errors). */
  notice(text: string, level: "info" | "warning" | "error" = "info"): void {
    this.emit(this.current, this.current.notice(text, level));
  }

  /** A set-up problem shown above the transcript until it is cleared (null). */
  setBanner(banner: Banner | null): void {
    if (JSON.stringify(banner) !== JSON.stringify(this.banner)) {
      this.banner = banner;
      this.host.post({ op: "banner", banner });
    }
  }

  /** What the empty state and toolbar show (server state, key, model, workspace folders). */
  updateSetup(patch: Partial<Setup>): void {
    this.setup = { ...this.setup, ...patch };
    this.host.post({ op: "setup", setup: { ...this.setup } });
  }

  /**
   * The server's `handrail.permissions` report: show inactive project rules and why, and the mode the
   * server has for the current session (the truth, whatever the view assumed).
   */
  setPermissions(report: PermissionsReport | null, trusted: boolean): void {
    this.inactive = { op: "inactive", items: report?.inactive ?? [], trusted };
    this.host.post(this.inactive);
    if (report?.mode && !this.modeToApply.has(this.currentId) && report.mode !== this.current.status.mode) {
      this.mode = report.mode;
      this.emit(this.current, this.current.apply({ sessionId: this.currentId, kind: "mode", mode: report.mode }));
    }
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

  /** The permission mode was switched by the user (and the server agreed). */
  setMode(mode: string): void {
    this.mode = mode;
    this.modeToApply.delete(this.currentId);
    this.emit(this.current, this.current.apply({ sessionId: this.currentId, kind: "mode", mode }));
  }

  /** Tell the server the mode a new session was given (the previous session's), before its first prompt. */
  private applyCarriedMode(model: ChatSessionModel): void {
    const mode = model.status.mode;
    const applying = (async () => {
      const commands = await this.host.commands(model.sessionId);
      if (!commands) {
        return; // asked again before the first prompt
      }
      try {
        await commands.setMode(mode, model.sessionId);
        this.modeToApply.delete(model.sessionId);
      } catch (error) {
        this.modeToApply.delete(model.sessionId);
        this.emit(model, model.notice(`The permission mode ${mode} could not be carried into this session: ${error instanceof Error ? error.message : String(error)}`, "warning"));
        this.emit(model, model.apply({ sessionId: model.sessionId, kind: "mode", mode: "default" }));
      }
    })();
    this.modeToApply.set(model.sessionId, applying);
  }

  /** The attachments (selection, files) waiting for the next prompt. */
  attach(attachment: NewAttachment): void {
    this.attachmentCounter += 1;
    this.attachments.push({ ...attachment, id: `att-${this.attachmentCounter}` });
    this.postAttachments();
  }

  private postAttachments(): void {
    this.host.post({ op: "attachments", items: this.attachments.map((a) => ({ id: a.id, label: a.label, kind: a.kind })) });
  }

  /** The prompt with its attachments and `@` mentions spelled out for the model. */
  private async compose(text: string): Promise<string> {
    const attached = [...this.attachments];
    for (const path of mentionedPaths(text)) {
      const resolved = await this.host.resolveMention?.(path);
      if (resolved && !attached.some((a) => a.kind !== "selection" && resolved.kind !== "selection" && a.absolute === resolved.absolute)) {
        attached.push(resolved);
      }
    }
    const composed = composePrompt(text, attached);
    const notes = this.notes.get(this.currentId) ?? [];
    this.notes.delete(this.currentId);
    return notes.length > 0 ? `${composed}\n\n${notes.join("\n")}` : composed;
  }

  /** Ask in the current session; resolves when the turn ends. */
  async ask(prompt: string): Promise<void> {
    const text = prompt.trim();
    const model = this.current;
    if (!text) {
      return;
    }
    const commands = await this.host.commands(model.sessionId);
    if (!commands) {
      this.emit(model, model.notice("The handrail server is not running.", "error", [
        { label: "Restart Server", command: "restartServer" }, { label: "Server Settings", command: "openServerSettings" },
      ]));
      return;
    }
    if (model.status.running) {
      this.emit(model, model.notice("A turn is still running in this session: stop it or wait.", "warning"));
      return;
    }
    // an MCP prompt's command is read by the server word by word: sent as typed (attachments wait for the next prompt)
    const command = isPromptCommand(text);
    const full = command ? text : await this.compose(text);
    if (!command) {
      this.attachments = [];
      this.postAttachments();
    }
    this.emit(model, model.promptSent(full));
    this.emit(model, model.setRunning(true));
    try {
      if (this.modeToApply.has(model.sessionId)) {
        await this.modeToApply.get(model.sessionId);
        if (this.modeToApply.has(model.sessionId)) {
          this.applyCarriedMode(model); // the server was not running when the session was made
          await this.modeToApply.get(model.sessionId);
        }
      }
      const result = await commands.ask(full, model.sessionId);
      if (result.error && !model.entries.some((e) => e.type === "notice" && e.text === result.error?.message)) {
        // the server failed before streaming anything (no turnEnd event): say it here, once
        this.emit(model, model.notice(result.error.message, "error", fixesFor(result.error.kind)));
      }
    } catch (error) {
      this.emit(model, model.notice(`The ask failed: ${error instanceof Error ? error.message : String(error)}`, "error"));
    } finally {
      model.promptSettled();
      this.emit(model, model.setRunning(false));
    }
  }

  /** Stop the current session's turn. */
  async stop(): Promise<void> {
    await (await this.host.commands(this.currentId))?.cancel(this.currentId);
  }

  /** Start a new (empty) session and show it; it keeps the permission mode the previous one had. */
  newSession(): ChatSessionModel {
    const mode = this.current.status.mode;
    const model = this.create();
    if (mode !== model.status.mode) {
      this.emit(model, model.apply({ sessionId: model.sessionId, kind: "mode", mode }));
    }
    this.switchTo(model.sessionId);
    this.applyCarriedMode(model);
    return model;
  }

  /** Start a session with a given id (the demo's) and show it. */
  openSession(id: string): ChatSessionModel {
    const model = this.sessions.get(id) ?? this.create(id);
    this.switchTo(id);
    return model;
  }

  /** Show another session. */
  switchTo(id: string): void {
    const stored = this.past.find((s) => s.id === id);
    if (!this.sessions.has(id) && !(stored && this.openPast(stored))) {
      this.host.post({ op: "sessions", sessions: this.summaries(), current: this.currentId });
      return;
    }
    this.currentId = id;
    this.redraw();
  }

  /** Draw everything (the view was opened or reloaded). */
  redraw(): void {
    this.host.post({ op: "setup", setup: { ...this.setup } });
    this.host.post({ op: "sessions", sessions: this.summaries(), current: this.currentId });
    this.host.post(this.current.snapshot());
    this.host.post(this.inactive);
    this.host.post({ op: "banner", banner: this.banner });
    this.postAttachments();
    this.host.statusChanged({ ...this.current.status });
  }

  /** What `/` (MCP prompts) or `@` (workspace paths, then MCP resources) completes to; a failed listing offers nothing. */
  private async completions(query: string, trigger: "@" | "/"): Promise<CompletionItem[]> {
    const listed = async <T>(list: (() => Promise<T[]>) | undefined): Promise<T[]> => {
      try {
        return (await list?.()) ?? [];
      } catch {
        return [];
      }
    };
    if (trigger === "/") {
      return promptItems(query, await listed(this.host.mcpPrompts?.bind(this.host)));
    }
    const [paths, resources] = await Promise.all([listed(this.host.complete && (() => this.host.complete!(query))), listed(this.host.mcpResources?.bind(this.host))]);
    return [
      ...paths.map((p): CompletionItem => ({ label: p.path, kind: p.kind, insert: `${mentionText(p.path)}${p.kind === "folder" ? "" : " "}` })),
      ...resourceItems(query, resources),
    ];
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
      case "permission": {
        const question = this.questions.get(message.toolUseId);
        if (question) {
          question.resolve(cardResult(question.params, message.answer));
        }
        return;
      }
      case "openDiff": {
        const question = this.questions.get(message.toolUseId);
        if (question) {
          await this.host.openDiff?.(question.params);
        }
        return;
      }
      case "openFile":
        return this.host.openFile?.(message.path, message.line);
      case "copy":
        return this.host.copy?.(message.text);
      case "command":
        return this.host.run?.(message.command);
      case "complete": {
        const items = await this.completions(message.query, message.trigger);
        this.host.post({ op: "completions", query: message.query, trigger: message.trigger, items });
        return;
      }
      case "drop": {
        const paths = (await this.host.dropped?.(message.uris)) ?? [];
        if (paths.length > 0) {
          this.host.post({ op: "insertMentions", mentions: paths });
        }
        return;
      }
      case "removeAttachment":
        this.attachments = this.attachments.filter((a) => a.id !== message.id);
        this.postAttachments();
        return;
      case "undoTurn":
        return this.undoTurn(message.id);
      case "mcpApproval":
        this.serverApprovals.get(message.id)?.(message.approved);
        return;
      default:
        return;
    }
  }
}
