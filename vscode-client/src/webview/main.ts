/** The chat webview: applies the extension's view ops to the DOM and sends the user's actions back. */

import { backgroundHeading, backgroundKindLabel, backgroundStatusLabel } from "../logic/background";
import type { Banner, Entry, HostCommand, NoticeAction, Setup, Status, ViewOp } from "../logic/chatModel";
import { renderMarkdown } from "../logic/markdown";
import { modeDescription, modeLabel } from "../logic/modes";
import type { BackgroundTask, InactiveItem, Todo } from "../logic/protocol";
import { forgetCards, patchTool, toolNode, type CardActions } from "./cards";
import { Composer } from "./composer";
import { button, el, highlightIn, linkPathsIn, workspace } from "./dom";

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const transcript = $<HTMLElement>("transcript");
const prompt = $<HTMLTextAreaElement>("prompt");
const stop = $<HTMLButtonElement>("stop");
const send = $<HTMLButtonElement>("send");
const sessions = $<HTMLSelectElement>("sessions");
const state = $<HTMLElement>("state");
const modeButton = $<HTMLButtonElement>("mode");
const modelButton = $<HTMLButtonElement>("model");
const todosBox = $<HTMLElement>("todos");
const backgroundBox = $<HTMLElement>("background");
const inactiveBox = $<HTMLElement>("inactive");
const bannerBox = $<HTMLElement>("banner");
const emptyBox = $<HTMLElement>("empty");

/** Raw markdown of each assistant block, re-rendered (only that block) as text streams in. */
const texts = new Map<string, string>();
let setup: Setup = { server: "starting", hasKey: true, model: "", roots: [] };

const run = (command: HostCommand): void => vscode.postMessage({ type: "command", command });
const actions: CardActions = {
  answer: (toolUseId, answer) => vscode.postMessage({ type: "permission", toolUseId, answer }),
  openDiff: (toolUseId) => vscode.postMessage({ type: "openDiff", toolUseId }),
};

const saved = (vscode.getState() as { history?: unknown } | undefined)?.history;
const composer = new Composer(prompt, $<HTMLElement>("attachments"), {
  send: (text) => vscode.postMessage({ type: "ask", prompt: text }),
  complete: (query, trigger) => vscode.postMessage({ type: "complete", query, trigger }),
  drop: (uris) => vscode.postMessage({ type: "drop", uris }),
  removeAttachment: (id) => vscode.postMessage({ type: "removeAttachment", id }),
  saveHistory: (history) => vscode.setState({ history }),
  canSend: () => !send.disabled, // a running turn must end first
}, Array.isArray(saved) ? saved.filter((s): s is string => typeof s === "string") : []);

// Following the stream: the transcript stays at the bottom as it grows (new entries, streamed text,
// growing tool cards, folds opened) unless the user scrolled up; scrolling back down follows again.
let following = true;
const atBottom = (): boolean => transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 24;
let lastTop = 0;
transcript.addEventListener("scroll", () => {
  // Only a move up is the user leaving the bottom: a scroll event that arrives after the content grew
  // (our own scroll to the bottom, dispatched a frame later) is not at the bottom any more, yet it is no
  // reason to stop following.
  const top = transcript.scrollTop;
  if (top < lastTop - 1) {
    following = atBottom();
  } else if (atBottom()) {
    following = true;
  }
  lastTop = top;
});
let followQueued = false;
const follow = (): void => {
  if (following && !followQueued) {
    followQueued = true;
    requestAnimationFrame(() => {
      followQueued = false;
      if (following) {
        transcript.scrollTop = transcript.scrollHeight;
        lastTop = transcript.scrollTop; // its scroll event comes a frame later: a move up is measured from here
      }
    });
  }
};
new MutationObserver(follow).observe(transcript, { childList: true, subtree: true, characterData: true, attributes: true });
new ResizeObserver(follow).observe(transcript);

function noticeActions(list: NoticeAction[] | undefined): HTMLElement[] {
  if (!list || list.length === 0) {
    return [];
  }
  const box = el("div", "notice-actions");
  list.forEach((a, i) => box.append(button(a.label, i === 0 ? "small" : "secondary small", () => run(a.command))));
  return [box];
}

function userNode(entry: Extract<Entry, { type: "user" }>): HTMLElement {
  const node = el("div", "entry user");
  node.dataset.id = entry.id;
  const tools = el("div", "user-actions");
  tools.append(
    button("Copy", "icon", () => vscode.postMessage({ type: "copy", text: entry.text }), "Copy this prompt"),
    button("Edit", "icon", () => composer.set(entry.text), "Put this prompt in the box to change it"),
    button("Retry", "icon", () => !send.disabled && vscode.postMessage({ type: "ask", prompt: entry.text }), "Send this prompt again"),
  );
  node.append(el("div", "text", entry.text), tools);
  return node;
}

