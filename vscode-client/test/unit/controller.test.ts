import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatController, asWebviewMessage, type ChatHost } from "../../src/logic/chatController";
import type { Status, ViewOp } from "../../src/logic/chatModel";
import type { AskResult, PermissionParams, PermissionResult } from "../../src/logic/protocol";
import { CancellationTokenSource } from "vscode-jsonrpc";
import type { Checkpoint } from "../../src/logic/checkpoints";
import { EDIT_PROMPT, recordedStream } from "./fixtures";

class Host implements ChatHost {
  posts: ViewOp[] = [];
  statuses: Status[] = [];
  asks: { prompt: string; sessionId: string }[] = [];
  cancels: string[] = [];
  modes: { mode: string; sessionId?: string }[] = [];
  /** The calls in the order the server saw them. */
  calls: string[] = [];
  files = new Map<string, string>();
  opened: PermissionParams[] = [];
  questions: number[] = [];
  approvals = 0;
  running = true;
  private ids = 0;
  post(op: ViewOp) { this.posts.push(op); }
  commands() {
    return Promise.resolve(this.running ? this.commandsSync() : null);
  }
  commandsSync() {
    return {
      ask: (prompt: string, sessionId: string): Promise<AskResult> => {
        this.asks.push({ prompt, sessionId });
        this.calls.push(`ask ${sessionId}`);
        return Promise.resolve({ sessionId, stopReason: "end_turn", text: "" });
      },
      cancel: (sessionId: string) => { this.cancels.push(sessionId); return Promise.resolve({}); },
      setMode: async (mode: string, sessionId?: string) => {
        await new Promise((resolve) => setImmediate(resolve)); // the server answers later than at once
        this.modes.push({ mode, sessionId });
        this.calls.push(`setMode ${mode} ${sessionId ?? ""}`);
        return {};
      },
    };
  }
  newSessionId() { this.ids += 1; return `session-${this.ids}`; }
  approveProject() { this.approvals += 1; return Promise.resolve(); }
  statusChanged(status: Status) { this.statuses.push(status); }
  readText(path: string) { return this.files.get(path) ?? null; }
  openDiff(params: PermissionParams) { this.opened.push(params); return Promise.resolve(); }
  resolveMention(path: string) {
    return Promise.resolve(path === "src/app.py" ? { id: path, kind: "file" as const, path, absolute: `/w/${path}`, label: path } : null);
  }
  questionsChanged(open: number) { this.questions.push(open); }
  undone: Checkpoint[] = [];
  confirmUndo = true;
  undoFiles(checkpoint: Checkpoint) {
    this.undone.push(checkpoint);
    if (this.confirmUndo) {
      for (const file of checkpoint.files) {
        if (file.before === null) {
          this.files.delete(file.path);
        } else {
          this.files.set(file.path, file.before);
        }
      }
    }
    return Promise.resolve(this.confirmUndo);
  }
}

test("the view's messages drive asks in the current session, stop and approval", async () => {
  const host = new Host();
  const chat = new ChatController(host);
  await chat.handleMessage({ type: "ask", prompt: "  explain app.py " });
  assert.deepEqual(host.asks, [{ prompt: "explain app.py", sessionId: "session-1" }]);
  await chat.handleMessage({ type: "stop" });
  assert.deepEqual(host.cancels, ["session-1"]);
  await chat.handleMessage({ type: "approveProject" });
  assert.equal(host.approvals, 1);
  assert.deepEqual(host.statuses.map((s) => s.running), [true, false]);
});

test("events of a session not shown are kept, and drawn when switched to", () => {
  const host = new Host();
  const chat = new ChatController(host);
  for (const event of recordedStream()) {
    chat.handleEvent(event);
  }
  assert.ok(!host.posts.some((o) => o.op === "entry"), "recorded-session is not the one shown");
  host.posts = [];
  chat.switchTo("recorded-session");
  assert.deepEqual(host.posts.map((o) => o.op), ["setup", "sessions", "reset", "inactive", "banner", "attachments"]);
  const sessions = host.posts[1];
  assert.ok(sessions.op === "sessions" && sessions.sessions.length === 2 && sessions.current === "recorded-session");
  host.posts = [];
  chat.handleEvent({ sessionId: "recorded-session", kind: "text", text: "!" });
  assert.equal(host.posts.length, 1, "one op per event once shown");
});

