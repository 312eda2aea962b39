import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatSessionModel, decisionLabel, type ViewOp } from "../../src/logic/chatModel";
import type { ChatEvent } from "../../src/logic/protocol";
import { recordedStream } from "./fixtures";

function run(model: ChatSessionModel): ViewOp[] {
  return recordedStream().flatMap((e) => model.apply(e));
}

test("the recorded stream becomes user, assistant, tool, usage and notice entries in order", () => {
  const model = new ChatSessionModel("recorded-session");
  run(model);
  const types = model.entries.map((e) => e.type);
  assert.deepEqual(types.slice(0, 7), ["user", "assistant", "tool", "tool", "assistant", "usage", "user"]);
  const first = model.entries[1];
  assert.ok(first.type === "assistant" && first.text === "Reading it.");
});

test("text deltas append to the open block; a tool call closes it", () => {
  const model = new ChatSessionModel("s");
  const ops = [
    ...model.apply({ sessionId: "s", kind: "turnStart", prompt: "hi" }),
    ...model.apply({ sessionId: "s", kind: "text", text: "Hel" }),
    ...model.apply({ sessionId: "s", kind: "text", text: "lo" }),
    ...model.apply({ sessionId: "s", kind: "toolStart", toolUseId: "t1", name: "Read", summary: "Read a" }),
    ...model.apply({ sessionId: "s", kind: "text", text: "After" }),
  ];
  assert.deepEqual(ops.map((o) => o.op), ["entry", "status", "entry", "appendText", "entry", "entry"]);
  assert.deepEqual(ops[3], { op: "appendText", id: "a-2", text: "lo" });
  const texts = model.entries.filter((e) => e.type === "assistant").map((e) => e.type === "assistant" && e.text);
  assert.deepEqual(texts, ["Hello", "After"]);
});

test("updates are patches of one card, never the whole history", () => {
  const model = new ChatSessionModel("recorded-session");
  const ops = run(model);
  assert.ok(!ops.some((o) => o.op === "reset"));
  const patch = ops.find((o) => o.op === "patchTool" && o.id === "toolu_bash1" && o.patch.permission === "deny");
  assert.ok(patch, "the denial patches the Bash card");
  const bash = model.entries.find((e) => e.type === "tool" && e.id === "toolu_bash1");
  assert.ok(bash?.type === "tool");
  assert.equal(bash.card.status, "error");
  assert.equal(bash.card.result, "The user denied this tool call.");
});

test("sub-agent calls are cards inside their Task card", () => {
  const model = new ChatSessionModel("recorded-session");
  run(model);
  const grep = model.entries.find((e) => e.type === "tool" && e.id === "toolu_sub1");
  assert.ok(grep?.type === "tool" && grep.card.parentId === "toolu_task1");
  const task = model.entries.find((e) => e.type === "tool" && e.id === "toolu_task1");
  assert.ok(task?.type === "tool" && task.card.progress[0] === "Grep greet: 1 match");
});

test("todos, mode and usage from the contract's newer kinds", () => {
  const model = new ChatSessionModel("recorded-session");
  run(model);
  assert.deepEqual(model.todos.map((t) => t.status), ["completed", "in_progress", "pending"]);
  assert.equal(model.status.mode, "plan");
  assert.equal(model.status.usage.inputTokens, 2150);
  assert.equal(model.status.usage.outputTokens, 124);
  assert.equal(model.status.running, true, "the last recorded turn is still running");
  assert.equal(model.title, "Say hi instead of hello");
});

test("a background event replaces the list, and the running count reaches the status", () => {
  const model = new ChatSessionModel("s");
  const agent = { id: "agent_1", kind: "agent" as const, description: "Find the callers", status: "running" };
  const shell = { id: "shell_1", kind: "shell" as const, description: "npm test", status: "running" };
  const first = model.apply({ sessionId: "s", kind: "background", tasks: [agent] });
  assert.deepEqual(first.map((o) => o.op), ["background", "status"]);
  assert.deepEqual(first[0], { op: "background", tasks: [agent] });
  assert.ok(first[1].op === "status" && first[1].status.backgroundRunning === 1);

  // the server sends the whole list each time: the new one replaces the old, it is not merged
  const second = model.apply({ sessionId: "s", kind: "background", tasks: [{ ...agent, status: "completed" }, shell] });
  assert.deepEqual(second, [{ op: "background", tasks: [{ ...agent, status: "completed" }, shell] }], "still one running: no status op");
  assert.deepEqual(model.background.map((t) => `${t.id}:${t.status}`), ["agent_1:completed", "shell_1:running"]);

  const cleared = model.apply({ sessionId: "s", kind: "background", tasks: [] });
  assert.deepEqual(cleared.map((o) => o.op), ["background", "status"]);
  assert.ok(cleared[0].op === "background" && cleared[0].tasks.length === 0, "an empty list tells the view to hide the section");
  assert.equal(model.status.backgroundRunning, 0);
});

test("a malformed background event is read, not trusted", () => {
  const model = new ChatSessionModel("s");
  const ops = model.apply({ sessionId: "s", kind: "background", tasks: "nope" } as unknown as ChatEvent);
  assert.deepEqual(ops, [{ op: "background", tasks: [] }]);
  model.apply({ sessionId: "s", kind: "background", tasks: [{ id: "agent_1", kind: "agent", description: "x", status: "running", extra: 1 }] } as unknown as ChatEvent);
  assert.deepEqual(model.background, [{ id: "agent_1", kind: "agent", description: "x", status: "running" }]);
});

