/** The chat webview: applies the extension's view ops to the DOM and sends the user's actions back. */

import { backgroundHeading, backgroundKindLabel, backgroundStatusLabel } from "../logic/background";
import { decisionLabel, type Entry, type Status, type ToolCard, type ViewOp } from "../logic/chatModel";
import { renderMarkdown } from "../logic/markdown";
import type { BackgroundTask, InactiveItem, Todo } from "../logic/protocol";

interface VsCodeApi {
  postMessage(message: unknown): void;
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
const todosBox = $<HTMLElement>("todos");
const backgroundBox = $<HTMLElement>("background");
const inactiveBox = $<HTMLElement>("inactive");

/** Raw markdown of each assistant block, re-rendered (only that block) as text streams in. */
const texts = new Map<string, string>();

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

function atBottom(): boolean {
  return transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 40;
}

function toolNode(card: ToolCard): HTMLElement {
  const node = el("div", "entry tool");
  node.dataset.id = card.id;
  const head = el("div", "head");
  head.append(el("span", "name"), el("span", "summary"), el("span", "badge status"));
  node.append(head, el("div", "permission"), el("div", "progress"), el("div", "children"));
  patchTool(node, card);
  return node;
}

function patchTool(node: HTMLElement, patch: Partial<ToolCard>): void {
  const q = (selector: string): HTMLElement => node.querySelector(`:scope > ${selector}`) as HTMLElement;
  if (patch.name !== undefined) {
    q(".head").querySelector(".name")!.textContent = patch.name;
  }
  if (patch.summary !== undefined) {
    const summary = q(".head").querySelector(".summary") as HTMLElement;
    summary.textContent = patch.summary;
    summary.title = patch.summary;
  }
  if (patch.status !== undefined) {
    node.classList.remove("running", "waiting", "done", "error");
    node.classList.add(patch.status);
    node.dataset.status = patch.status;
    const labels = { running: "running…", waiting: "needs you", done: "done", error: "error" };
    q(".head").querySelector(".status")!.textContent = labels[patch.status];
  }
  if (patch.permission !== undefined) {
    node.dataset.permission = patch.permission;
    q(".permission").textContent = `Permission: ${decisionLabel(patch.permission)}`;
  }
  if (patch.progress !== undefined) {
    q(".progress").textContent = patch.progress.join("\n");
  }
  if (patch.result !== undefined) {
    let details = node.querySelector(":scope > details.result");
    if (!details) {
      details = el("details", "result");
      details.append(el("summary", undefined, "Result"), el("pre"));
      node.insertBefore(details, q(".children"));
    }
    details.querySelector("pre")!.textContent = patch.result;
  }
}

function entryNode(entry: Entry): HTMLElement {
  switch (entry.type) {
    case "user": {
      const node = el("div", "entry user", entry.text);
      node.dataset.id = entry.id;
      return node;
    }
    case "assistant": {
      const node = el("div", "entry assistant");
      node.dataset.id = entry.id;
      texts.set(entry.id, entry.text);
      node.innerHTML = renderMarkdown(entry.text); // safe: renderMarkdown escapes all input
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
      return toolNode(entry.card);
    case "notice": {
      const node = el("div", `entry notice ${entry.level}`, entry.text);
      node.dataset.id = entry.id;
      return node;
    }
  }
}

function find(id: string): HTMLElement | null {
  return transcript.querySelector(`[data-id="${CSS.escape(id)}"]`);
}

function addEntry(entry: Entry): void {
  const stick = atBottom();
  const node = entryNode(entry);
  const parentId = entry.type === "tool" ? entry.card.parentId : undefined;
  const parent = parentId ? find(parentId)?.querySelector(":scope > .children") : null;
  (parent ?? transcript).append(node);
  if (stick) {
    transcript.scrollTop = transcript.scrollHeight;
  }
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
    const item = el("li", `todo ${todo.status}`, `${mark} ${text}`);
    list.append(item);
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
    const button = el("button", undefined, "Review and approve project settings");
    button.type = "button";
    button.id = "approve-project";
    button.addEventListener("click", () => vscode.postMessage({ type: "approveProject" }));
    inactiveBox.append(button);
  }
}

function renderStatus(status: Status): void {
  stop.disabled = !status.running;
  send.disabled = status.running;
  document.body.dataset.running = String(status.running);
  document.body.dataset.mode = status.mode;
  state.textContent = status.running ? `running · ${status.mode}` : status.mode;
}

/** Apply one op from the extension. */
function apply(op: ViewOp): void {
  switch (op.op) {
    case "reset":
      texts.clear();
      transcript.replaceChildren();
      op.entries.forEach(addEntry);
      renderTodos(op.todos);
      renderBackground(op.background);
      renderStatus(op.status);
      transcript.scrollTop = transcript.scrollHeight;
      return;
    case "entry":
      addEntry(op.entry);
      return;
    case "appendText": {
      const node = find(op.id);
      if (node) {
        const stick = atBottom();
        const text = (texts.get(op.id) ?? "") + op.text;
        texts.set(op.id, text);
        node.innerHTML = renderMarkdown(text);
        if (stick) {
          transcript.scrollTop = transcript.scrollHeight;
        }
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
        patchTool(node, op.patch);
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
  }
}

function submit(): void {
  const text = prompt.value;
  if (text.trim() && !send.disabled) {
    vscode.postMessage({ type: "ask", prompt: text });
    prompt.value = "";
  }
}

window.addEventListener("message", (event: MessageEvent<ViewOp | ViewOp[]>) => {
  const ops = Array.isArray(event.data) ? event.data : [event.data];
  ops.forEach(apply);
});
$<HTMLFormElement>("prompt-form").addEventListener("submit", (e) => {
  e.preventDefault();
  submit();
});
prompt.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
  }
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !stop.disabled) {
    vscode.postMessage({ type: "stop" });
  } else if (e.altKey && e.key.toLowerCase() === "n") {
    vscode.postMessage({ type: "newSession" });
  }
});
stop.addEventListener("click", () => vscode.postMessage({ type: "stop" }));
$<HTMLButtonElement>("new-session").addEventListener("click", () => vscode.postMessage({ type: "newSession" }));
sessions.addEventListener("change", () => vscode.postMessage({ type: "switchSession", id: sessions.value }));
vscode.postMessage({ type: "ready" });
