/** The chat's pure helpers: diffs, paths, mentions, history, server starts, settings tabs, interpreters, modes, cards. */

import assert from "node:assert/strict";
import { test } from "node:test";
import { diffTexts, parseUnifiedDiff, diffStat } from "../../src/logic/lineDiff";
import { InputHistory, caretOnFirstLine, caretOnLastLine } from "../../src/logic/inputHistory";
import { composePrompt, foldersOf, mentionAt, mentionedPaths, mentionText, rankCandidates } from "../../src/logic/mentions";
import { modeChoices, modeWarning } from "../../src/logic/modes";
import { MAX_STORED_SESSIONS, readStored, readTranscript, remember } from "../../src/logic/pastSessions";
import { displayPath, linkPaths, looksLikeRelativePath } from "../../src/logic/paths";
import { cardResult, promptView } from "../../src/logic/permissionCard";
import { choosePython, venvCandidates } from "../../src/logic/pythonDetect";
import { selectionLines } from "../../src/logic/selection";
import { demoCommand, readDemoLine } from "../../src/logic/serverLaunch";
import { StartSupervisor, type Launched } from "../../src/logic/serverStart";
import { settingsTab } from "../../src/logic/settingsTarget";
import { changedFile, resultView, stripLineNumbers } from "../../src/logic/toolCards";
import { EDIT_PROMPT } from "./fixtures";

test("a line diff keeps changes with a little context and counts them", () => {
  const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const after = before.replace("line 3\n", "line three\n").replace("line 18\n", "");
  const diff = diffTexts(before, after);
  assert.equal(diffStat(diff), "+1 −2");
  assert.deepEqual(diff.lines.map((l) => `${l.kind}:${l.text}`), [
    "context:line 1", "context:line 2", "remove:line 3", "add:line three", "context:line 4", "context:line 5",
    "gap:10 unchanged lines", "context:line 16", "context:line 17", "remove:line 18", "context:line 19", "context:line 20",
  ]);
  assert.deepEqual(diffTexts("", "new\n").lines, [{ kind: "add", text: "new" }]);
});

test("a unified diff reads as the same lines and counts", () => {
  const diff = parseUnifiedDiff(EDIT_PROMPT.diff ?? "");
  assert.deepEqual([diff.added, diff.removed], [1, 1]);
  assert.deepEqual(diff.lines.map((l) => l.kind), ["context", "remove", "add"]);
});

test("paths inside the workspace are shown relative and become links, with their line", () => {
  const roots = ["/home/dev/project"];
  assert.equal(displayPath("/home/dev/project/src/app.py", roots), "src/app.py");
  assert.equal(displayPath("/etc/passwd", roots), "/etc/passwd");
  assert.deepEqual(linkPaths("Edit /home/dev/project/src/app.py:12. Not /home/dev/projects/x", roots), [
    { text: "Edit " }, { text: "src/app.py:12", path: "/home/dev/project/src/app.py", line: 12 }, { text: ". Not /home/dev/projects/x" },
  ]);
  assert.ok(looksLikeRelativePath("src/app.py") && looksLikeRelativePath("app.py:3"));
  assert.ok(!looksLikeRelativePath("../etc/passwd") && !looksLikeRelativePath("hello world"));
});

test("@ mentions: what is being typed, what a prompt names, how candidates rank", () => {
  assert.deepEqual(mentionAt("look at @src/ap", 15), { start: 8, query: "src/ap" });
  assert.equal(mentionAt("mail me@example.com", 19), null);
  assert.deepEqual(mentionedPaths('see @src/app.py, @"my dir/x.py" and a@b.c'), ["src/app.py", "my dir/x.py"]);
  assert.equal(mentionText("my dir/x.py"), '@"my dir/x.py"');
  assert.deepEqual(foldersOf(["src/lib/a.ts", "src/b.ts"]), ["src/", "src/lib/"]);
  const ranked = rankCandidates("app", [
    { path: "docs/happy.md", kind: "file" }, { path: "src/app.py", kind: "file" }, { path: "app/", kind: "folder" }, { path: "zzz", kind: "file" },
  ]);
  assert.deepEqual(ranked.map((c) => c.path), ["app/", "src/app.py", "docs/happy.md"]);
  assert.equal(composePrompt("hi", []), "hi");
});

test("↑ and ↓ browse earlier prompts and come back to the draft", () => {
  const history = new InputHistory(["first", "second"]);
  assert.equal(history.older("draft"), "second");
  assert.equal(history.older("second"), "first");
  assert.equal(history.older("first"), null);
  assert.equal(history.newer(), "second");
  assert.equal(history.newer(), "draft");
  assert.equal(history.newer(), null);
  history.push("third");
  history.push("third");
  assert.deepEqual(history.all, ["first", "second", "third"]);
  assert.ok(caretOnFirstLine("a\nb", 1, 1) && !caretOnFirstLine("a\nb", 3, 3));
  assert.ok(caretOnLastLine("a\nb", 3, 3) && !caretOnLastLine("a\nb", 0, 0));
});

