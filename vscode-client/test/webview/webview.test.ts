/** The chat webview in headless Chromium, fed a recorded chat stream through the real controller. */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { CancellationToken } from "vscode-jsonrpc";
import { ChatController } from "../../src/logic/chatController";
import type { ViewOp } from "../../src/logic/chatModel";
import type { ChatEvent } from "../../src/logic/protocol";
import { chatHtml } from "../../src/logic/webviewHtml";
import { recordedStream } from "../unit/fixtures";

const ROOT = path.join(__dirname, "..", "..", "..");
const REPORT = path.join(ROOT, "test-report");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const skip = fs.existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;

// Stands in for VS Code: records what the webview posts and sets a dark theme's variables.
const PRELUDE = `
window.__posted = [];
window.__state = undefined;
window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => window.__state, setState: (s) => { window.__state = s; } });
const vars = { "--vscode-foreground": "#cccccc", "--vscode-sideBar-background": "#181818", "--vscode-font-family": "sans-serif",
  "--vscode-font-size": "13px", "--vscode-button-background": "#0e639c", "--vscode-button-foreground": "#ffffff",
  "--vscode-input-background": "#313131", "--vscode-input-foreground": "#cccccc", "--vscode-errorForeground": "#f85149",
  "--vscode-editorWarning-foreground": "#cca700", "--vscode-badge-background": "#616161", "--vscode-badge-foreground": "#ffffff",
  "--vscode-panel-border": "#2b2b2b", "--vscode-textCodeBlock-background": "#2b2b2b", "--vscode-focusBorder": "#0078d4" };
for (const [k, v] of Object.entries(vars)) document.documentElement.style.setProperty(k, v);
`;

let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

function ops(): ViewOp[] {
  const posted: ViewOp[] = [];
  const controller = new ChatController({
    post: (op) => posted.push(op),
    commands: () => Promise.resolve(null),
    newSessionId: () => "recorded-session", // the view starts on the recorded session
    approveProject: () => Promise.resolve(),
    statusChanged: () => undefined,
  });
  controller.redraw(); // an empty view of the session, then every event incrementally
  for (const event of recordedStream()) {
    controller.handleEvent(event);
  }
  void controller.askPermission({ sessionId: "recorded-session", toolUseId: "toolu_write1", tool: "Write", input: {}, summary: "Write README.md", reason: "Write changes files", diff: null, suggestions: ["Edit(//home/dev/project/README.md)"] }, CancellationToken.None);
  controller.setPermissions({ mode: "plan", inactive: [
    { rule: "Bash(npm test:*)", behavior: "allow", source: "project", reason: "the workspace is not trusted" },
    { setting: "hooks", source: "project", reason: "the workspace is not trusted" },
  ] }, false);
  return posted;
}

before(async () => {
  if (skip) {
    return;
  }
  fs.mkdirSync(REPORT, { recursive: true });
  const page_ = path.join(REPORT, "webview.html");
  fs.writeFileSync(page_, chatHtml({
    cspSource: "file:",
    nonce: "testnonce",
    scriptUri: pathToFileURL(path.join(ROOT, "dist", "webview.js")).toString(),
    styleUri: pathToFileURL(path.join(ROOT, "media", "chat.css")).toString(),
    preludeScript: PRELUDE,
  }));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"] });
  page = await browser.newPage({ viewport: { width: 420, height: 1150 } });
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  page.on("pageerror", (e) => consoleErrors.push(e.message));
  await page.goto(pathToFileURL(page_).toString());
  await page.waitForFunction(() => (window as unknown as { __posted: unknown[] }).__posted.length > 0);
  const all = ops();
  // one op per message, as the extension posts them
  await page.evaluate((list) => list.forEach((op) => window.postMessage(op, "*")), all);
  await page.waitForSelector('[data-id="toolu_write1"][data-status="waiting"]');
  await page.screenshot({ path: path.join(REPORT, "webview-chat.png"), fullPage: true });
});

after(async () => {
  await browser?.close();
});

test("the page loads under its CSP without errors and says ready", { skip }, async () => {
  assert.deepEqual(consoleErrors, []);
  const posted = await page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted);
  assert.deepEqual(posted[0], { type: "ready" });
});