test("a new session starts empty; previous sessions stay listed", () => {
  const host = new Host();
  const chat = new ChatController(host);
  chat.handleEvent({ sessionId: "session-1", kind: "turnStart", prompt: "first question" });
  chat.newSession();
  const last = host.posts.filter((o) => o.op === "sessions").pop();
  assert.ok(last?.op === "sessions");
  assert.deepEqual(last.sessions.map((s) => s.title), ["New session", "first question"]);
  assert.equal(chat.current.sessionId, "session-2");
});

const running = (id: string) => ({ id, kind: "shell" as const, description: `sleep ${id}`, status: "running" });

test("background tasks are kept per session: the shown one is drawn and counted, another waits for a switch", () => {
  const host = new Host();
  const chat = new ChatController(host);
  chat.handleEvent({ sessionId: "session-1", kind: "background", tasks: [running("shell_1")] });
  assert.deepEqual(host.posts.map((o) => o.op), ["background", "status"]);
  assert.deepEqual(host.statuses.map((s) => s.backgroundRunning), [1]);

  host.posts = [];
  chat.handleEvent({ sessionId: "other", kind: "background", tasks: [running("shell_1"), running("shell_2")] });
  assert.ok(!host.posts.some((o) => o.op === "background"), "not the session shown");
  assert.deepEqual(host.statuses.map((s) => s.backgroundRunning), [1], "the status bar shows the shown session");

  chat.switchTo("other");
  const reset = host.posts.find((o) => o.op === "reset");
  assert.ok(reset?.op === "reset");
  assert.deepEqual(reset.background.map((t) => t.id), ["shell_1", "shell_2"]);
  assert.equal(host.statuses.at(-1)?.backgroundRunning, 2);
});

test("a restarted server is asked again for the sessions that show tasks; without one they are cleared", async () => {
  const host = new Host();
  const chat = new ChatController(host);
  chat.handleEvent({ sessionId: "session-1", kind: "background", tasks: [running("shell_1")] });
  chat.handleEvent({ sessionId: "other", kind: "background", tasks: [running("agent_1")] });
  chat.handleEvent({ sessionId: "idle", kind: "turnStart", prompt: "no background work here" });
  host.posts = [];
  const asked: string[] = [];
  await chat.resyncBackground((id) => {
    asked.push(id);
    return id === "other" ? Promise.reject(new Error("unknown command")) : Promise.resolve([{ ...running("shell_1"), status: "killed" }]);
  });
  assert.deepEqual(asked, ["session-1", "other"], "sessions without rows are not asked about");
  assert.deepEqual(host.posts.filter((o) => o.op === "background"), [{ op: "background", tasks: [{ ...running("shell_1"), status: "killed" }] }]);
  assert.equal(host.statuses.at(-1)?.backgroundRunning, 0);

  chat.switchTo("other");
  const reset = host.posts.find((o) => o.op === "reset");
  assert.ok(reset?.op === "reset" && reset.background.length === 0, "a failed query clears: the old process is gone");

  chat.handleEvent({ sessionId: "other", kind: "background", tasks: [running("agent_2")] });
  host.posts = [];
  await chat.resyncBackground(null);
  assert.deepEqual(host.posts.filter((o) => o.op === "background"), [{ op: "background", tasks: [] }]);
});

test("without a server, asking says so instead of failing silently", async () => {
  const host = new Host();
  host.running = false;
  const chat = new ChatController(host);
  await chat.ask("hello");
  const notice = host.posts.find((o) => o.op === "entry" && o.entry.type === "notice");
  assert.ok(notice?.op === "entry" && notice.entry.type === "notice" && /not running/.test(notice.entry.text));
});

test("inactive project rules are posted with the trust state", () => {
  const host = new Host();
  const chat = new ChatController(host);
  chat.setPermissions({ mode: "default", inactive: [{ rule: "Bash(npm test:*)", behavior: "allow", source: "project", reason: "the workspace is not trusted" }] }, false);
  assert.deepEqual(host.posts.pop(), { op: "inactive", trusted: false, items: [{ rule: "Bash(npm test:*)", behavior: "allow", source: "project", reason: "the workspace is not trusted" }] });
});