function entryNode(entry: Entry): HTMLElement {
  switch (entry.type) {
    case "user":
      return userNode(entry);
    case "assistant": {
      const node = el("div", "entry assistant markdown");
      node.dataset.id = entry.id;
      texts.set(entry.id, entry.text);
      renderAnswer(node, entry.text);
      return node;
    }
    case "thinking": {
      // folded: the model's reasoning is there to look at, not to read through
      const node = el("details", "entry thinking");
      node.dataset.id = entry.id;
      node.append(el("summary", undefined, "Thinking"), el("div", "body", entry.text));
      return node;
    }
    case "usage": {
      const node = el("div", "entry usage", entry.text);
      node.dataset.id = entry.id;
      return node;
    }
    case "tool":
      return toolNode(entry.card, actions);
    case "notice": {
      const node = el("div", `entry notice ${entry.level}`);
      node.dataset.id = entry.id;
      node.append(el("span", "text", entry.text), ...noticeActions(entry.actions));
      return node;
    }
    case "checkpoint":
      return checkpointNode(entry);
    case "mcpApproval":
      return mcpApprovalNode(entry);
  }
}

const MCP_ANSWERS = { approved: "Approved: the server starts.", notNow: "Not now: the server stays off.", withdrawn: "No longer asked: the turn was stopped." };

/** May the workspace's MCP server start? Its definition exactly as written (text only), Approve / Not now. */
function mcpApprovalNode(entry: Extract<Entry, { type: "mcpApproval" }>): HTMLElement {
  const node = el("div", "entry mcp-approval");
  node.dataset.id = entry.id;
  node.dataset.answer = entry.answer;
  node.setAttribute("role", "group");
  node.setAttribute("aria-label", `Start the MCP server ${entry.server}?`);
  node.append(el("div", "title", `MCP server "${entry.server}" needs your approval`), el("pre", "question", entry.question));
  if (entry.answer === "pending") {
    const answers = el("div", "answers");
    const answer = (approved: boolean): void => {
      answers.querySelectorAll("button").forEach((b) => (b.disabled = true));
      vscode.postMessage({ type: "mcpApproval", id: entry.id, approved });
    };
    answers.append(button("Approve", "approve", () => answer(true), "Approve exactly this definition and start the server"),
      button("Not now", "secondary not-now", () => answer(false), "Keep it off; you are asked again in a later session"));
    node.append(answers);
  } else {
    node.append(el("div", "outcome", MCP_ANSWERS[entry.answer]));
  }
  return node;
}

/** The files a turn changed, with "Undo turn" (the extension previews what goes back and asks first). */
function checkpointNode(entry: Extract<Entry, { type: "checkpoint" }>): HTMLElement {
  const node = el("div", "entry checkpoint");
  node.dataset.id = entry.id;
  const files = entry.files.length === 1 ? entry.files[0] : `${entry.files.length} files (${entry.files.join(", ")})`;
  node.append(el("span", "text", `This turn changed ${files}.`));
  const undo = button("Undo turn…", "secondary small undo-turn", () => vscode.postMessage({ type: "undoTurn", id: entry.id }),
    "Put every file this turn changed back as it was before it (shows what goes back first)");
  node.append(undo);
  markUndone(node, entry.undone);
  return node;
}

function markUndone(node: HTMLElement, undone: boolean): void {
  node.dataset.undone = String(undone);
  const undo = node.querySelector<HTMLButtonElement>(".undo-turn");
  if (undo && undone) {
    undo.disabled = true;
    undo.textContent = "Undone";
  }
}

function renderAnswer(node: HTMLElement, text: string): void {
  node.innerHTML = renderMarkdown(text); // safe: renderMarkdown escapes all input
  highlightIn(node);
  linkPathsIn(node);
}

function find(id: string): HTMLElement | null {
  return transcript.querySelector(`[data-id="${CSS.escape(id)}"]`);
}

function focusQuestion(node: HTMLElement): void {
  const ask = node.querySelector<HTMLElement>(":scope > .ask");
  if (ask && !(document.activeElement === prompt && prompt.value.trim())) {
    ask.focus({ preventScroll: true }); // keys 1-4 answer it; never while the user is typing a prompt
  }
  ask?.scrollIntoView({ block: "nearest" });
}

function addEntry(entry: Entry): void {
  const node = entryNode(entry);
  const parentId = entry.type === "tool" ? entry.card.parentId : undefined;
  const parent = parentId ? find(parentId)?.querySelector(":scope > .children") : null;
  (parent ?? transcript).append(node);
  if (entry.type === "tool" && entry.card.prompt) {
    focusQuestion(node);
  }
  renderEmpty();
}

