/** MCP in the chat: `/` prompt completion, `@` resource completion, elicitation forms, server states. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatController, type ChatHost } from "../../src/logic/chatController";
import type { ViewOp } from "../../src/logic/chatModel";
import { fillForm, formFields, readTyped, type FormAsker, type FormField } from "../../src/logic/elicitForm";
import { isPromptCommand, promptItems, resourceItems, slashAt } from "../../src/logic/mcpCompletions";
import { mcpTooltip, needingUser, serverActions } from "../../src/logic/mcpStatus";
import type { AskResult, ElicitParams, McpMentionable, McpPrompt, McpServerStatus } from "../../src/logic/protocol";
import { RecentLists } from "../../src/logic/recentLists";
import type { HandrailCommands } from "../../src/logic/handlers";

const GREET: McpPrompt = {
  server: "fx", name: "greet", title: "Greeting", description: "Say hello", command: "/mcp__fx__greet",
  usage: "/mcp__fx__greet <name> [style]", arguments: [{ name: "name", description: null, required: true }, { name: "style", description: null, required: false }],
};
const PLAIN: McpPrompt = { ...GREET, name: "plain", title: null, description: null, command: "/mcp__fx__plain", usage: "/mcp__fx__plain", arguments: [] };
const GUIDE: McpMentionable = { server: "docs", uri: "file:///guide.md", name: "guide", mention: "@docs:file:///guide.md", description: "The guide" };
const TEMPLATE: McpMentionable = { server: "docs", uriTemplate: "file:///{path}", name: "any file", mention: "@docs:file:///{path}" };

test("/ completes prompts only at the start of the box; their usage is shown, their command inserted", () => {
  assert.deepEqual(slashAt("/mcp__fx", 8), { start: 0, query: "mcp__fx" });
  assert.equal(slashAt("explain /mcp", 12), null);
  assert.equal(slashAt("/mcp__fx__greet Ann", 19), null, "arguments are being typed");
  const items = promptItems("gre", [PLAIN, GREET]);
  assert.deepEqual(items, [{ label: "/mcp__fx__greet", kind: "prompt", insert: "/mcp__fx__greet ", detail: "<name> [style] — Greeting" }]);
  assert.deepEqual(promptItems("", [PLAIN, GREET]).map((i) => i.label), ["/mcp__fx__plain", "/mcp__fx__greet"]);
  assert.ok(isPromptCommand("  /mcp__fx__greet Ann"));
  assert.ok(!isPromptCommand("/help"));
});

test("@ completes resources by mention or name; a template is inserted without a space to fill in", () => {
  assert.deepEqual(resourceItems("docs:file", [GUIDE, TEMPLATE]).map((i) => i.insert), ["@docs:file:///guide.md ", "@docs:file:///{path}"]);
  assert.deepEqual(resourceItems("guide", [GUIDE, TEMPLATE]).map((i) => i.detail), ["guide — The guide"]);
  assert.deepEqual(resourceItems("zzz", [GUIDE]), []);
});

class Host implements ChatHost {
  posts: ViewOp[] = [];
  asks: string[] = [];
  failPrompts = false;
  post(op: ViewOp) { this.posts.push(op); }
  commands() {
    return Promise.resolve({
      ask: (prompt: string, sessionId: string): Promise<AskResult> => { this.asks.push(prompt); return Promise.resolve({ sessionId, stopReason: "end_turn", text: "" }); },
      cancel: () => Promise.resolve({}),
      setMode: () => Promise.resolve({}),
    });
  }
  newSessionId() { return "s1"; }
  approveProject() { return Promise.resolve(); }
  statusChanged() {}
  complete() { return Promise.resolve([{ path: "docs/", kind: "folder" as const }, { path: "app.py", kind: "file" as const }]); }
  mcpPrompts() { return this.failPrompts ? Promise.reject(new Error("no server")) : Promise.resolve([GREET]); }
  mcpResources() { return Promise.resolve([GUIDE]); }
  resolveMention() { return Promise.resolve(null); }
}

test("the chat completes / from the server's prompts and @ from paths then resources; a failed listing offers nothing", async () => {
  const host = new Host();
  const chat = new ChatController(host);
  await chat.handleMessage({ type: "complete", query: "mcp", trigger: "/" });
  const slash = host.posts.at(-1);
  assert.ok(slash?.op === "completions" && slash.trigger === "/");
  assert.deepEqual(slash.items.map((i) => i.label), ["/mcp__fx__greet"]);
  await chat.handleMessage({ type: "complete", query: "", trigger: "@" });
  const at = host.posts.at(-1);
  assert.ok(at?.op === "completions");
  assert.deepEqual(at.items.map((i) => [i.kind, i.insert]), [["folder", "@docs/"], ["file", "@app.py "], ["resource", "@docs:file:///guide.md "]]);
  host.failPrompts = true;
  await chat.handleMessage({ type: "complete", query: "", trigger: "/" });
  const failed = host.posts.at(-1);
  assert.ok(failed?.op === "completions" && failed.items.length === 0);
});

test("a prompt command is sent as typed: attachments are not added to it and wait for the next prompt", async () => {
  const host = new Host();
  const chat = new ChatController(host);
  chat.attach({ kind: "selection", label: "app.py:1", selection: { path: "app.py", languageId: "python", startLine: 1, endLine: 1, text: "x = 1" } });
  await chat.ask("/mcp__fx__greet \"Ann Lee\" formal");
  assert.deepEqual(host.asks, ["/mcp__fx__greet \"Ann Lee\" formal"]);
  await chat.ask("explain this");
  assert.match(host.asks[1], /^explain this\n\n/, "the selection goes with the next prompt");
  assert.match(host.asks[1], /x = 1/);
});

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Your name", minLength: 2 },
    age: { type: "integer", minimum: 0, maximum: 150 },
    color: { type: "string", oneOf: [{ const: "r", title: "Red" }, { const: "g", title: "Green" }] },
    subscribe: { type: "boolean", default: false },
    tags: { type: "array", items: { enum: ["a", "b", "c"] }, minItems: 1, maxItems: 2 },
    email: { type: "string", format: "email" },
  },
  required: ["name", "age", "color"],
};

test("a requested schema becomes fields; one MCP does not allow is refused", () => {
  const fields = formFields(SCHEMA) as FormField[];
  assert.deepEqual(fields.map((f) => [f.name, f.kind, f.required]), [
    ["name", "text", true], ["age", "integer", true], ["color", "choice", true], ["subscribe", "boolean", false], ["tags", "choices", false], ["email", "text", false],
  ]);
  assert.deepEqual(fields[2].choices, [{ value: "r", label: "Red" }, { value: "g", label: "Green" }]);
  assert.match(formFields({ type: "object", properties: { deep: { type: "object" } } }) as string, /unsupported type/);
  assert.match(formFields({ type: "array" }) as string, /not an object/);
});

test("typed answers are checked against the schema", () => {
  const fields = formFields(SCHEMA) as FormField[];
  const [name, age, , , , email] = fields;
  assert.deepEqual(readTyped(name, "A"), { error: "At least 2 characters." });
  assert.deepEqual(readTyped(name, ""), { error: "Your name is required." });
  assert.deepEqual(readTyped(age, "3.5"), { error: "Enter a whole number." });
  assert.deepEqual(readTyped(age, "200"), { error: "At most 150." });
  assert.deepEqual(readTyped(age, " 42 "), { value: 42 });
  assert.deepEqual(readTyped(email, ""), { skip: true });
  assert.deepEqual(readTyped(email, "not-an-address"), { error: "Enter an e-mail address." });
});

/** An asker that answers from a script, and checks what the UI would refuse. */
function scripted(start: "answer" | "decline" | undefined, answers: (string | string[] | undefined)[]): FormAsker & { refused: string[]; shown: string[] } {
  const refused: string[] = [];
  const shown: string[] = [];
  return {
    refused, shown,
    start: () => Promise.resolve(start),
    pick: (field, items) => { shown.push(`${field.name}: ${items.map((i) => i.label).join("|")}`); const a = answers.shift(); return Promise.resolve(typeof a === "string" ? items.find((i) => i.label === a)?.value : undefined); },
    pickMany: (field, _items, _p, problem) => {
      let a = answers.shift();
      while (Array.isArray(a) && problem(a)) { refused.push(`${field.name}: ${problem(a)}`); a = answers.shift(); }
      return Promise.resolve(Array.isArray(a) ? a : undefined);
    },
    type: (field, _p, check) => {
      let a = answers.shift();
      while (typeof a === "string" && check(a)) { refused.push(`${field.name}: ${check(a)}`); a = answers.shift(); }
      return Promise.resolve(typeof a === "string" ? a : undefined);
    },
    cannotShow: (_params, why) => shown.push(`cannot: ${why}`),
  };
}