test("a whole-line selection ends on its last line, not the next", () => {
  assert.deepEqual(selectionLines({ line: 2, character: 0 }, { line: 5, character: 0 }), { startLine: 3, endLine: 5 });
  assert.deepEqual(selectionLines({ line: 2, character: 4 }, { line: 5, character: 3 }), { startLine: 3, endLine: 6 });
  assert.deepEqual(selectionLines({ line: 2, character: 0 }, { line: 2, character: 0 }), { startLine: 3, endLine: 3 });
});

function launchedThat(ready: Promise<void>): Launched & { aborted: boolean } {
  const launched = { ready, aborted: false, abort: () => { launched.aborted = true; return Promise.resolve(); } };
  return launched;
}

test("a start that hangs times out and is ended; a restart never waits behind a hung start", async () => {
  const hung = launchedThat(new Promise(() => undefined));
  const good = launchedThat(Promise.resolve());
  const launches = [hung, good];
  let timeout = 60_000;
  const supervisor = new StartSupervisor(() => Promise.resolve(launches.shift()!), () => timeout);
  const first = supervisor.start();
  await new Promise((resolve) => setImmediate(resolve));
  const second = supervisor.start(); // Restart Server while the first start hangs
  assert.deepEqual(await second, { kind: "running" });
  assert.deepEqual(await first, { kind: "superseded" });
  assert.ok(hung.aborted, "the hung process was ended");
  assert.deepEqual(await supervisor.settled(), { kind: "running" });

  timeout = 10;
  const stuck = launchedThat(new Promise(() => undefined));
  const timed = new StartSupervisor(() => Promise.resolve(stuck), () => timeout);
  assert.deepEqual(await timed.start(), { kind: "timeout", seconds: 0 });
  assert.ok(stuck.aborted);
  const failing = new StartSupervisor(() => Promise.reject(new Error("spawn nope ENOENT")), () => 1000);
  assert.deepEqual(await failing.start(), { kind: "failed", error: "spawn nope ENOENT" });
});

test("Open Settings opens the tab the value comes from; with none, Remote in a remote window", () => {
  assert.equal(settingsTab([{ globalValue: "/usr/bin/python3" }], "ssh-remote"), "remote");
  assert.equal(settingsTab([{}, {}], undefined), "user");
  assert.equal(settingsTab([{ workspaceValue: "x" }], "ssh-remote"), "workspace");
  assert.equal(settingsTab([undefined, { workspaceFolderValue: "x" }], undefined), "workspaceFolder");
});

test("the interpreter: the setting, else (trusted only) the Python extension's, else the workspace venv with handrail", async () => {
  const has = (ok: string[]) => (python: string) => Promise.resolve(ok.includes(python));
  assert.deepEqual(await choosePython(" /opt/py ", "/ext/python", ["/w"], true, has([])), { python: "/opt/py", source: "setting" });
  assert.deepEqual(await choosePython("", "/ext/python", ["/w"], true, has(["/ext/python", "/w/.venv/bin/python"]), "linux"), { python: "/ext/python", source: "pythonExtension" });
  assert.deepEqual(await choosePython("", "/ext/python", ["/w"], true, has(["/w/.venv/bin/python"]), "linux"), { python: "/w/.venv/bin/python", source: "workspaceVenv" });
  assert.equal(await choosePython("", "/ext/python", ["/w"], true, has([]), "linux"), null);
  assert.equal(await choosePython("", undefined, ["/w"], false, has(["/w/.venv/bin/python"]), "linux"), null, "Restricted Mode runs nothing of the workspace's");
  assert.deepEqual(venvCandidates("/w", "linux"), ["/w/.venv/bin/python", "/w/venv/bin/python", "/w/env/bin/python"]);
});

test("the demo runs the same way the server does, and only with a model on this machine", () => {
  assert.deepEqual(demoCommand({ command: "handrail lsp", pythonPath: "" }), ["handrail", "demo", "--serve"]);
  assert.deepEqual(demoCommand({ command: "/x/handrail lsp --log-level INFO", pythonPath: "" }), ["/x/handrail", "demo", "--serve"]);
  assert.deepEqual(demoCommand({ command: "", pythonPath: "/w/.venv/bin/python" }), ["/w/.venv/bin/python", "-m", "handrail", "demo", "--serve"]);
  assert.equal(demoCommand({ command: "my-wrapper", pythonPath: "" }), null);
  assert.deepEqual(readDemoLine('{"workspace": "/tmp/s", "baseUrl": "http://127.0.0.1:4000", "prompt": "fix it"}'), { workspace: "/tmp/s", baseUrl: "http://127.0.0.1:4000", prompt: "fix it" });
  assert.equal(readDemoLine('{"workspace": "/tmp/s", "baseUrl": "https://evil.example", "prompt": "x"}'), null);
  assert.equal(readDemoLine("not json"), null);
});