test("background tasks are part of the snapshot, copied", () => {
  const model = new ChatSessionModel("recorded-session");
  run(model);
  assert.deepEqual(model.background.map((t) => [t.kind, t.status]), [["agent", "running"], ["shell", "completed"]]);
  assert.equal(model.status.backgroundRunning, 1);
  const snap = model.snapshot();
  assert.ok(snap.op === "reset");
  assert.deepEqual(snap.background, model.background);
  assert.equal(snap.status.backgroundRunning, 1);
  model.background[0].status = "completed";
  assert.equal(snap.background[0].status, "running");
});

test("a permission prompt marks its card waiting; cancelled prompts and stops are said", () => {
  const model = new ChatSessionModel("s");
  model.apply({ sessionId: "s", kind: "toolStart", toolUseId: "t", name: "Bash", summary: "touch x" });
  const ops = model.promptOpened("t", "Bash");
  assert.deepEqual(ops, [{ op: "patchTool", id: "t", patch: { status: "waiting", permission: "pending" } }]);
  model.apply({ sessionId: "s", kind: "permission", toolUseId: "t", decision: "cancelled" });
  const end = model.apply({ sessionId: "s", kind: "turnEnd", stopReason: "cancelled", text: "" });
  assert.ok(end.some((o) => o.op === "entry" && o.entry.type === "notice" && o.entry.text === "Stopped."));
  assert.equal(decisionLabel("cancelled"), "prompt cancelled");
  assert.equal(decisionLabel("allow_always"), "always allowed");
});

test("a prompt for a call never started gets its own card", () => {
  const model = new ChatSessionModel("s");
  const ops = model.promptOpened("sub", "Edit");
  assert.equal(ops[0].op, "entry");
  assert.equal(model.entries.length, 1);
});

test("the snapshot is a copy that later events do not change", () => {
  const model = new ChatSessionModel("recorded-session");
  run(model);
  const snap = model.snapshot();
  model.apply({ sessionId: "recorded-session", kind: "text", text: "more" });
  assert.ok(snap.op === "reset");
  assert.equal(snap.entries.length, model.entries.length - 1);
});

test("thinking streams into a folded block of its own; text after it opens a new block", () => {
  const model = new ChatSessionModel("s");
  const ops = [
    ...model.apply({ sessionId: "s", kind: "turnStart", prompt: "hi" }),
    ...model.apply({ sessionId: "s", kind: "thinking", text: "Let me " }),
    ...model.apply({ sessionId: "s", kind: "thinking", text: "look." }),
    ...model.apply({ sessionId: "s", kind: "text", text: "Looking." }),
    ...model.apply({ sessionId: "s", kind: "toolStart", toolUseId: "t1", name: "Read", summary: "Read a" }),
    ...model.apply({ sessionId: "s", kind: "thinking", text: "Found it." }),
  ];
  assert.deepEqual(ops.map((o) => o.op), ["entry", "status", "entry", "appendThinking", "entry", "entry", "entry"]);
  assert.deepEqual(ops[3], { op: "appendThinking", id: "k-2", text: "look." });
  const thinking = model.entries.filter((e) => e.type === "thinking").map((e) => e.type === "thinking" && e.text);
  assert.deepEqual(thinking, ["Let me look.", "Found it."]);
});

test("a turn's usage is a line under it; the status keeps the session's totals and the context", () => {
  const model = new ChatSessionModel("s");
  model.apply({ sessionId: "s", kind: "turnStart", prompt: "hi" });
  const session = { inputTokens: 30, outputTokens: 500, cacheReadTokens: 90_000, cacheWriteTokens: 12_000, costUsd: 0.052 };
  const usage = { inputTokens: 10, outputTokens: 200, cacheReadTokens: 40_000, cacheWriteTokens: 2_000, costUsd: 0.0123,
    session, contextTokens: 42_210, contextWindow: 200_000 };
  const ops = model.apply({ sessionId: "s", kind: "turnEnd", stopReason: "end_turn", text: "done", usage });
  const line = ops.find((o) => o.op === "entry" && o.entry.type === "usage");
  assert.ok(line?.op === "entry" && line.entry.type === "usage");
  assert.equal(line.entry.text, "42k input tokens (40k from the cache, 2.0k written to it) · 200 output · about $0.012 · context 21% of 200k");
  assert.deepEqual(model.status.usage, { ...session, contextTokens: 42_210, contextWindow: 200_000 });
});

test("a failed turn shows the server's sentence as an error, not as the assistant's answer", () => {
  const model = new ChatSessionModel("s");
  model.apply({ sessionId: "s", kind: "turnStart", prompt: "hi" });
  const error = { kind: "noApiKey", message: "No API key is set for the model. Set the ANTHROPIC_API_KEY environment variable." };
  model.apply({ sessionId: "s", kind: "turnEnd", stopReason: "error", text: error.message, error });
  assert.deepEqual(model.entries.map((e) => e.type), ["user", "notice"]);
  const notice = model.entries[1];
  assert.ok(notice.type === "notice" && notice.level === "error" && notice.text === error.message);
});
