import assert from "node:assert/strict";
import { test } from "node:test";
import { answerItems, answerText, OTHER_LABEL, questionTitle } from "../../src/logic/askUser";
import { diagnosticsParams, shouldForward } from "../../src/logic/diagnostics";
import { promptWithSelection } from "../../src/logic/selection";
import { buildLaunch, splitCommandLine, type LaunchSettings } from "../../src/logic/serverLaunch";
import { auditLogPath } from "../../src/logic/statePaths";
import { formatCost, formatTokens, statusText, statusTooltip, usageLine } from "../../src/logic/status";
import { chatHtml } from "../../src/logic/webviewHtml";

const SETTINGS: LaunchSettings = { command: "handrail lsp", pythonPath: "", model: "", baseUrl: "", maxToolConcurrency: 0, workspaceTrusted: false };

test("the server command: default, quoted words, python path", () => {
  assert.deepEqual(buildLaunch(SETTINGS, {}).command, "handrail");
  assert.deepEqual(splitCommandLine(`"/opt/my tools/handrail" lsp --log-level 'INFO'`), ["/opt/my tools/handrail", "lsp", "--log-level", "INFO"]);
  const py = buildLaunch({ ...SETTINGS, pythonPath: "/venv/bin/python" }, {});
  assert.deepEqual([py.command, ...py.args], ["/venv/bin/python", "-m", "handrail", "lsp"]);
  assert.throws(() => splitCommandLine(`"unbalanced`), /unbalanced/);
});

test("settings reach the server as initialization options and environment; the key only in env", () => {
  const launch = buildLaunch({ ...SETTINGS, model: "claude-x", baseUrl: "http://127.0.0.1:9", maxToolConcurrency: 3, apiKey: "sk-secret", workspaceTrusted: true }, { PATH: "/bin", UNSET: undefined });
  assert.deepEqual(launch.initializationOptions, { workspaceTrusted: true, model: "claude-x", baseUrl: "http://127.0.0.1:9", maxToolConcurrency: 3 });
  assert.equal(launch.env.ANTHROPIC_API_KEY, "sk-secret");
  assert.equal(launch.env.HANDRAIL_MAX_TOOL_CONCURRENCY, "3");
  assert.equal(launch.env.PATH, "/bin");
  assert.ok(!("UNSET" in launch.env));
  assert.ok(!JSON.stringify(launch.initializationOptions).includes("sk-secret"));
});

test("askUser: options plus Other…, answers joined, free text in place of Other…", () => {
  const q = { question: "Which?", header: "Pick", options: [{ label: "A", description: "first" }, { label: "B" }], multiSelect: true };
  const items = answerItems(q);
  assert.deepEqual(items.map((i) => i.label), ["A", "B", OTHER_LABEL]);
  assert.equal(answerText([items[0], items[1]]), "A, B");
  assert.equal(answerText([items[0], items[2]], " C "), "A, C");
  assert.equal(answerText([items[2]], ""), null);
  assert.equal(questionTitle(q, 0, 2), "Pick: Which? (1/2)");
});

test("diagnostics convert to LSP (severity + 1, code value) for files only", () => {
  const params = diagnosticsParams("file:///a.py", 4, [{ range: { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } }, message: "bad", severity: 0, source: "pyright", code: { value: "E1" } }]);
  assert.deepEqual(params, { uri: "file:///a.py", version: 4, diagnostics: [{ range: { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } }, severity: 1, message: "bad", source: "pyright", code: "E1" }] });
  assert.deepEqual(diagnosticsParams("file:///b.py", null, []).diagnostics, []);
  assert.ok(shouldForward("file") && !shouldForward("output") && !shouldForward("git"));
});

test("the selection is quoted after the question", () => {
  assert.equal(promptWithSelection("why?", null), "why?");
  assert.equal(promptWithSelection("why?", { path: "src/a.ts", languageId: "typescript", startLine: 3, endLine: 4, text: "a\nb" }),
    "why?\n\nSelected in src/a.ts (lines 3-4):\n```typescript\na\nb\n```");
});