/** Empties a section, shown only when it gets `count` items; whether it has any to render. */
function resetSection(box: HTMLElement, count: number): boolean {
  box.hidden = count === 0;
  box.replaceChildren();
  return count > 0;
}

function renderTodos(todos: Todo[]): void {
  if (!resetSection(todosBox, todos.length)) {
    return;
  }
  const list = el("ul");
  for (const todo of todos) {
    const mark = todo.status === "completed" ? "☑" : todo.status === "in_progress" ? "▶" : "☐";
    const text = todo.status === "in_progress" && todo.activeForm ? todo.activeForm : todo.content;
    list.append(el("li", `todo ${todo.status}`, `${mark} ${text}`));
  }
  todosBox.append(el("strong", undefined, "Todos"), list);
}

/** The session's background agents and shells; all text goes in through textContent (it is the model's). */
function renderBackground(tasks: BackgroundTask[]): void {
  if (!resetSection(backgroundBox, tasks.length)) {
    return;
  }
  const list = el("ul");
  list.setAttribute("aria-label", "Background agents and shells");
  for (const task of tasks) {
    const item = el("li", `bg-task ${task.kind} ${task.status === "running" ? "running" : "finished"}`);
    item.dataset.id = task.id;
    item.dataset.status = task.status;
    const description = el("span", "description", task.description);
    description.title = task.description; // the row ellipsizes long commands
    item.append(el("span", "kind", backgroundKindLabel(task.kind)), description, el("span", "badge status", backgroundStatusLabel(task.status)));
    list.append(item);
  }
  backgroundBox.append(el("strong", undefined, backgroundHeading(tasks)), list);
}

function renderInactive(items: InactiveItem[], trusted: boolean): void {
  if (!resetSection(inactiveBox, items.length)) {
    return;
  }
  const why = trusted
    ? "Some project rules are inactive until you approve the project settings:"
    : "Restricted Mode: this workspace is not trusted, so its project rules are inactive (only their deny and ask rules apply):";
  const list = el("ul");
  for (const item of items) {
    const what = item.rule ? `${item.behavior ?? "rule"} ${item.rule}` : (item.value ?? `setting ${item.setting ?? "?"}`);
    list.append(el("li", undefined, `${what} (${item.source}): ${item.reason}`));
  }
  inactiveBox.append(el("div", "why", why), list);
  if (trusted) {
    const approve = button("Review and approve project settings", "", () => vscode.postMessage({ type: "approveProject" }));
    approve.id = "approve-project";
    inactiveBox.append(approve);
  }
}

function renderBanner(banner: Banner | null): void {
  bannerBox.hidden = banner === null;
  bannerBox.replaceChildren();
  if (banner) {
    bannerBox.className = `banner ${banner.level}`;
    bannerBox.append(el("div", "text", banner.text), ...noticeActions(banner.actions));
  }
}

/** The empty chat: what handrail is, and the way in (a key, or the demo without one). */
function renderEmpty(): void {
  const empty = transcript.childElementCount === 0;
  emptyBox.hidden = !empty;
  if (!empty) {
    return;
  }
  emptyBox.replaceChildren(
    el("h2", undefined, "handrail"),
    el("p", undefined, "An AI coding agent that works through your editor: it reads the files as you see them, asks before it edits a file or runs a command (showing exactly what), and edits through VS Code, so every change is visible and undoable."),
  );
  if (!setup.hasKey) {
    const key = el("div", "setup-step");
    key.append(
      el("p", "strong", "To start, set your Anthropic API key. It stays in VS Code's secret storage."),
      button("Set API Key", "", () => run("setApiKey")),
      button("Try without a key", "secondary", () => run("tryDemo"), "A scripted demo on a sample project: nothing leaves your machine"),
    );
    emptyBox.append(key);
  } else {
    emptyBox.append(el("p", undefined, "Ask below. Type @ to attach a file or folder, drop files on the box, ↑ for earlier prompts."));
    emptyBox.append(button("Try the demo", "secondary", () => run("tryDemo"), "A scripted demo on a sample project"));
  }
}

function renderSetup(next: Setup): void {
  setup = next;
  workspace.roots = next.roots;
  modelButton.textContent = next.model || "default model";
  modelButton.title = `Model: ${next.model || "the server's default"} (click to choose)`;
  document.body.dataset.server = next.server;
  renderEmpty();
}