test("tool cards: names, states, permission decisions, sub-agent nesting", { skip }, async () => {
  const cards = await page.$$eval(".tool", (nodes) => nodes.map((n) => ({
    id: (n as HTMLElement).dataset.id, name: n.querySelector(".name")?.textContent, status: (n as HTMLElement).dataset.status,
    permission: n.querySelector(":scope > .permission")?.textContent, parent: n.parentElement?.closest(".tool")?.getAttribute("data-id") ?? null,
  })));
  const byName = Object.fromEntries(cards.map((c) => [c.name ?? "", c])) as Record<string, (typeof cards)[number]>;
  assert.deepEqual(cards.map((c) => c.name), ["Read", "Edit", "Task", "Grep", "Bash", "Write"]);
  assert.equal(byName.Edit.status, "done");
  assert.equal(byName.Edit.permission, "Permission: allowed once");
  assert.equal(byName.Bash.status, "denied", "the user's no is not an error");
  assert.equal(byName.Bash.permission, "Permission: denied by you");
  assert.equal(byName.Grep.parent, "toolu_task1");
  assert.equal(byName.Write.status, "waiting");
  assert.equal(await page.$eval('[data-id="toolu_write1"] .ask .question', (n) => n.textContent), "Allow Write README.md?", "the question is in the card");
  const result = await page.$eval('[data-id="toolu_bash1"] details.result', (d) => ({ open: (d as HTMLDetailsElement).open, text: d.querySelector("pre")?.textContent }));
  assert.deepEqual(result, { open: false, text: "The user denied this tool call." });
});

test("a permission card: only its answers show until Always allow opens the destinations; an answer is posted with the tool call", { skip }, async () => {
  const visibleParts = (): Promise<Record<string, boolean>> => page.$eval('[data-id="toolu_write1"] .ask', (ask) => Object.fromEntries(
    [".actions:not(.where)", ".actions.where", ".feedback"].map((sel) => [sel, getComputedStyle(ask.querySelector(sel)!).display !== "none"])));
  assert.deepEqual(await visibleParts(), { ".actions:not(.where)": true, ".actions.where": false, ".feedback": false });
  await page.evaluate(() => { (window as unknown as { __posted: unknown[] }).__posted.length = 0; });
  await page.click('[data-id="toolu_write1"] .ask button.always');
  assert.deepEqual(await visibleParts(), { ".actions:not(.where)": false, ".actions.where": true, ".feedback": false });
  await page.screenshot({ path: path.join(REPORT, "webview-always-where.png"), fullPage: true });
  await page.click('[data-id="toolu_write1"] .ask button.destination:has-text("This workspace")');
  const posted = await page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted);
  assert.deepEqual(posted, [{ type: "permission", toolUseId: "toolu_write1", answer: { decision: "allowAlways", destination: "localSettings" } }]);
});

test("streamed markdown is rendered, and HTML in it is shown as text", { skip }, async () => {
  const answers = await page.$$eval(".entry.assistant", (nodes) => nodes.map((n) => n.innerHTML));
  assert.ok(answers.some((h) => h.includes("Changed the <strong>greeting</strong>.")), answers.join("\n"));
  assert.ok(answers.some((h) => h.includes("<ol><li>Rename <code>greet</code></li>")));
  assert.equal(await page.$$eval("script", (s) => s.length), 2, "no script element from the model's text");
  const user = await page.$$eval(".entry.user .text", (n) => n.map((x) => x.textContent));
  assert.ok(user.includes("Plan the rename, run the tests, and <b>don't</b> break anything"));
  const notices = await page.$$eval(".entry.notice", (n) => n.map((x) => x.textContent));
  assert.ok(notices.some((t) => t?.startsWith("Retrying")));
});

test("todos, Restricted Mode notice, running state", { skip }, async () => {
  const todos = await page.$$eval("#todos li", (n) => n.map((x): [string, string | null] => [x.getAttribute("class") ?? "", x.textContent]));
  assert.deepEqual(todos, [["todo completed", "☑ Rename greet to welcome"], ["todo in_progress", "▶ Running the tests"], ["todo pending", "☐ Update the docs"]]);
  const inactive = await page.$eval("#inactive", (n) => ({ hidden: (n as HTMLElement).hidden, text: n.textContent ?? "" }));
  assert.equal(inactive.hidden, false);
  assert.match(inactive.text, /Restricted Mode/);
  assert.match(inactive.text, /allow Bash\(npm test:\*\) \(project\): the workspace is not trusted/);
  assert.equal(await page.$("#approve-project"), null, "no approve button while untrusted");
  assert.equal(await page.$eval("#stop", (b) => (b as HTMLButtonElement).disabled), false);
  assert.equal(await page.$eval("body", (b) => b.dataset.mode), "plan");
  const sessions = await page.$$eval("#sessions option", (n) => n.map((o) => o.textContent));
  assert.deepEqual(sessions, ["Say hi instead of hello"]);
});

