/**
 * End to end in a real VS Code (code-server 1.100 + headless Chromium): the packaged .vsix, the real
 * `handrail lsp`, the scripted model. Run by scripts/e2e.sh (CODE_SERVER and HANDRAIL_VSIX set).
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { chromium, type Browser, type Frame, type Page } from "playwright-core";
import { python, startFakeModel, type FakeModel } from "../integration/harness";
import { startCodeServer, type CodeServer } from "./codeServer";

const ROOT = path.join(__dirname, "..", "..", "..");
const REPORT = path.join(ROOT, "test-report", "e2e");
const CODE_SERVER = process.env.CODE_SERVER ?? "";
const VSIX = process.env.HANDRAIL_VSIX ?? path.join(ROOT, "handrail.vsix");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const skip = !CODE_SERVER ? "CODE_SERVER is not set (run scripts/e2e.sh)" : false;
const LONG = 90_000;

const ORIGINAL = "def greet(name):\n    return 'hello ' + name\n";
/** A command whose dangerous part comes last, after a harmless-looking start: the card must show all of it. */
const NEW_FILE = "# Notes\n\nA file the agent created.\n";
const LONG_COMMAND = "printf 'a line for the new file, written by the agent as its first step\\n' > made.txt && grep -c line made.txt && echo 'echo the end of a long command piped to a shell' | sh";

let home: string;
let browser: Browser;
let model: FakeModel;

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(REPORT, `${name}.png`) });
}

/** Run `body`; on failure take `onFailure`'s screenshot first; always clean up. */
async function guarded(body: () => Promise<void>, onFailure: () => Promise<void>, cleanup: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    await onFailure().catch(() => undefined);
    throw error;
  } finally {
    await cleanup();
  }
}

/** The chat webview's inner frame (VS Code nests it in two iframes), or undefined while there is none. */
async function loadedChatFrame(page: Page): Promise<Frame | undefined> {
  for (const frame of page.frames()) {
    if (await frame.$("#prompt").catch(() => null)) {
      // the script has run and the extension answered its "ready" once the session list is filled
      await frame.waitForSelector("#sessions option", { state: "attached", timeout: LONG });
      return frame;
    }
  }
  return undefined;
}

async function openWorkbench(server: CodeServer, folder: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${server.url}/?folder=${encodeURIComponent(folder)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: LONG });
  return page;
}

/**
 * Show the chat view and return its frame. The activity bar item toggles: after a reload VS Code may restore
 * the view as already open, and a click then would close it. So click only while the item is not selected.
 */
async function openChat(page: Page): Promise<Frame> {
  const item = page.locator('.activitybar [aria-label^="handrail"]').first();
  await item.waitFor({ timeout: LONG });
  const selected = (): Promise<boolean> => item.evaluate((element) => {
    const action = element.closest(".action-item") ?? element;
    return action.classList.contains("checked") || action.getAttribute("aria-selected") === "true";
  });
  const deadline = Date.now() + LONG;
  while (Date.now() < deadline) {
    if (!(await selected())) {
      await item.click();
      await page.mouse.move(700, 600); // no hover tooltip over the chat in the screenshots
    }
    const frame = await loadedChatFrame(page);
    if (frame) {
      return frame;
    }
    await page.waitForTimeout(250);
  }
  throw new Error("the handrail chat view did not load");
}

function userSettings(extra: Record<string, unknown>): void {
  const dir = path.join(home, "user-data", "User");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "settings.json"), JSON.stringify({
    "handrail.server.pythonPath": python(),
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "security.workspace.trust.startupPrompt": "never",
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "update.mode": "none",
    "chat.commandCenter.enabled": false,
    "workbench.colorTheme": "Default Dark Modern",
    ...extra,
  }, null, 2));
}

function serverEnv(): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: model.baseUrl,
    ANTHROPIC_API_KEY: "test-key",
    HANDRAIL_STATE_DIR: path.join(home, "handrail-state"),
    HANDRAIL_RETRY_BASE_DELAY: "0",
    XDG_CONFIG_HOME: path.join(home, "xdg-config"),
    XDG_DATA_HOME: path.join(home, "xdg-data"),
  };
}

