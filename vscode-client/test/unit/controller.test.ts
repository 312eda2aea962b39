import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatController, asWebviewMessage, type ChatHost } from "../../src/logic/chatController";
import type { Status, ViewOp } from "../../src/logic/chatModel";
import type { AskResult, TurnError } from "../../src/logic/protocol";
import { recordedStream } from "./fixtures";

class Host implements ChatHost {
  posts: ViewOp[] = [];
  statuses: Status[] = [];
  asks: { prompt: string; sessionId: string }[] = [];
  cancels: string[] = [];
  approvals = 0;
  running = true;
  private ids = 0;
  post(op: ViewOp) { this.posts.push(op); }
  commands() {
    return Promise.resolve(this.running ? {
      ask: (prompt: string, sessionId: string): Promise<AskResult> => {
        this.asks.push({ prompt, sessionId });
        return Promise.resolve({ sessionId, stopReason: "end_turn", text: "" });
      },
      cancel: (sessionId: string) => { this.cancels.push(sessionId); return Promise.resolve({}); },
    } : null);
  }
  newSessionId() { this.ids += 1; return `session-${this.ids}`; }
  approveProject() { this.approvals += 1; return Promise.resolve(); }
  statusChanged(status: Status) { this.statuses.push(status); }
  failures: TurnError[] = [];
  turnFailed(error: TurnError) { this.failures.push(error); }
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
  assert.deepEqual(host.posts.map((o) => o.op), ["sessions", "reset", "inactive"]);
  const sessions = host.posts[0];
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

test("a failed turn reaches the host, which can offer its fix (the key, the model setting)", () => {
  const host = new Host();
  const chat = new ChatController(host);
  const id = chat.current.sessionId;
  chat.handleEvent({ sessionId: id, kind: "turnStart", prompt: "hi" });
  const error = { kind: "apiKey", message: "The model API refused the API key (401 authentication_error: invalid x-api-key)." };
  chat.handleEvent({ sessionId: id, kind: "turnEnd", stopReason: "error", text: error.message, error });
  chat.handleEvent({ sessionId: id, kind: "turnEnd", stopReason: "end_turn", text: "fine" });
  assert.deepEqual(host.failures, [error]);
});