test("background tasks: one row each, running ones stand out, descriptions are text, hidden when none", { skip }, async () => {
  const box = await page.$eval("#background", (n) => ({ hidden: (n as HTMLElement).hidden, label: n.getAttribute("aria-label"), heading: n.querySelector("strong")?.textContent }));
  assert.deepEqual(box, { hidden: false, label: "Background tasks", heading: "Background tasks · 1 of 2 running" });
  const rows = await page.$$eval("#background li", (nodes) => nodes.map((n) => ({
    cls: n.getAttribute("class"), status: (n as HTMLElement).dataset.status, kind: n.querySelector(".kind")?.textContent,
    description: n.querySelector(".description")?.textContent, badge: n.querySelector(".status")?.textContent,
    weight: getComputedStyle(n).fontWeight,
  })));
  assert.deepEqual(rows, [
    { cls: "bg-task agent running", status: "running", kind: "Agent", description: "Find the callers of greet", badge: "running…", weight: "700" },
    { cls: "bg-task shell finished", status: "completed", kind: "Shell", description: 'echo "<img src=x onerror=alert(1)>" > out.html', badge: "completed", weight: "400" },
  ]);
  assert.equal(await page.$$eval("#background img", (n) => n.length), 0, "the shell's HTML is not parsed");

  await page.evaluate(() => window.postMessage({ op: "background", tasks: [] }, "*"));
  await page.waitForSelector("#background[hidden]", { state: "attached" });
  assert.equal(await page.$$eval("#background li", (n) => n.length), 0);
});

test("keyboard: Enter sends the prompt, Escape stops", { skip }, async () => {
  await page.evaluate(() => { (window as unknown as { __posted: unknown[] }).__posted.length = 0; });
  await page.evaluate(() => window.postMessage({ op: "status", status: { sessionId: "recorded-session", running: false, mode: "default", usage: { inputTokens: 0, outputTokens: 0 } } }, "*"));
  await page.waitForSelector("#send:not([disabled])"); // posted messages arrive asynchronously
  await page.focus("#prompt");
  await page.keyboard.type("Run the tests");
  await page.keyboard.press("Enter");
  await page.evaluate(() => window.postMessage({ op: "status", status: { sessionId: "recorded-session", running: true, mode: "default", usage: { inputTokens: 0, outputTokens: 0 } } }, "*"));
  await page.waitForSelector("#stop:not([disabled])");
  await page.keyboard.press("Escape");
  const posted = await page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted);
  assert.deepEqual(posted, [{ type: "ask", prompt: "Run the tests" }, { type: "stop" }]);
  assert.equal(await page.$eval("#prompt", (t) => (t as HTMLTextAreaElement).value), "");
});

