import assert from "node:assert/strict";
import { test } from "node:test";
import { CancellationTokenSource, type CancellationToken } from "vscode-jsonrpc";
import { HandrailCommands, registerHandlers, type Endpoint, type HandrailUi } from "../../src/logic/handlers";
import type { AskUserParams, ChatEvent, PermissionParams, PermissionResult } from "../../src/logic/protocol";
import { EDIT_PROMPT } from "./fixtures";

type Handler = (params: never, token: CancellationToken) => unknown;

/** An endpoint that records handlers so a test can play the server. */
class FakeEndpoint implements Endpoint {
  readonly requests = new Map<string, Handler>();
  readonly notifications = new Map<string, (params: never) => void>();
  readonly sent: { method: string; params: unknown }[] = [];
  onRequest(method: string, handler: Handler) {
    this.requests.set(method, handler);
    return { dispose: () => this.requests.delete(method) };
  }
  onNotification(method: string, handler: (params: never) => void) {
    this.notifications.set(method, handler);
    return { dispose: () => this.notifications.delete(method) };
  }
  sendRequest(method: string, params: unknown): Promise<unknown> {
    this.sent.push({ method, params });
    return Promise.resolve({ servers: [{ name: "time", source: "user", state: "running", tools: ["now"] }] });
  }
  request(method: string, params: unknown, token: CancellationToken = new CancellationTokenSource().token): Promise<unknown> {
    return Promise.resolve(this.requests.get(method)!(params as never, token));
  }
  notify(method: string, params: unknown): void {
    this.notifications.get(method)!(params as never);
  }
}