test("the audit log path mirrors the server's state dir rules", () => {
  assert.equal(auditLogPath("s/1", { HANDRAIL_STATE_DIR: "/st" }, "/home/u"), "/st/sessions/s_1/audit.jsonl");
  assert.equal(auditLogPath("s1", { XDG_STATE_HOME: "/x" }, "/home/u"), "/x/handrail/sessions/s1/audit.jsonl");
  assert.equal(auditLogPath("s1", {}, "/home/u"), "/home/u/.local/state/handrail/sessions/s1/audit.jsonl");
});

test("status bar text", () => {
  const status = { sessionId: "s", running: true, mode: "acceptEdits", usage: { inputTokens: 12_345, outputTokens: 950 }, backgroundRunning: 0 };
  assert.equal(statusText(status, "running"), "$(sync~spin) handrail: Accept edits · 12k↑ 950↓");
  assert.equal(statusText({ ...status, running: false, usage: { inputTokens: 0, outputTokens: 0 } }, "running"), "$(hubot) handrail: Accept edits");
  assert.match(statusText(status, "stopped"), /stopped/);
  assert.equal(formatTokens(1234), "1.2k");
});

test("the status bar counts running background tasks only when there are some", () => {
  const status = { sessionId: "s", running: false, mode: "default", usage: { inputTokens: 0, outputTokens: 0 }, backgroundRunning: 2 };
  assert.equal(statusText(status, "running"), "$(hubot) handrail: Default · $(server-process) 2");
  assert.match(statusTooltip(status), /; 2 background tasks running\./);
  assert.match(statusTooltip({ ...status, backgroundRunning: 1 }), /; 1 background task running\./);
  assert.equal(statusText({ ...status, backgroundRunning: 0 }, "running"), "$(hubot) handrail: Default");
  assert.doesNotMatch(statusTooltip({ ...status, backgroundRunning: 0 }), /background/);
});

test("the webview shell has a strict CSP: only the nonce'd script runs", () => {
  const html = chatHtml({ cspSource: "vscode-resource:", scriptUri: "s.js", styleUri: "c.css", nonce: "N0nce" });
  assert.match(html, /default-src 'none'/);
  assert.match(html, /script-src 'nonce-N0nce'/);
  assert.ok(!html.includes("unsafe-inline") && !html.includes("unsafe-eval"));
  assert.match(html, /<script nonce="N0nce" src="s.js">/);
});

test("costs read as money: dollars with two decimals, small amounts with two significant figures", () => {
  assert.equal(formatCost(1.234), "$1.23");
  assert.equal(formatCost(0.25), "$0.25");
  assert.equal(formatCost(0.0123), "$0.012");
  assert.equal(formatCost(0.01), "$0.01");
  assert.equal(formatCost(0), "$0");
  assert.equal(formatCost(0.00001), "< $0.0001");
});

test("the status bar adds the session's cost and how full the context is; the tooltip says the cache's share", () => {
  const usage = { inputTokens: 100, outputTokens: 2_100, cacheReadTokens: 40_000, cacheWriteTokens: 5_000, costUsd: 0.0412,
    contextTokens: 46_000, contextWindow: 200_000 };
  const status = { sessionId: "s", running: false, mode: "default", usage, backgroundRunning: 0 };
  assert.equal(statusText(status, "running"), "$(hubot) handrail: Default · 45k↑ 2.1k↓ · $0.041 · 23%");
  assert.match(statusTooltip(status), /45100 input \(40000 read from the prompt cache, 5000 written to it\) \/ 2100 output tokens, about \$0\.041; context 23% full \(46k of 200k tokens\)/);
  const unpriced = { ...status, usage: { ...usage, costUsd: null } };
  assert.equal(statusText(unpriced, "running"), "$(hubot) handrail: Default · 45k↑ 2.1k↓ · 23%");
  assert.equal(usageLine({ inputTokens: 5, outputTokens: 7 }), "5 input tokens · 7 output");
});