test("the mode picker describes each mode in a line and asks to confirm bypass", () => {
  const choices = modeChoices("acceptEdits");
  assert.ok(choices.every((c) => c.detail.length > 10));
  assert.ok(choices.find((c) => c.mode === "acceptEdits")?.label.startsWith("$(check)"));
  assert.ok(choices.some((c) => c.mode === "dontAsk"));
  assert.match(modeWarning("bypassPermissions") ?? "", /without asking/);
  assert.equal(modeWarning("plan"), null);
});

test("a card shows the exact command first and every rule an always adds; the answer's rules are the request's", () => {
  const params = {
    ...EDIT_PROMPT, tool: "Bash", input: { command: "x" }, diff: null, suggestions: ["Bash(git push:*)", "Bash(rm:*)"],
    command: "git push origin main && rm -rf ~/\u202eprojects", description: "Push the docs",
  };
  const view = promptView(params, []);
  assert.equal(view.question, "Run this command?");
  assert.equal(view.command, "git push origin main && rm -rf ~/\\u202eprojects");
  assert.equal(view.description, "Push the docs");
  assert.deepEqual(view.rules, ["Bash(git push:*)", "Bash(rm:*)"]);
  assert.deepEqual(cardResult(params, { decision: "allowAlways" }), { decision: "allowAlways", rules: ["Bash(git push:*)", "Bash(rm:*)"], rule: "Bash(git push:*)", destination: "session" });
  assert.deepEqual(cardResult(params, { decision: "deny", feedback: "  " }), { decision: "deny" });
  // no suggestion (a flagged command): no rule to add, so never the tool's name
  const flagged = { ...params, suggestions: [] };
  assert.deepEqual(promptView(flagged, []).rules, []);
  assert.deepEqual(cardResult(flagged, { decision: "allowAlways" }), { decision: "allow" });
  const plan = promptView({ ...EDIT_PROMPT, tool: "ExitPlanMode", input: { plan: "1. do it" }, diff: null, suggestions: [] }, []);
  assert.equal(plan.kind, "plan");
  assert.equal(plan.plan, "1. do it");
  assert.deepEqual(cardResult({ ...EDIT_PROMPT, tool: "ExitPlanMode" }, { decision: "allowAlways" }), { decision: "allow" });
  const edit = promptView(EDIT_PROMPT, ["/home/dev/project"]);
  assert.equal(edit.question, "Edit app.py?");
  assert.ok(edit.canOpenDiff);
});

test("tool results: cat -n numbers go, counts come; the file of a file-changing call is found in its summary", () => {
  assert.deepEqual(stripLineNumbers("     9\ta\n    10\tb"), { text: "a\nb", lastLine: 10 });
  assert.deepEqual(stripLineNumbers("plain output"), { text: "plain output", lastLine: null });
  assert.deepEqual(resultView("Glob", "a.py\nb.py", false, false), { fact: "2 files", body: "a.py\nb.py" });
  assert.deepEqual(resultView("Grep", "No matches found", false, false).fact, "no matches");
  assert.equal(changedFile("MultiEdit", "MultiEdit /w/a.py (2 edits)"), "/w/a.py");
  assert.equal(changedFile("Edit", "Edit /w/a b.py"), "/w/a b.py");
  assert.equal(changedFile("Read", "Read /w/a.py"), null);
});

test("stored sessions: read defensively, newest first, bounded", () => {
  assert.deepEqual(readStored([{ id: "a", title: "A", updated: 1, running: true }, { id: 3 }, null, "x"]), [{ id: "a", title: "A", updated: 1, running: true }]);
  assert.deepEqual(readStored(undefined), []);
  let list = remember([], { id: "a", title: "A", updated: 1, running: false });
  list = remember(list, { id: "b", title: "B", updated: 2, running: false });
  list = remember(list, { id: "a", title: "A2", updated: 3, running: true });
  assert.deepEqual(list.map((s) => `${s.id}:${s.title}`), ["a:A2", "b:B"]);
  for (let i = 0; i < MAX_STORED_SESSIONS + 5; i += 1) {
    list = remember(list, { id: `s${i}`, title: "", updated: 10 + i, running: false });
  }
  assert.equal(list.length, MAX_STORED_SESSIONS);
});

test("a finished transcript is not interrupted; one ending on a prompt is", () => {
  const msg = (role: string, content: unknown): string => JSON.stringify({ type: "message", message: { role, content } });
  assert.equal(readTranscript([msg("user", "hi"), msg("assistant", [{ type: "text", text: "hello" }])].join("\n")).interrupted, false);
  assert.equal(readTranscript(msg("user", "hi")).interrupted, true);
  assert.deepEqual(readTranscript("").entries, []);
});