/** A UI whose prompts stay open until the test answers them. */
class HeldUi implements HandrailUi {
  readonly shown: string[] = [];
  readonly chats: ChatEvent[] = [];
  private readonly answers: ((r: PermissionResult) => void)[] = [];
  permission(params: PermissionParams, token: CancellationToken): Promise<PermissionResult> {
    this.shown.push(params.toolUseId);
    return new Promise((resolve) => {
      this.answers.push(resolve);
      token.onCancellationRequested(() => resolve({ decision: "deny" }));
    });
  }
  askUser(params: AskUserParams) {
    this.shown.push(`ask:${params.toolUseId}`);
    return Promise.resolve({ answers: { [params.questions[0].question]: "Yes, Later" } });
  }
  saveDocument(uri: string) {
    return Promise.resolve(uri.endsWith(".py"));
  }
  chat(event: ChatEvent) {
    this.chats.push(event);
  }
  answer(result: PermissionResult) {
    this.answers.shift()!(result);
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test("prompts are queued, not stacked: the second shows after the first is answered", async () => {
  const endpoint = new FakeEndpoint();
  const ui = new HeldUi();
  registerHandlers(endpoint, ui);
  const first = endpoint.request("handrail/permission", { ...EDIT_PROMPT, toolUseId: "a" });
  const second = endpoint.request("handrail/permission", { ...EDIT_PROMPT, toolUseId: "b" });
  await tick();
  assert.deepEqual(ui.shown, ["a"]);
  ui.answer({ decision: "allow" });
  assert.deepEqual(await first, { decision: "allow" });
  await tick();
  assert.deepEqual(ui.shown, ["a", "b"]);
  ui.answer({ decision: "deny", feedback: "no" });
  assert.deepEqual(await second, { decision: "deny", feedback: "no" });
});

test("a queued prompt the server settles (cancels) after an always answer is dropped unseen", async () => {
  const endpoint = new FakeEndpoint();
  const ui = new HeldUi();
  registerHandlers(endpoint, ui);
  const cancel = new CancellationTokenSource();
  const first = endpoint.request("handrail/permission", { ...EDIT_PROMPT, toolUseId: "a" });
  const second = endpoint.request("handrail/permission", { ...EDIT_PROMPT, toolUseId: "b" }, cancel.token);
  await tick();
  ui.answer({ decision: "allowAlways", rule: "Edit", destination: "session" });
  cancel.cancel(); // the server re-decided "b" under the new rule and cancelled its request
  await first;
  assert.deepEqual(await second, { decision: "deny" });
  await tick();
  assert.deepEqual(ui.shown, ["a"]);
});

test("a queued prompt decided per the chat stream is dropped; the open one closes on cancellation", async () => {
  const endpoint = new FakeEndpoint();
  const ui = new HeldUi();
  registerHandlers(endpoint, ui);
  const open = new CancellationTokenSource();
  const first = endpoint.request("handrail/permission", { ...EDIT_PROMPT, toolUseId: "a" }, open.token);
  const second = endpoint.request("handrail/permission", { ...EDIT_PROMPT, toolUseId: "b" });
  await tick();
  endpoint.notify("handrail/chat", { sessionId: "s1", kind: "permission", toolUseId: "b", decision: "allow_always" });
  open.cancel();
  assert.deepEqual(await first, { decision: "deny" });
  assert.deepEqual(await second, { decision: "deny" });
  assert.deepEqual(ui.shown, ["a"]);
  assert.equal(ui.chats.length, 1);
});

test("askUser (recorded contract message) waits in the same queue and returns answers", async () => {
  const endpoint = new FakeEndpoint();
  const ui = new HeldUi();
  registerHandlers(endpoint, ui);
  const ask: AskUserParams = {
    sessionId: "s1", toolUseId: "toolu_ask",
    questions: [{ question: "Which framework?", header: "Framework", options: [{ label: "Yes" }, { label: "Later" }], multiSelect: true }],
  };
  const permission = endpoint.request("handrail/permission", EDIT_PROMPT);
  const answer = endpoint.request("handrail/askUser", ask);
  await tick();
  assert.deepEqual(ui.shown, ["toolu_edit"]);
  ui.answer({ decision: "allow" });
  await permission;
  assert.deepEqual(await answer, { answers: { "Which framework?": "Yes, Later" } });
});

test("saveDocument answers {saved}; malformed chat notifications are ignored", async () => {
  const endpoint = new FakeEndpoint();
  const ui = new HeldUi();
  registerHandlers(endpoint, ui);
  assert.deepEqual(await endpoint.request("handrail/saveDocument", { uri: "file:///a.py" }), { saved: true });
  assert.deepEqual(await endpoint.request("handrail/saveDocument", { uri: "file:///a.txt" }), { saved: false });
  endpoint.notify("handrail/chat", { kind: "text" });
  endpoint.notify("handrail/chat", null);
  assert.equal(ui.chats.length, 0);
});

test("commands are sent as workspace/executeCommand with one argument object", async () => {
  const endpoint = new FakeEndpoint();
  const commands = new HandrailCommands(endpoint);
  await commands.ask("hi", "s1");
  await commands.cancel("s1");
  await commands.setMode("plan", "s1");
  await commands.setMode("plan");
  const servers = await commands.mcpStatus();
  await commands.restartMcpServer("time");
  assert.deepEqual(endpoint.sent.map((s) => s.params), [
    { command: "handrail.ask", arguments: [{ prompt: "hi", sessionId: "s1" }] },
    { command: "handrail.cancel", arguments: [{ sessionId: "s1" }] },
    { command: "handrail.setMode", arguments: [{ mode: "plan", sessionId: "s1" }] },
    { command: "handrail.setMode", arguments: [{ mode: "plan" }] },
    { command: "handrail.mcpStatus", arguments: [] },
    { command: "handrail.restartMcpServer", arguments: [{ name: "time" }] },
  ]);
  assert.equal(servers[0].name, "time");
});

test("handrail.backgroundTasks is asked per session and its answer read like the chat event's", async () => {
  const sent: unknown[] = [];
  const commands = new HandrailCommands({
    sendRequest: (_method: string, params: unknown) => {
      sent.push(params);
      return Promise.resolve([{ id: "shell_1", kind: "shell", description: "npm test", status: "killed" }, { id: "?" }]);
    },
  });
  assert.deepEqual(await commands.backgroundTasks("s1"), [{ id: "shell_1", kind: "shell", description: "npm test", status: "killed" }]);
  assert.deepEqual(sent, [{ command: "handrail.backgroundTasks", arguments: [{ sessionId: "s1" }] }]);
});

test("an MCP server's form goes to the UI in turn with other prompts; a UI without forms cancels it", async () => {
  const endpoint = new FakeEndpoint();
  const ui = new HeldUi();
  const forms: string[] = [];
  Object.assign(ui, { elicit: (params: { server: string; message: string }) => { forms.push(`${params.server}: ${params.message}`); return Promise.resolve({ action: "accept", content: { name: "Ann" } }); } });
  registerHandlers(endpoint, ui);
  const permission = endpoint.request("handrail/permission", { ...EDIT_PROMPT, toolUseId: "a" });
  const form = endpoint.request("handrail/elicit", { server: "fx", message: "Who are you?", requestedSchema: { type: "object", properties: {} } });
  await tick();
  assert.deepEqual(forms, [], "waits for the open permission prompt");
  ui.answer({ decision: "allow" });
  await permission;
  assert.deepEqual(await form, { action: "accept", content: { name: "Ann" } });
  assert.deepEqual(forms, ["fx: Who are you?"]);

  const bare = new FakeEndpoint();
  registerHandlers(bare, new HeldUi());
  assert.deepEqual(await bare.request("handrail/elicit", { server: "fx", message: "?", requestedSchema: {} }), { action: "cancel" });
  assert.deepEqual(await bare.request("handrail/mcpApproval", { sessionId: "s", server: "fx", question: "?" }), { approved: false });
});
