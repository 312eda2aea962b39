/** The extension's protocol handlers against the real `handrail lsp` and the scripted model. */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { ChatSessionModel } from "../../src/logic/chatModel";
import { applyUnifiedDiff } from "../../src/logic/unifiedDiff";
import { startFakeModel, startServer, type FakeModel, type Session } from "./harness";

const ORIGINAL = "def greet(name):\n    return 'hello ' + name\n";
const EDITED = "def greet(name):\n    return 'hi ' + name\n";

let dir: string;
let workspace: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "handrail-vscode-it-"));
  workspace = path.join(dir, "ws");
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, "app.py"), ORIGINAL);
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function withSession(replies: Parameters<typeof startFakeModel>[1], run: (s: Session, model: FakeModel) => Promise<void>): Promise<void> {
  const model = await startFakeModel(dir, replies);
  const session = await startServer(workspace, model.baseUrl, path.join(dir, "state"));
  try {
    await run(session, model);
  } finally {
    await session.close();
    model.close();
  }
}

test("a prompt is answered, the edit prompt's diff applies, the edit lands and the chat streams", async () => {
  const file = path.join(workspace, "app.py");
  await withSession([
    [{ text: "Reading it." }, { tool: "Read", input: { file_path: file } }],
    [{ tool: "Edit", input: { file_path: file, old_string: "'hello '", new_string: "'hi '" } }],
    [{ text: "Changed the **greeting**." }],
  ], async (s, model) => {
    s.open("app.py");
    s.user.permissionAnswers.push({ decision: "allow" });
    let proposed: string | null = null;
    s.user.onPermission = (params) => {
      proposed = params.diff === null ? null : applyUnifiedDiff(s.buffer("app.py"), params.diff);
    };
    const result = await s.commands.ask("Say hi instead of hello", "it-session-1");

    assert.equal(result.stopReason, "end_turn");
    assert.equal(result.sessionId, "it-session-1");
    assert.match(result.text, /Changed the \*\*greeting\*\*/);
    assert.equal(s.user.permissions.length, 1);
    assert.equal(s.user.permissions[0].tool, "Edit");
    assert.equal(proposed, EDITED, "the permission diff applied to the buffer gives the proposed text");
    assert.equal(s.buffer("app.py"), EDITED, "the edit landed in the editor's buffer");
    assert.deepEqual((await model.requests()).errors, []);

    const kinds = s.user.chatEvents.map((e) => e.kind);
    for (const kind of ["turnStart", "text", "toolStart", "toolResult", "permission", "turnEnd"]) {
      assert.ok(kinds.includes(kind as never), `chat stream has ${kind}: ${kinds.join(", ")}`);
    }
    const view = new ChatSessionModel("it-session-1");
    s.user.chatEvents.forEach((e) => view.apply(e));
    const cards = view.entries.filter((e) => e.type === "tool");
    assert.deepEqual(cards.map((c) => c.type === "tool" && c.card.name), ["Read", "Edit"]);
    assert.ok(cards.every((c) => c.type === "tool" && c.card.status === "done"));
    const edit = cards[1];
    assert.ok(edit.type === "tool" && edit.card.permission === "allow");
    const report = path.join(__dirname, "..", "..", "..", "test-report");
    fs.mkdirSync(report, { recursive: true });
    fs.writeFileSync(path.join(report, "integration-chat.json"), JSON.stringify(s.user.chatEvents, null, 2));
  });
});

test("deny with feedback reaches the model and leaves the file alone", async () => {
  await withSession([
    [{ tool: "Bash", input: { command: "touch made-by-agent.txt", description: "make a file" } }],
    [{ text: "Understood." }],
  ], async (s, model) => {
    s.user.permissionAnswers.push({ decision: "deny", feedback: "use the scratch folder instead" });
    const result = await s.commands.ask("Make a file", "it-session-2");
    assert.equal(result.stopReason, "end_turn");
    assert.equal(s.user.permissions[0].tool, "Bash");
    assert.ok(!fs.existsSync(path.join(workspace, "made-by-agent.txt")));
    const { requests } = await model.requests();
    const last = JSON.stringify(requests[requests.length - 1]);
    assert.match(last, /use the scratch folder instead/);
    const permission = s.user.chatEvents.find((e) => e.kind === "permission");
    assert.ok(permission && permission.kind === "permission" && permission.decision === "deny");
  });
});

test("an always answer saved to the workspace settings, and handrail.permissions reports the rules", async () => {
  await withSession([
    [{ tool: "Bash", input: { command: "touch one.txt", description: "first" } }],
    [{ tool: "Bash", input: { command: "touch one.txt", description: "again" } }],
    [{ text: "Done twice." }],
  ], async (s) => {
    s.user.permissionAnswers.push({ decision: "allowAlways", rule: "Bash(touch one.txt)", destination: "localSettings" });
    const result = await s.commands.ask("Touch it twice", "it-session-3");
    assert.equal(result.stopReason, "end_turn");
    assert.equal(s.user.permissions.length, 1, "the second identical call is allowed by the session rule");
    const saved = fs.readFileSync(path.join(workspace, ".handrail", "settings.local.json"), "utf8");
    assert.match(saved, /Bash\(touch one\.txt\)/);
    const report = await s.commands.permissions("it-session-3");
    assert.ok(Array.isArray(report.inactive));
  });
});

test("untrusted: the project's allow rules are reported inactive with the reason", async () => {
  const project = path.join(dir, "untrusted-ws");
  fs.mkdirSync(path.join(project, ".handrail"), { recursive: true });
  fs.writeFileSync(path.join(project, ".handrail", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(npm test:*)"] } }));
  const model = await startFakeModel(dir, []);
  const session = await startServer(project, model.baseUrl, path.join(dir, "state-untrusted"), { workspaceTrusted: false });
  try {
    const report = await session.commands.permissions();
    const rule = report.inactive.find((i) => i.rule === "Bash(npm test:*)");
    assert.ok(rule, JSON.stringify(report.inactive));
    assert.equal(rule.source, "project");
    assert.ok(rule.reason.length > 0);
  } finally {
    await session.close();
    model.close();
  }
});

test("a background shell reaches the chat view as a background event, running then completed", async () => {
  await withSession([
    [{ tool: "Bash", input: { command: "sleep 0.3; echo '<b>done</b>'", description: "wait a little", run_in_background: true } }],
    [{ text: "Started it." }],
  ], async (s) => {
    s.user.permissionAnswers.push({ decision: "allow" });
    const result = await s.commands.ask("Run it in the background", "it-session-bg");
    assert.equal(result.stopReason, "end_turn");
    const finished = (): boolean => s.user.chatEvents.some((e) => e.kind === "background" && e.tasks.some((t) => t.status === "completed"));
    for (let waited = 0; !finished() && waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const view = new ChatSessionModel("it-session-bg");
    const ops = s.user.chatEvents.flatMap((e) => view.apply(e));
    const statuses = ops.flatMap((o) => (o.op === "background" ? o.tasks.map((t) => `${t.kind}:${t.status}`) : []));
    assert.deepEqual(statuses, ["shell:running", "shell:completed"], "the server's own shape, read by the model");
    assert.equal(view.background[0].description, "sleep 0.3; echo '<b>done</b>'");
    assert.equal(view.status.backgroundRunning, 0);
    assert.deepEqual(await s.commands.backgroundTasks("it-session-bg"), view.background, "the command lists what the events said");
    assert.deepEqual(await s.commands.backgroundTasks("never-started"), []);
  });
});