test("webview messages are validated", () => {
  assert.deepEqual(asWebviewMessage({ type: "ask", prompt: "x" }), { type: "ask", prompt: "x" });
  assert.equal(asWebviewMessage({ type: "ask", prompt: 3 }), null);
  assert.equal(asWebviewMessage({ type: "eval", code: "x" }), null);
  assert.equal(asWebviewMessage("ready"), null);
});

test("webview messages are validated: answers carry no rules, commands are the known ones", () => {
  assert.deepEqual(asWebviewMessage({ type: "permission", toolUseId: "t", answer: { decision: "allowAlways", destination: "userSettings", rules: ["Bash(*)"] } }),
    { type: "permission", toolUseId: "t", answer: { decision: "allowAlways", destination: "userSettings" } });
  assert.deepEqual(asWebviewMessage({ type: "permission", toolUseId: "t", answer: { decision: "allowAlways", destination: "/etc" } }),
    { type: "permission", toolUseId: "t", answer: { decision: "allowAlways" } });
  assert.equal(asWebviewMessage({ type: "permission", toolUseId: "t", answer: { decision: "yes" } }), null);
  assert.deepEqual(asWebviewMessage({ type: "command", command: "setApiKey" }), { type: "command", command: "setApiKey" });
  assert.equal(asWebviewMessage({ type: "command", command: "workbench.action.terminal.sendSequence" }), null);
  assert.deepEqual(asWebviewMessage({ type: "openFile", path: "src/a.py", line: -3 }), { type: "openFile", path: "src/a.py" });
});

function never() {
  return new CancellationTokenSource().token;
}

test("a permission question stays open in its card until answered there; the answer uses the request's own rules", async () => {
  const host = new Host();
  const chat = new ChatController(host);
  const params = { ...EDIT_PROMPT, sessionId: chat.current.sessionId };
  chat.handleEvent({ sessionId: params.sessionId, kind: "toolStart", toolUseId: params.toolUseId, name: "Edit", summary: params.summary });
  host.posts = [];
  let settled: PermissionResult | null = null;
  const answer = chat.askPermission(params, never()).then((r) => (settled = r));
  const opened = host.posts.find((o) => o.op === "patchTool");
  assert.ok(opened?.op === "patchTool" && opened.patch.prompt?.question === "Edit /home/dev/project/app.py?");
  assert.deepEqual([opened.patch.prompt.diff?.added, opened.patch.prompt.diff?.removed], [1, 1]);
  assert.deepEqual(chat.openQuestions().map((p) => p.toolUseId), [params.toolUseId]);
  assert.deepEqual(host.questions, [1]);

  // other things happen (other quick inputs, other events): the question does not go away by itself
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(settled, null);
  await chat.handleMessage({ type: "openDiff", toolUseId: params.toolUseId });
  assert.deepEqual(host.opened.map((p) => p.toolUseId), [params.toolUseId]);

  await chat.handleMessage({ type: "permission", toolUseId: params.toolUseId, answer: { decision: "allowAlways", destination: "localSettings", rules: ["Bash(*)"] } });
  assert.deepEqual(await answer, { decision: "allowAlways", rules: ["Edit(/home/dev/project/**)"], rule: "Edit(/home/dev/project/**)", destination: "localSettings" });
  assert.equal(chat.answer(params.toolUseId, { decision: "deny" }), false, "answered once");
  assert.deepEqual(chat.openQuestions(), []);
  assert.deepEqual(host.questions, [1, 0]);
  const closed = host.posts.filter((o) => o.op === "patchTool").pop();
  assert.ok(closed?.op === "patchTool" && closed.patch.prompt === null);
});