const PARAMS: ElicitParams = { server: "fx", message: "Tell me about you", requestedSchema: SCHEMA };

test("a form filled in: picks and typed values, an optional field left empty; wrong input is asked again", async () => {
  const asker = scripted("answer", ["A", "Ann", "x", "41", "Green", "(leave empty)", ["a", "b", "c"], ["a"], "ann@example.org"]);
  const result = await fillForm(PARAMS, asker);
  assert.deepEqual(result, { action: "accept", content: { name: "Ann", age: 41, color: "g", tags: ["a"], email: "ann@example.org" } });
  assert.deepEqual(asker.refused, ["name: At least 2 characters.", "age: Enter a whole number.", "tags: Pick at most 2."]);
  assert.ok(asker.shown.includes("subscribe: Yes|No|(leave empty)"));
  assert.ok(asker.shown.includes("color: Red|Green"), "a required choice cannot be left empty");
});

test("an optional multiple choice may be left out; picked, its limits apply", async () => {
  const left = await fillForm(PARAMS, scripted("answer", ["Ann", "41", "Red", "No", [], ""]));
  assert.deepEqual(left, { action: "accept", content: { name: "Ann", age: 41, color: "r", subscribe: false } });
});

test("Decline declines; Escape at the start or on any field cancels; a schema that cannot be shown is declined", async () => {
  assert.deepEqual(await fillForm(PARAMS, scripted("decline", [])), { action: "decline" });
  assert.deepEqual(await fillForm(PARAMS, scripted(undefined, [])), { action: "cancel" });
  assert.deepEqual(await fillForm(PARAMS, scripted("answer", ["Ann", undefined])), { action: "cancel" });
  const bad = scripted("answer", []);
  assert.deepEqual(await fillForm({ ...PARAMS, requestedSchema: { type: "object", properties: { x: { type: "object" } } } }, bad), { action: "decline" });
  assert.match(bad.shown[0], /^cannot: the property x has an unsupported type/);
});