test("@ asks the extension for paths, the list completes the mention; ↑ brings the last prompt back", { skip }, async () => {
  await page.evaluate(() => { (window as unknown as { __posted: unknown[] }).__posted.length = 0; });
  await page.focus("#prompt");
  await page.keyboard.type("explain @ap");
  await page.waitForFunction(() => (window as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === "complete"));
  const posted = await page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted);
  assert.deepEqual(posted.at(-1), { type: "complete", query: "ap", trigger: "@" });
  await page.evaluate(() => window.postMessage({ op: "completions", query: "ap", trigger: "@", items: [
    { label: "src/app.py", kind: "file", insert: "@src/app.py " }, { label: "app/", kind: "folder", insert: "@app/" },
    { label: "@docs:file:///app.md", kind: "resource", insert: "@docs:file:///app.md ", detail: "app guide" }] }, "*"));
  await page.waitForSelector(".completions:not([hidden]) .completion.active");
  assert.deepEqual(await page.$$eval(".completion", (n) => n.map((x) => x.textContent)), ["src/app.py", "app/", "@docs:file:///app.md app guide"]);
  await page.keyboard.press("Enter");
  assert.equal(await page.$eval("#prompt", (t) => (t as HTMLTextAreaElement).value), "explain @src/app.py ");
  assert.equal(await page.$eval(".completions", (n) => (n as HTMLElement).hidden), true);
  await page.keyboard.press("Enter"); // the turn of the keyboard test still runs: nothing is sent, nothing is lost
  assert.equal(await page.$eval("#prompt", (t) => (t as HTMLTextAreaElement).value), "explain @src/app.py ");
  assert.ok(!(await page.evaluate(() => (window as unknown as { __posted: { type: string }[] }).__posted)).some((m) => m.type === "ask"));
  // `/` at the start lists the MCP servers' prompts with their arguments; the command is inserted
  await page.evaluate(() => { (document.querySelector("#prompt") as HTMLTextAreaElement).value = ""; (window as unknown as { __posted: unknown[] }).__posted.length = 0; });
  await page.keyboard.type("/gre");
  await page.waitForFunction(() => (window as unknown as { __posted: { type: string; query?: string }[] }).__posted.some((m) => m.type === "complete" && m.query === "gre"));
  assert.deepEqual((await page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted)).at(-1), { type: "complete", query: "gre", trigger: "/" });
  await page.evaluate(() => window.postMessage({ op: "completions", query: "gre", trigger: "/", items: [
    { label: "/mcp__fx__greet", kind: "prompt", insert: "/mcp__fx__greet ", detail: "<name> [style] — Greeting" }] }, "*"));
  await page.waitForSelector(".completions:not([hidden]) .completion.prompt.active");
  assert.equal(await page.$eval(".completion.prompt .detail", (n) => n.textContent), " <name> [style] — Greeting");
  await page.keyboard.press("Tab");
  assert.equal(await page.$eval("#prompt", (t) => (t as HTMLTextAreaElement).value), "/mcp__fx__greet ");
  await page.evaluate(() => { (document.querySelector("#prompt") as HTMLTextAreaElement).value = ""; });
  await page.keyboard.press("ArrowUp");
  assert.equal(await page.$eval("#prompt", (t) => (t as HTMLTextAreaElement).value), "Run the tests", "the prompt sent before");
});

test("the transcript follows streamed text and growing tool cards at the bottom, and stays put once the user scrolled up", { skip }, async () => {
  const stream = (lines: number, from: number): Promise<void> => page.evaluate(([n, start]) => window.postMessage({ op: "appendText", id: "a-follow",
    text: Array.from({ length: n }, (_, i) => `\n\nstreamed paragraph ${start + i}`).join("") }, "*"), [lines, from]);
  await page.evaluate(() => window.postMessage({ op: "entry", entry: { type: "assistant", id: "a-follow", text: "Streaming:" } }, "*"));
  await page.$eval("#transcript", (t) => { t.scrollTop = t.scrollHeight; t.dispatchEvent(new Event("scroll")); });
  await stream(40, 0);
  await page.waitForFunction(() => document.querySelector('[data-id="a-follow"]')!.textContent.includes("streamed paragraph 39"));
  await page.waitForFunction(() => { const t = document.querySelector("#transcript")!; return t.scrollHeight - t.scrollTop - t.clientHeight < 2; });
  await page.$eval("#transcript", (t) => { t.scrollTop = 0; t.dispatchEvent(new Event("scroll")); });
  await stream(40, 40);
  await page.waitForFunction(() => document.querySelector('[data-id="a-follow"]')!.textContent.includes("streamed paragraph 79"));
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  assert.equal(await page.$eval("#transcript", (t) => t.scrollTop), 0, "the user's place is kept");
  assert.ok(await page.$eval("#transcript", (t) => t.scrollHeight - t.clientHeight > 500), "there was somewhere to scroll");

  // back at the bottom, a tool card that grows (its diff arrives) is followed too
  await page.$eval("#transcript", (t) => { t.scrollTop = t.scrollHeight; t.dispatchEvent(new Event("scroll")); });
  await page.evaluate(() => window.postMessage({ op: "entry", entry: { type: "tool", id: "t-follow", card: {
    id: "t-follow", name: "Edit", summary: "Edit notes.md", status: "running", progress: [] } } }, "*"));
  await page.waitForFunction(() => { const t = document.querySelector("#transcript")!; return t.scrollHeight - t.scrollTop - t.clientHeight < 2; });
  await page.evaluate(() => window.postMessage({ op: "patchTool", id: "t-follow", patch: { status: "done", diff: { added: 60, removed: 0,
    lines: Array.from({ length: 60 }, (_, i) => ({ kind: "add", text: `line ${i}` })) } } }, "*"));
  await page.waitForSelector('[data-id="t-follow"] .diff', { state: "attached" });
  await page.waitForFunction(() => { const t = document.querySelector("#transcript")!; return t.scrollHeight - t.scrollTop - t.clientHeight < 2; });
});