function renderStatus(status: Status): void {
  stop.disabled = !status.running;
  send.disabled = status.running;
  document.body.dataset.running = String(status.running);
  document.body.dataset.mode = status.mode;
  modeButton.textContent = modeLabel(status.mode);
  modeButton.title = `Permission mode: ${modeDescription(status.mode) || status.mode} (click to switch)`;
  modeButton.classList.toggle("danger", status.mode === "bypassPermissions");
  state.textContent = status.running ? "running…" : "";
}

/** Apply one op from the extension. */
function apply(op: ViewOp): void {
  switch (op.op) {
    case "reset":
      texts.clear();
      forgetCards();
      transcript.replaceChildren();
      op.entries.forEach(addEntry);
      renderTodos(op.todos);
      renderBackground(op.background);
      renderStatus(op.status);
      following = true;
      transcript.scrollTop = transcript.scrollHeight;
      lastTop = transcript.scrollTop;
      renderEmpty();
      return;
    case "entry":
      addEntry(op.entry);
      return;
    case "replaceEntry":
      find(op.entry.id)?.replaceWith(entryNode(op.entry));
      return;
    case "appendText": {
      const node = find(op.id);
      if (node) {
        const text = (texts.get(op.id) ?? "") + op.text;
        texts.set(op.id, text);
        renderAnswer(node, text);
      }
      return;
    }
    case "appendThinking": {
      const body = find(op.id)?.querySelector(":scope > .body");
      if (body) {
        body.textContent = (body.textContent ?? "") + op.text;
      }
      return;
    }
    case "patchTool": {
      const node = find(op.id);
      if (node) {
        patchTool(node, op.patch, actions);
        if (op.patch.prompt) {
          focusQuestion(node);
        }
      }
      return;
    }
    case "todos":
      renderTodos(op.todos);
      return;
    case "background":
      renderBackground(op.tasks);
      return;
    case "status":
      renderStatus(op.status);
      return;
    case "sessions":
      sessions.replaceChildren(...op.sessions.map((s) => {
        const option = el("option", undefined, s.title);
        option.value = s.id;
        option.selected = s.id === op.current;
        return option;
      }));
      return;
    case "inactive":
      renderInactive(op.items, op.trusted);
      return;
    case "focusPrompt":
      prompt.focus();
      return;
    case "banner":
      renderBanner(op.banner);
      return;
    case "setup":
      renderSetup(op.setup);
      return;
    case "attachments":
      composer.showAttachments(op.items);
      return;
    case "completions":
      composer.showCompletions(op.query, op.trigger, op.items);
      return;
    case "insertMentions":
      composer.insertMentions(op.mentions);
      return;
    case "setPrompt":
      composer.set(op.text);
      return;
    case "checkpointUndone": {
      const node = find(op.id);
      if (node) {
        markUndone(node, true);
      }
      return;
    }
  }
}

window.addEventListener("message", (event: MessageEvent<ViewOp | ViewOp[]>) => {
  const ops = Array.isArray(event.data) ? event.data : [event.data];
  ops.forEach(apply);
});
$<HTMLFormElement>("prompt-form").addEventListener("submit", (e) => {
  e.preventDefault();
  composer.submit();
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !stop.disabled) {
    vscode.postMessage({ type: "stop" });
  } else if (e.altKey && e.key.toLowerCase() === "n") {
    vscode.postMessage({ type: "newSession" });
  }
});
transcript.addEventListener("click", (e) => {
  const target = e.target as HTMLElement;
  const link = target.closest<HTMLAnchorElement>("a.path");
  if (link) {
    e.preventDefault();
    vscode.postMessage({ type: "openFile", path: link.dataset.path, ...(link.dataset.line ? { line: Number(link.dataset.line) } : {}) });
    return;
  }
  const copy = target.closest<HTMLButtonElement>("button.copy-code");
  if (copy) {
    vscode.postMessage({ type: "copy", text: copy.closest(".code")?.querySelector("pre")?.textContent ?? "" });
    copy.textContent = "Copied";
    setTimeout(() => (copy.textContent = "Copy"), 1500);
  }
});
stop.addEventListener("click", () => vscode.postMessage({ type: "stop" }));
modeButton.addEventListener("click", () => run("pickMode"));
modelButton.addEventListener("click", () => run("pickModel"));
$<HTMLButtonElement>("add-selection").addEventListener("click", () => run("addSelection"));
$<HTMLButtonElement>("add-file").addEventListener("click", () => run("addActiveFile"));
$<HTMLButtonElement>("new-session").addEventListener("click", () => vscode.postMessage({ type: "newSession" }));
sessions.addEventListener("change", () => vscode.postMessage({ type: "switchSession", id: sessions.value }));
renderEmpty();
vscode.postMessage({ type: "ready" });