before(async () => {
  if (skip) {
    return;
  }
  fs.mkdirSync(REPORT, { recursive: true });
  home = fs.mkdtempSync(path.join(os.tmpdir(), "handrail-e2e-"));
  const install = spawnSync(CODE_SERVER, ["--config", path.join(home, "config.yaml"), "--user-data-dir", path.join(home, "user-data"),
    "--extensions-dir", path.join(home, "extensions"), "--install-extension", VSIX], { encoding: "utf8", env: { ...process.env, XDG_CONFIG_HOME: path.join(home, "xdg-config") } });
  assert.equal(install.status, 0, `installing the vsix failed: ${install.stdout}${install.stderr}`);
  const ws = path.join(home, "ws");
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, "app.py"), ORIGINAL);
  model = await startFakeModel(home, [
    [{ text: "Let me read it." }, { tool: "Read", input: { file_path: path.join(ws, "app.py") } }],
    [{ tool: "Edit", input: { file_path: path.join(ws, "app.py"), old_string: "'hello '", new_string: "'hi '" } }],
    [{ text: "Changed the **greeting** to hi." }],
    [{ tool: "Bash", input: { command: LONG_COMMAND, description: "make a file" } }],
    [{ tool: "Write", input: { file_path: path.join(ws, "notes", "new.md"), content: NEW_FILE } }],
    [{ text: "Made it." }],
  ]);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"] });
});