test("thinking is folded, a turn's usage is a line under it, a failure is an error notice", { skip }, async () => {
  const posted: ViewOp[] = [];
  const controller = new ChatController({
    post: (op) => posted.push(op), commands: () => Promise.resolve(null), newSessionId: () => "thinking-session",
    approveProject: () => Promise.resolve(), statusChanged: () => undefined,
  });
  controller.redraw();
  const events: ChatEvent[] = [
    { sessionId: "thinking-session", kind: "turnStart", prompt: "What is in notes.txt?" },
    { sessionId: "thinking-session", kind: "thinking", text: "The user wants the file; " },
    { sessionId: "thinking-session", kind: "thinking", text: "<b>read</b> it first." },
    { sessionId: "thinking-session", kind: "text", text: "It lists **alpha**." },
    { sessionId: "thinking-session", kind: "turnEnd", stopReason: "end_turn", text: "It lists **alpha**.", usage: {
      inputTokens: 12, outputTokens: 340, cacheReadTokens: 9_800, cacheWriteTokens: 600, costUsd: 0.0057,
      contextTokens: 10_750, contextWindow: 200_000 } },
    { sessionId: "thinking-session", kind: "turnStart", prompt: "And now?" },
    { sessionId: "thinking-session", kind: "turnEnd", stopReason: "error", text: "No API key is set for the model.",
      error: { kind: "noApiKey", message: "No API key is set for the model." } },
  ];
  events.forEach((event) => controller.handleEvent(event));
  await page.evaluate((list) => list.forEach((op) => window.postMessage(op, "*")), posted);
  await page.waitForSelector(".entry.notice.error");
  const thinking = await page.$eval(".entry.thinking", (d) => ({
    open: (d as HTMLDetailsElement).open, summary: d.querySelector("summary")?.textContent, body: d.querySelector(".body")?.textContent,
    bold: d.querySelectorAll("b").length,
  }));
  assert.deepEqual(thinking, { open: false, summary: "Thinking", body: "The user wants the file; <b>read</b> it first.", bold: 0 });
  const usage = await page.$$eval(".entry.usage", (n) => n.map((x) => x.textContent));
  assert.deepEqual(usage, ["10k input tokens (9.8k from the cache, 600 written to it) · 340 output · about $0.0057 · context 5% of 200k"]);
  assert.deepEqual(await page.$$eval(".entry.notice.error .text", (n) => n.map((x) => x.textContent)), ["No API key is set for the model."]);
  assert.deepEqual(await page.$$eval(".entry.notice.error button", (n) => n.map((x) => x.textContent)), ["Set API Key", "Try without a key"], "the fix is one click away");
  await page.screenshot({ path: path.join(REPORT, "webview-thinking.png"), fullPage: true });
});


test("an MCP server's approval card shows the definition as text; Approve answers once; the answer replaces the buttons", { skip }, async () => {
  const question = "The workspace's .mcp.json defines the MCP server 'fx', which runs node <img src=x onerror=alert(1)> --flag. Start it?";
  await page.evaluate(() => { (window as unknown as { __posted: unknown[] }).__posted.length = 0; });
  await page.evaluate((q) => window.postMessage({ op: "entry", entry: { type: "mcpApproval", id: "mcp-approval-9", server: "fx", question: q, answer: "pending" } }, "*"), question);
  const card = '.entry.mcp-approval[data-id="mcp-approval-9"]';
  await page.waitForSelector(`${card} button.approve`);
  assert.equal(await page.$eval(`${card} pre.question`, (n) => n.textContent), question, "shown exactly, as text");
  assert.equal(await page.$$eval(`${card} img`, (n) => n.length), 0);
  await page.click(`${card} button.approve`);
  assert.equal(await page.$eval(`${card} button.not-now`, (b) => (b as HTMLButtonElement).disabled), true, "answered once");
  assert.deepEqual(await page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted), [{ type: "mcpApproval", id: "mcp-approval-9", approved: true }]);
  await page.evaluate((q) => window.postMessage({ op: "replaceEntry", entry: { type: "mcpApproval", id: "mcp-approval-9", server: "fx", question: q, answer: "approved" } }, "*"), question);
  await page.waitForSelector(`${card}[data-answer="approved"] .outcome`);
  assert.equal(await page.$$eval(`${card} button`, (n) => n.length), 0);
});