test("a question the server withdraws closes; another answered from a quick pick or command closes too", async () => {
  const host = new Host();
  const chat = new ChatController(host);
  const source = new CancellationTokenSource();
  const withdrawn = chat.askPermission({ ...EDIT_PROMPT, sessionId: chat.current.sessionId }, source.token);
  source.cancel();
  assert.deepEqual(await withdrawn, { decision: "deny" });
  const other = chat.askPermission({ ...EDIT_PROMPT, toolUseId: "toolu_2", sessionId: chat.current.sessionId }, never());
  assert.equal(chat.answer("toolu_2", { decision: "deny", feedback: "not now" }), true);
  assert.deepEqual(await other, { decision: "deny", feedback: "not now" });
});

test("New session keeps the permission mode, and the server is told before the session's first prompt", async () => {
  const host = new Host();
  const chat = new ChatController(host);
  chat.setMode("acceptEdits");
  const next = chat.newSession();
  assert.equal(next.status.mode, "acceptEdits", "shown");
  await chat.ask("write the file");
  assert.deepEqual(host.calls, [`setMode acceptEdits ${next.sessionId}`, `ask ${next.sessionId}`], "in force before the ask");
});

test("the mode shown follows the server's report for the session", () => {
  const host = new Host();
  const chat = new ChatController(host);
  chat.setPermissions({ mode: "plan", inactive: [] }, true);
  assert.equal(chat.current.status.mode, "plan");
  assert.equal(host.statuses.at(-1)?.mode, "plan");
});

test("an edit's card gets the diff of its file, from snapshots before and after the call", () => {
  const host = new Host();
  const chat = new ChatController(host);
  const id = chat.current.sessionId;
  host.files.set("/w/app.py", "def greet(name):\n    return 'hello ' + name\n");
  chat.handleEvent({ sessionId: id, kind: "toolStart", toolUseId: "e1", name: "Edit", summary: "Edit /w/app.py" });
  host.files.set("/w/app.py", "def greet(name):\n    return 'hi ' + name\n");
  chat.handleEvent({ sessionId: id, kind: "toolResult", toolUseId: "e1", isError: false, preview: "The file /w/app.py has been updated." });
  const card = chat.current.tool("e1");
  assert.deepEqual(card?.diff?.lines.filter((l) => l.kind !== "context"), [
    { kind: "remove", text: "    return 'hello ' + name" }, { kind: "add", text: "    return 'hi ' + name" }]);
  assert.equal(card?.result, null, "the diff replaces the text written for the model");
});

test("attachments and @ mentions are spelled out in the prompt: the selection quoted, files by path", async () => {
  const host = new Host();
  const chat = new ChatController(host);
  chat.attach({ kind: "selection", label: "app.py:2-3", selection: { path: "app.py", languageId: "python", startLine: 2, endLine: 3, text: "a = 1\nb = 2" } });
  assert.deepEqual(host.posts.pop(), { op: "attachments", items: [{ id: "att-1", label: "app.py:2-3", kind: "selection" }] });
  await chat.ask("explain @src/app.py and @nowhere.py");
  assert.equal(host.asks[0].prompt, "explain @src/app.py and @nowhere.py\n\nSelected in app.py (lines 2-3):\n```python\na = 1\nb = 2\n```\n\n"
    + "Attached by the user (read them as needed):\n- src/app.py (file: /w/src/app.py)");
  assert.deepEqual(host.posts.find((o) => o.op === "attachments"), { op: "attachments", items: [] }, "sent once");
});

/** One turn that edits app.py twice and creates notes.md (and a denied edit of other.py), as the server streams it. */
function editingTurn(chat: ChatController, host: Host, prompt: string): void {
  const id = chat.current.sessionId;
  chat.handleEvent({ sessionId: id, kind: "turnStart", prompt });
  chat.handleEvent({ sessionId: id, kind: "toolStart", toolUseId: "e1", name: "Edit", summary: "Edit /w/app.py" });
  host.files.set("/w/app.py", "a = 2\n");
  chat.handleEvent({ sessionId: id, kind: "toolResult", toolUseId: "e1", isError: false, preview: "ok" });
  chat.handleEvent({ sessionId: id, kind: "toolStart", toolUseId: "e2", name: "Edit", summary: "Edit /w/app.py" });
  host.files.set("/w/app.py", "a = 3\n");
  chat.handleEvent({ sessionId: id, kind: "toolResult", toolUseId: "e2", isError: false, preview: "ok" });
  chat.handleEvent({ sessionId: id, kind: "toolStart", toolUseId: "w1", name: "Write", summary: "Write /w/notes.md" });
  host.files.set("/w/notes.md", "new\n");
  chat.handleEvent({ sessionId: id, kind: "toolResult", toolUseId: "w1", isError: false, preview: "ok" });
  chat.handleEvent({ sessionId: id, kind: "toolStart", toolUseId: "e3", name: "Edit", summary: "Edit /w/other.py" });
  chat.handleEvent({ sessionId: id, kind: "toolResult", toolUseId: "e3", isError: true, preview: "The user denied this tool call." });
  chat.handleEvent({ sessionId: id, kind: "turnEnd", stopReason: "end_turn", text: "done" });
}