after(async () => {
  await browser?.close();
  model?.close();
  if (home && !process.env.HANDRAIL_E2E_KEEP) {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test("ask, answer the inline cards (diff, the whole long command), undo the turn, find the session after a reload", { skip, timeout: 400_000 }, async () => {
  userSettings({});
  const ws = path.join(home, "ws");
  const server = await startCodeServer({ binary: CODE_SERVER, home, folder: ws, trust: true, env: serverEnv(), log: path.join(REPORT, "code-server-trusted.log") });
  const page = await openWorkbench(server, ws);
  await guarded(async () => {
    // open app.py in an editor from the Explorer
    const file = page.locator(".explorer-folders-view .monaco-list-row", { hasText: "app.py" }).first();
    await file.waitFor({ timeout: LONG });
    await file.click();
    await page.waitForSelector('.tab[aria-label^="app.py"]', { timeout: LONG });

    let chat = await openChat(page);
    await chat.fill("#prompt", "Say hi instead of hello");
    await chat.press("#prompt", "Enter");

    // the question is a card in the chat: the file, the diff with its counts, why, the answers
    const editCard = chat.locator('.tool[data-status="waiting"]', { hasText: "Edit" });
    const ask = editCard.locator(".ask");
    await ask.waitFor({ timeout: LONG });
    assert.match(await ask.locator(".question").innerText(), /^Edit app\.py\?/);
    assert.match(await ask.locator(".stat").innerText(), /\+1\s*−1/);
    const diffText = await ask.locator(".diff-lines").innerText();
    assert.match(diffText, /return 'hello ' \+ name/);
    assert.match(diffText, /return 'hi ' \+ name/);
    assert.equal(await page.locator(".quick-input-widget:visible").count(), 0, "no quick pick by default");
    await shot(page, "1-inline-edit-card");
    // another quick input (Ctrl+P) does not answer it
    await page.locator(".editor-instance .view-lines").first().click(); // focus the editor, outside the chat
    await page.keyboard.press("Control+P");
    await page.locator(".quick-input-widget").waitFor({ state: "visible", timeout: LONG });
    await page.keyboard.press("Escape");
    assert.equal(await editCard.count(), 1, "still asking after Ctrl+P and Escape");

    await ask.locator("button.allow").click();
    await chat.locator(".entry.assistant", { hasText: "Changed the greeting to hi." }).waitFor({ timeout: LONG });
    const done = chat.locator(".tool", { hasText: "Edit" });
    await done.locator(".permission", { hasText: "allowed once" }).waitFor();
    assert.equal(await done.getAttribute("data-status"), "done");
    await page.waitForFunction(() => [...document.querySelectorAll(".editor-instance .view-lines")]
      .some((n) => (n as HTMLElement).innerText.replace(/\u00a0/g, " ").includes("return 'hi ' + name")), undefined, { timeout: LONG });
    const checkpoint = chat.locator(".entry.checkpoint", { hasText: "app.py" });
    await checkpoint.waitFor({ timeout: LONG });
    assert.match(await checkpoint.innerText(), /This turn changed app\.py/);
    await shot(page, "2-edit-landed-with-checkpoint");
    const deadline = Date.now() + LONG;
    while (!fs.readFileSync(path.join(ws, "app.py"), "utf8").includes("'hi '") && Date.now() < deadline) {
      await page.waitForTimeout(200); // saved through handrail/saveDocument (the buffer had no user changes)
    }
    assert.equal(fs.readFileSync(path.join(ws, "app.py"), "utf8"), "def greet(name):\n    return 'hi ' + name\n");
    const status = await page.locator(".statusbar-item", { hasText: "handrail:" }).first().innerText();
    assert.match(status, /handrail: Default/);

    // a long command is shown whole, the model's description after it; piped to a shell, no rule is
    // safe to offer, so there is no "Always allow"
    await chat.fill("#prompt", "Make a file");
    await chat.press("#prompt", "Enter");
    const bashAsk = chat.locator('.tool[data-status="waiting"]', { hasText: "make a file" }).locator(".ask");
    await bashAsk.waitFor({ timeout: LONG });
    assert.equal(await bashAsk.locator("pre.command").innerText(), `$ ${LONG_COMMAND}`);
    assert.match(await bashAsk.locator(".description").innerText(), /make a file/);
    assert.equal(await bashAsk.locator("button.always").count(), 0, "no Always allow for code piped into a shell");
    await shot(page, "3-inline-long-command");
    await bashAsk.locator("button.allow").click();
    await chat.locator(".tool", { hasText: "make a file" }).locator(".permission", { hasText: "allowed once" }).waitFor({ timeout: LONG });
    assert.ok(fs.existsSync(path.join(ws, "made.txt")));

    // a new file: the card shows it, "Always allow" asks where and names the rule; the file is created whole
    const writeAsk = chat.locator('.tool[data-status="waiting"]', { hasText: "Write" }).locator(".ask");
    await writeAsk.waitFor({ timeout: LONG });
    assert.match(await writeAsk.locator(".question").innerText(), /new\.md/);
    await writeAsk.locator("button.always").click();
    await writeAsk.locator("button.destination", { hasText: "This workspace" }).click();
    await chat.locator(".entry.assistant", { hasText: "Made it." }).waitFor({ timeout: LONG });
    await chat.locator(".tool", { hasText: "Write" }).locator(".permission", { hasText: "always allowed" }).waitFor();
    const newFile = path.join(ws, "notes", "new.md");
    const writeDeadline = Date.now() + LONG;
    while (!(fs.existsSync(newFile) && fs.readFileSync(newFile, "utf8") === NEW_FILE) && Date.now() < writeDeadline) {
      await page.waitForTimeout(200); // created and saved through the editor
    }
    assert.equal(fs.readFileSync(newFile, "utf8"), NEW_FILE);
    assert.match(await chat.locator(".entry.checkpoint", { hasText: "notes/new.md" }).innerText(), /This turn changed notes\/new\.md/);
    assert.equal(await page.locator(".tab.dirty").count(), 0, "no unsaved editor is left behind");
    assert.match(fs.readFileSync(path.join(ws, ".handrail", "settings.local.json"), "utf8"), /Edit\(\/\/.*notes\/new\.md\)/);
    await shot(page, "3b-new-file-created");

    // undo the first turn: a preview names the file, then app.py is back as before the turn
    await checkpoint.locator("button.undo-turn").click();
    const dialog = page.locator(".monaco-dialog-box");
    await dialog.waitFor({ timeout: LONG });
    assert.match(await dialog.innerText(), /app\.py: \+1 −1/);
    await shot(page, "4-undo-turn-preview");
    await dialog.locator(".monaco-button", { hasText: "Undo Turn" }).click();
    await checkpoint.locator("button.undo-turn", { hasText: "Undone" }).waitFor({ timeout: LONG });
    const undoDeadline = Date.now() + LONG;
    while (fs.readFileSync(path.join(ws, "app.py"), "utf8") !== ORIGINAL && Date.now() < undoDeadline) {
      await page.waitForTimeout(200);
    }
    assert.equal(fs.readFileSync(path.join(ws, "app.py"), "utf8"), ORIGINAL);
    await shot(page, "5-turn-undone");

    // after a reload the session is listed with its date; opening it draws it from its transcript
    await page.reload();
    await page.waitForSelector(".monaco-workbench", { timeout: LONG });
    chat = await openChat(page);
    const option = chat.locator("#sessions option", { hasText: "Say hi instead of hello ·" });
    await option.waitFor({ state: "attached", timeout: LONG });
    await chat.selectOption("#sessions", (await option.getAttribute("value")) ?? "");
    await chat.locator(".entry.user", { hasText: "Make a file" }).waitFor({ timeout: LONG });
    await chat.locator(".entry.assistant", { hasText: "Changed the greeting to hi." }).waitFor({ timeout: LONG });
    await shot(page, "6-session-after-reload");
  }, () => shot(page, "failed-trusted"), async () => {
    await page.close();
    await server.stop();
  });
});

test("first run without a key: the empty chat leads to Set API Key, and the demo runs without one", { skip, timeout: 300_000 }, async () => {
  userSettings({});
  const fresh = path.join(home, "fresh");
  fs.mkdirSync(fresh, { recursive: true });
  fs.writeFileSync(path.join(fresh, "README.md"), "a new project\n");
  const env = serverEnv();
  delete (env as Partial<Record<string, string>>).ANTHROPIC_API_KEY;
  const server = await startCodeServer({ binary: CODE_SERVER, home, folder: fresh, trust: true, env, log: path.join(REPORT, "code-server-first-run.log") });
  const page = await openWorkbench(server, fresh);
  await guarded(async () => {
    const chat = await openChat(page);
    const empty = chat.locator("#empty");
    await empty.locator("button", { hasText: "Set API Key" }).waitFor({ timeout: LONG });
    assert.match(await empty.innerText(), /An AI coding agent/);
    await shot(page, "7-first-run-no-key");
    await empty.locator("button", { hasText: "Try without a key" }).click();
    await chat.locator(".entry.notice", { hasText: "Scripted demo" }).waitFor({ timeout: LONG });
    await chat.locator('.tool[data-status="waiting"] .ask').waitFor({ timeout: LONG });
    await shot(page, "8-demo-asks");
  }, () => shot(page, "failed-first-run"), async () => {
    await page.close();
    await server.stop();
  });
});

/** The repository's MCP fixture server (the Python SDK), as a workspace's .mcp.json defines it. */
const MCP_FIXTURE = path.join(ROOT, "..", "tests", "e2e", "mcp_fixture_server.py");

test("Restricted Mode: the project's rules are inactive and the chat view says why; granting trust pops no error; the project's MCP server is approved in the chat", { skip, timeout: 400_000 }, async () => {
  userSettings({});
  const project = path.join(home, "untrusted");
  fs.mkdirSync(path.join(project, ".handrail"), { recursive: true });
  fs.mkdirSync(path.join(project, ".vscode"), { recursive: true });
  fs.writeFileSync(path.join(project, ".handrail", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(npm test:*)"] } }, null, 2));
  // a restricted launch setting: granting trust puts it in force, which restarts the server (where the
  // "Sending notification workspace/didChangeConfiguration failed" toast used to come from)
  fs.writeFileSync(path.join(project, ".vscode", "settings.json"), JSON.stringify({ "handrail.server.pythonPath": python() }, null, 2));
  fs.writeFileSync(path.join(project, ".mcp.json"), JSON.stringify({ mcpServers: { fx: { command: python(), args: [MCP_FIXTURE] } } }, null, 2));
  fs.writeFileSync(path.join(project, "README.md"), "untrusted project\n");
  const mcpModel = await startFakeModel(fs.mkdtempSync(path.join(home, "model-")), [
    [{ text: "The fx server is on." }], [{ text: "Reviewed it." }],
    [{ tool: "mcp__fx__order_modern", input: {} }], [{ text: "Ordered." }],
  ]);
  const env = { ...serverEnv(), ANTHROPIC_BASE_URL: mcpModel.baseUrl };
  const server = await startCodeServer({ binary: CODE_SERVER, home, folder: project, trust: false, env, log: path.join(REPORT, "code-server-restricted.log") });
  const page = await openWorkbench(server, project);
  await guarded(async () => {
    await page.locator(".statusbar-item", { hasText: "Restricted Mode" }).first().waitFor({ timeout: LONG });
    const chat = await openChat(page);
    const inactive = chat.locator("#inactive");
    await inactive.locator(".why", { hasText: "Restricted Mode" }).waitFor({ timeout: LONG });
    const text = await inactive.innerText();
    assert.match(text, /Bash\(npm test:\*\) \(project\)/);
    await shot(page, "3-restricted-mode");

    // grant trust in the workspace trust editor: the chat follows, and no notification failed
    await page.locator(".statusbar-item", { hasText: "Restricted Mode" }).first().click();
    await page.locator(".workspace-trust-editor .monaco-button", { hasText: /^Trust$/ }).first().click();
    await inactive.locator(".why", { hasText: "until you approve the project settings" }).waitFor({ timeout: LONG });
    await page.locator(".statusbar-item", { hasText: "Restricted Mode" }).first().waitFor({ state: "detached", timeout: LONG });
    await page.locator(".statusbar-item", { hasText: "handrail:" }).first().waitFor({ timeout: LONG }); // the server runs
    const failed = page.locator(".notification-toast, .notifications-list-container .monaco-list-row", { hasText: /Sending notification|didChangeConfiguration/ });
    assert.equal(await failed.count(), 0, "granting trust popped a failed-notification toast");

    // ask: the prompt shows at once; the project settings' question (a toast) first, then the MCP
    // server's card in the chat with its definition as written
    const chatAgain = chat; // still shown beside the trust editor
    await chatAgain.fill("#prompt", "Use the fx server");
    await chatAgain.press("#prompt", "Enter");
    await chatAgain.locator(".entry.user", { hasText: "Use the fx server" }).waitFor({ timeout: LONG });
    const projectToast = page.locator(".notification-toast", { hasText: "loosen your permissions" }).filter({ has: page.locator(".monaco-button", { hasText: "Not now" }) });
    const card = chatAgain.locator('.entry.mcp-approval[data-answer="pending"]');
    await Promise.race([projectToast.first().waitFor({ timeout: LONG }), card.waitFor({ timeout: LONG })]);
    if (await projectToast.count() > 0) {
      await projectToast.first().locator(".monaco-button", { hasText: "Not now" }).click();
    }
    await card.waitFor({ timeout: LONG });
    const question = await card.locator("pre.question").innerText();
    assert.match(question, /\.mcp\.json defines the MCP server 'fx'/);
    assert.ok(question.includes(MCP_FIXTURE), `the card shows the exact command: ${question}`);
    const entries = await chatAgain.locator("#transcript > .entry").evaluateAll((nodes: Element[]): string[] => nodes.map((n) => n.className));
    assert.deepEqual(entries.slice(-2), ["entry user", "entry mcp-approval"], "the prompt shows above the card while it waits");
    assert.equal(await page.locator(".notification-toast", { hasText: "MCP server" }).count(), 0, "no toast for the MCP server");
    await page.mouse.move(700, 600);
    await shot(page, "9-mcp-approval-card");
    await card.locator("button.approve").click();
    await chatAgain.locator('.entry.mcp-approval[data-answer="approved"]').waitFor({ timeout: LONG });
    await chatAgain.locator(".entry.assistant", { hasText: "The fx server is on." }).waitFor({ timeout: LONG });
    assert.equal(await chatAgain.locator(".entry.user", { hasText: "Use the fx server" }).count(), 1, "the prompt is shown once");
    assert.equal(await failed.count(), 0);
    const { requests } = await mcpModel.requests();
    const tools = (requests.at(-1)?.tools as { name: string }[] | undefined)?.map((t) => t.name) ?? [];
    assert.ok(tools.includes("mcp__fx__echo"), `the approved server's tools are in the turn: ${tools.join(", ")}`);
    await shot(page, "10-mcp-approved");

    // @ lists the server's resources; / at the start lists its prompts with their arguments, and one runs
    const box = chatAgain.locator("#prompt");
    await box.fill("");
    await box.pressSequentially("see @fx:fixture://re");
    await chatAgain.locator(".completions:not([hidden]) .completion.resource", { hasText: "@fx:fixture://readme" }).waitFor({ timeout: LONG });
    await box.press("Escape");
    await box.fill("");
    await box.pressSequentially("/mcp__fx__rev");
    const completion = chatAgain.locator(".completions:not([hidden]) .completion.prompt", { hasText: "/mcp__fx__review" });
    await completion.waitFor({ timeout: LONG });
    assert.match(await completion.innerText(), /<path> \[focus\]/);
    await shot(page, "11-mcp-prompt-completion");
    await box.press("Tab");
    assert.equal(await box.inputValue(), "/mcp__fx__review ");
    await box.pressSequentially("app.py security");
    await box.press("Enter");
    await chatAgain.locator(".entry.assistant", { hasText: "Reviewed it." }).waitFor({ timeout: LONG });
    const sent = JSON.stringify((await mcpModel.requests()).requests.at(-1)?.messages);
    assert.ok(sent.includes("Please review app.py, looking for security."), `the prompt's text is the turn's: ${sent.slice(-400)}`);
    await shot(page, "12-mcp-prompt-ran");

    // a tool of the server asks for a form (elicitation): quick picks, then an input box that checks the answer
    await box.pressSequentially("Order for me");
    await box.press("Enter");
    const toolAsk = chatAgain.locator('.tool[data-status="waiting"]', { hasText: "order_modern" }).locator(".ask");
    await toolAsk.waitFor({ timeout: LONG });
    await toolAsk.locator("button.allow").click();
    const title = (text: string) => page.locator(".quick-input-widget .quick-input-title", { hasText: text });
    await title('MCP server "fx" asks: What would you like?').waitFor({ timeout: LONG });
    await page.keyboard.press("Enter"); // Answer
    await title("Size").waitFor({ timeout: LONG });
    await page.keyboard.press("Enter"); // Small
    await title("Gift wrap").waitFor({ timeout: LONG });
    await page.keyboard.press("Enter"); // Yes
    await title("Toppings (optional)").waitFor({ timeout: LONG });
    await page.keyboard.press("Enter"); // none: left out
    await title("Note (optional)").waitFor({ timeout: LONG });
    await page.keyboard.press("Enter"); // empty: left out
    await title("How many").waitFor({ timeout: LONG });
    await page.keyboard.press("Control+A");
    await page.keyboard.type("0");
    await page.locator(".quick-input-widget").getByText("At least 1.").first().waitFor({ timeout: LONG });
    await page.keyboard.press("Enter"); // refused: the box stays
    await shot(page, "13-mcp-elicitation-checked");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("2");
    await page.keyboard.press("Enter");
    await chatAgain.locator(".entry.assistant", { hasText: "Ordered." }).waitFor({ timeout: LONG });
    const answered = JSON.stringify((await mcpModel.requests()).requests.at(-1)?.messages);
    assert.ok(answered.includes('{\\"action\\": \\"accept\\", \\"content\\": {\\"size\\": \\"s\\", \\"gift\\": true, \\"count\\": 2}}'),
      `the form's answer reached the server: ${answered.slice(-300)}`);
  }, () => shot(page, "failed-restricted"), async () => {
    await page.close();
    await server.stop();
    mcpModel.close();
  });
});