const server = (name: string, state: string, extra: Partial<McpServerStatus> = {}): McpServerStatus => ({ name, source: "mcp.json", state, tools: [], ...extra });

test("the status bar's tooltip lists the MCP servers; the ones that need the user are counted and offer their action", () => {
  const servers = [server("time", "running", { tools: ["now", "zone"] }), server("docs", "needsSignIn", { error: "sign in at https://auth.example/…" }), server("fx", "needsApproval"), server("bad", "failed", { error: "exited 1\nTraceback" })];
  assert.deepEqual(needingUser(servers).map((s) => s.name), ["docs", "fx", "bad"]);
  const tooltip = mcpTooltip(servers);
  assert.match(tooltip, /time: running \(2 tools\)/);
  assert.match(tooltip, /docs: needs sign-in: sign in at/);
  assert.match(tooltip, /fx: needs your approval/);
  assert.match(tooltip, /bad: failed: exited 1$/m);
  assert.equal(mcpTooltip([]), "");
  assert.deepEqual(serverActions(servers[1]), ["signIn", "restart"]);
  assert.deepEqual(serverActions(servers[2]), ["approve"]);
  assert.deepEqual(serverActions(servers[0]), ["restart"]); // run on this machine: no sign-in to sign out of
  assert.deepEqual(serverActions(server("docs", "running", { remote: true })), ["restart", "signOut"]);
  assert.deepEqual(serverActions(server("x", "untrusted")), []);
});

test("completion lists are asked of the server at most once per few seconds; a failure is asked again", async () => {
  let now = 0;
  let calls = 0;
  let fail = true;
  const commands = { mcpPrompts: () => { calls += 1; return fail ? Promise.reject(new Error("x")) : Promise.resolve([GREET]); } } as unknown as HandrailCommands;
  const lists = new RecentLists(() => Promise.resolve(commands), () => now);
  await assert.rejects(lists.get("prompts", (c) => c.mcpPrompts()));
  fail = false;
  assert.deepEqual(await lists.get("prompts", (c) => c.mcpPrompts()), [GREET]);
  await lists.get("prompts", (c) => c.mcpPrompts());
  assert.equal(calls, 2);
  now = 6000;
  await lists.get("prompts", (c) => c.mcpPrompts());
  assert.equal(calls, 3);
  const none = new RecentLists(() => Promise.resolve(null));
  assert.deepEqual(await none.get("prompts", (c) => c.mcpPrompts()), []);
});