test("checkpoints: a turn's changed files can be undone together, back to their state before the turn", async () => {
  const host = new Host();
  const chat = new ChatController(host);
  chat.updateSetup({ roots: ["/w"] });
  host.files.set("/w/app.py", "a = 1\n");
  host.files.set("/w/other.py", "untouched\n");
  editingTurn(chat, host, "bump a and take notes");
  const entry = chat.current.entries.find((e) => e.type === "checkpoint");
  assert.deepEqual(entry, { type: "checkpoint", id: "cp-1", files: ["app.py", "notes.md"], undone: false }, "only files that really changed");

  await chat.handleMessage({ type: "undoTurn", id: "cp-1" });
  assert.deepEqual(host.undone[0].files.map((f) => [f.path, f.before]), [["/w/app.py", "a = 1\n"], ["/w/notes.md", null]], "the state before the turn's first edit");
  assert.equal(host.undone[0].prompt, "bump a and take notes");
  assert.deepEqual([host.files.get("/w/app.py"), host.files.has("/w/notes.md")], ["a = 1\n", false]);
  assert.ok(host.posts.some((o) => o.op === "checkpointUndone" && o.id === "cp-1"));
  assert.equal(chat.current.entries.find((e) => e.type === "checkpoint")?.type === "checkpoint" && (chat.current.entries.find((e) => e.type === "checkpoint") as { undone: boolean }).undone, true);

  await chat.ask("and now?");
  assert.match(host.asks[0].prompt, /^and now\?\n\n\(Note: the user undid the file changes of an earlier turn, "bump a and take notes": app.py, notes.md are back/, "the model is told");
  await chat.handleMessage({ type: "undoTurn", id: "cp-1" });
  assert.equal(host.undone.length, 1, "an undone turn cannot be undone twice");
});

test("checkpoints: declining the preview changes nothing; no checkpoint when nothing changed; not while running", async () => {
  const host = new Host();
  const chat = new ChatController(host);
  host.files.set("/w/app.py", "a = 1\n");
  editingTurn(chat, host, "first");
  host.confirmUndo = false;
  await chat.handleMessage({ type: "undoTurn", id: "cp-1" });
  assert.equal(host.files.get("/w/app.py"), "a = 3\n");
  assert.ok(!host.posts.some((o) => o.op === "checkpointUndone"));

  const id = chat.current.sessionId;
  chat.handleEvent({ sessionId: id, kind: "turnStart", prompt: "only denied" });
  chat.handleEvent({ sessionId: id, kind: "toolStart", toolUseId: "e9", name: "Edit", summary: "Edit /w/app.py" });
  chat.handleEvent({ sessionId: id, kind: "toolResult", toolUseId: "e9", isError: true, preview: "The user denied this tool call." });
  assert.equal(chat.current.status.running, true);
  host.confirmUndo = true;
  await chat.handleMessage({ type: "undoTurn", id: "cp-1" });
  assert.equal(host.undone.length, 1, "not while a turn runs");
  chat.handleEvent({ sessionId: id, kind: "turnEnd", stopReason: "end_turn", text: "" });
  assert.equal(chat.current.entries.filter((e) => e.type === "checkpoint").length, 1, "the denied turn changed nothing");
});

const line = (role: string, content: unknown): string => JSON.stringify({ type: "message", message: { role, content } });

test("past sessions: listed with title and date, drawn from the transcript when opened, resumed under their id", async () => {
  const host = new Host();
  const transcripts = new Map<string, string>([
    ["old-1", [
      JSON.stringify({ type: "reset" }),
      line("user", "Fix the greeting"),
      line("assistant", [{ type: "text", text: "Reading it." }, { type: "tool_use", id: "t1", name: "Read", input: { file_path: "/w/app.py" } }]),
      line("user", [{ type: "tool_result", tool_use_id: "t1", content: "1\tdef greet(): ..." }]),
      line("assistant", [{ type: "text", text: "Done: it says **hi**." }]),
      "{torn",
    ].join("\n")],
    ["old-2", [line("user", "Run the slow tests"), line("assistant", [{ type: "tool_use", id: "b1", name: "Bash", input: { command: "pytest -q" } }])].join("\n")],
  ]);
  const changed: { id: string; running: boolean }[] = [];
  Object.assign(host, {
    readTranscript: (id: string) => transcripts.get(id) ?? null,
    sessionChanged: (s: { id: string; running: boolean }) => changed.push({ id: s.id, running: s.running }),
  });
  const chat = new ChatController(host);
  const when = new Date(2026, 11, 2, 9, 5).getTime();
  chat.addPastSessions([
    { id: "old-2", title: "Run the slow tests", updated: when, running: true },
    { id: "old-1", title: "Fix the greeting", updated: when - 60_000, running: false },
    { id: "gone", title: "Deleted since", updated: when - 120_000, running: false },
  ]);
  const list = host.posts.filter((o) => o.op === "sessions").pop();
  assert.deepEqual(list?.op === "sessions" && list.sessions.map((s) => s.title), [
    "New session", "Run the slow tests · Dec 2, 09:05 · interrupted", "Fix the greeting · Dec 2, 09:04", "Deleted since · Dec 2, 09:03"]);

  await chat.handleMessage({ type: "switchSession", id: "old-1" });
  assert.equal(chat.current.sessionId, "old-1");
  const reset = host.posts.filter((o) => o.op === "reset").pop();
  assert.ok(reset?.op === "reset");
  assert.deepEqual(reset.entries.map((e) => (e.type === "tool" ? `tool:${e.card.summary}:${e.card.status}` : `${e.type}:${"text" in e ? e.text : ""}`)), [
    "user:Fix the greeting", "assistant:Reading it.", "tool:Read /w/app.py:done", "assistant:Done: it says **hi**."]);
  await chat.ask("and the farewell?");
  assert.deepEqual(host.asks.at(-1), { prompt: "and the farewell?", sessionId: "old-1" }, "the server resumes it by its id");

  await chat.handleMessage({ type: "switchSession", id: "old-2" });
  const interrupted = chat.current.entries.at(-1);
  assert.ok(interrupted?.type === "notice" && interrupted.level === "warning" && interrupted.text.startsWith("Interrupted"));

  await chat.handleMessage({ type: "switchSession", id: "gone" });
  assert.equal(chat.current.sessionId, "old-2", "a session without a transcript is not opened");
  const after = host.posts.filter((o) => o.op === "sessions").pop();
  assert.ok(after?.op === "sessions" && !after.sessions.some((s) => s.id === "gone"));

  chat.handleEvent({ sessionId: "old-2", kind: "turnStart", prompt: "again" });
  chat.handleEvent({ sessionId: "old-2", kind: "turnEnd", stopReason: "end_turn", text: "ok" });
  assert.deepEqual(changed.slice(-2), [{ id: "old-2", running: true }, { id: "old-2", running: false }], "remembered, and whether a turn runs");
});

const QUESTION = "The workspace's .mcp.json defines the MCP server 'fx', which runs `node server.js --token-file ~/.ssh/id_rsa`. It can run any code with your permissions. Start it?";

/** A host whose server asks about an MCP server before the turn starts, the way `handrail.ask` does. */
class ApprovingHost extends Host {
  approval: Promise<unknown> | null = null;
  constructor(private readonly chat: () => ChatController, private readonly token = never()) {
    super();
  }
  override commands() {
    return Promise.resolve({
      ...super.commandsSync(),
      ask: async (prompt: string, sessionId: string): Promise<AskResult> => {
        this.asks.push({ prompt, sessionId });
        const { approved } = await this.chat().askMcpApproval({ sessionId, server: "fx", question: QUESTION }, this.token);
        this.chat().handleEvent({ sessionId, kind: "turnStart", prompt });
        this.chat().handleEvent({ sessionId, kind: "turnEnd", stopReason: "end_turn", text: approved ? "with fx" : "without fx" });
        return { sessionId, stopReason: "end_turn", text: "" };
      },
    });
  }
}

function entries(host: Host) {
  return host.posts.flatMap((o) => (o.op === "entry" ? [o.entry] : []));
}

test("an MCP server's approval is a card in the chat under the prompt, which shows while it waits", async () => {
  let chat: ChatController | null = null;
  const host = new ApprovingHost(() => chat!);
  chat = new ChatController(host);
  const turn = chat.ask("use the fx tools");
  await new Promise((resolve) => setImmediate(resolve));
  const shown = entries(host);
  assert.deepEqual(shown.map((e) => e.type), ["user", "mcpApproval"], "the prompt first, then the card");
  const [prompt, card] = shown;
  assert.ok(prompt.type === "user" && prompt.text === "use the fx tools");
  assert.ok(card.type === "mcpApproval" && card.answer === "pending");
  assert.equal(card.question, QUESTION, "the definition exactly as the server wrote it");
  assert.equal(card.server, "fx");

  await chat.handleMessage({ type: "mcpApproval", id: card.id, approved: true });
  await turn;
  const replaced = host.posts.flatMap((o) => (o.op === "replaceEntry" ? [o.entry] : []));
  assert.deepEqual(replaced.map((e) => e.type === "mcpApproval" ? e.answer : e.type), ["approved", "user"]);
  assert.equal(replaced[1].id, prompt.id, "turnStart redraws the prompt shown, not a second copy");
  assert.deepEqual(chat.current.entries.filter((e) => e.type === "user").length, 1);
  const answer = chat.current.entries.find((e) => e.type === "assistant");
  assert.ok(answer?.type === "assistant" && answer.text === "with fx");
});

test("Not now answers not approved; a card the server withdraws closes; a stale answer does nothing", async () => {
  const host = new Host();
  const chat = new ChatController(host);
  const sessionId = chat.current.sessionId;
  const first = chat.askMcpApproval({ sessionId, server: "fx", question: QUESTION }, never());
  const card = entries(host).find((e) => e.type === "mcpApproval")!;
  await chat.handleMessage({ type: "mcpApproval", id: card.id, approved: false });
  assert.deepEqual(await first, { approved: false });
  await chat.handleMessage({ type: "mcpApproval", id: card.id, approved: true }); // already answered
  const closed = host.posts.filter((o) => o.op === "replaceEntry");
  assert.equal(closed.length, 1);
  assert.ok(closed[0].op === "replaceEntry" && closed[0].entry.type === "mcpApproval" && closed[0].entry.answer === "notNow");

  const source = new CancellationTokenSource();
  const second = chat.askMcpApproval({ sessionId, server: "fx", question: QUESTION }, source.token);
  source.cancel();
  assert.deepEqual(await second, { approved: false });
  const last = host.posts.at(-1);
  assert.ok(last?.op === "replaceEntry" && last.entry.type === "mcpApproval" && last.entry.answer === "withdrawn");
});

test("a prompt the server refuses before its turn stays shown once; the next turn's prompt is its own entry", async () => {
  const host = new Host();
  const chat = new ChatController(host);
  await chat.ask("first");
  chat.handleEvent({ sessionId: chat.current.sessionId, kind: "turnStart", prompt: "from elsewhere" });
  assert.deepEqual(chat.current.entries.filter((e) => e.type === "user").map((e) => e.type === "user" && e.text), ["first", "from elsewhere"]);
});

test("webview answers to an MCP approval card are validated", () => {
  assert.deepEqual(asWebviewMessage({ type: "mcpApproval", id: "mcp-approval-1", approved: true }), { type: "mcpApproval", id: "mcp-approval-1", approved: true });
  assert.equal(asWebviewMessage({ type: "mcpApproval", id: "mcp-approval-1", approved: "yes" }), null);
});
