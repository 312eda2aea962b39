/** The prompt box: Enter sends, ↑/↓ browse earlier prompts, `@` completes workspace paths and MCP resources, `/` at the
 * start MCP prompts, files dropped become mentions. */

import { InputHistory, caretOnFirstLine, caretOnLastLine } from "../logic/inputHistory";
import { slashAt, type CompletionItem } from "../logic/mcpCompletions";
import { mentionAt, mentionText } from "../logic/mentions";
import { button, el } from "./dom";

export interface ComposerHost {
  send(text: string): void;
  complete(query: string, trigger: "@" | "/"): void;
  drop(uris: string[]): void;
  removeAttachment(id: string): void;
  saveHistory(entries: string[]): void;
  /** Whether a prompt can be sent now (not while a turn runs). */
  canSend(): boolean;
}

/** URIs in a drop from VS Code's Explorer or editor tabs, or from the system's file manager. */
export function droppedUris(data: DataTransfer): string[] {
  const uris: string[] = [];
  const add = (value: string): void => {
    for (const line of value.split(/\r?\n/)) {
      const trimmed = line.trim();
      if (trimmed && !trimmed.startsWith("#") && !uris.includes(trimmed)) {
        uris.push(trimmed);
      }
    }
  };
  for (const type of ["application/vnd.code.uri-list", "text/uri-list"]) {
    add(data.getData(type));
  }
  try {
    const resources = JSON.parse(data.getData("resourceurls") || "[]") as unknown;
    if (Array.isArray(resources)) {
      resources.filter((r): r is string => typeof r === "string").forEach(add);
    }
  } catch {
    // not VS Code's format
  }
  if (uris.length === 0) {
    const text = data.getData("text/plain");
    if (/^(file:|\/)/.test(text.trim())) {
      add(text);
    }
  }
  return uris;
}

export class Composer {
  readonly history: InputHistory;
  private readonly popup = el("ul", "completions");
  private items: CompletionItem[] = [];
  private active = 0;
  private mention: { start: number; query: string; trigger: "@" | "/" } | null = null;

  constructor(private readonly box: HTMLTextAreaElement, private readonly chips: HTMLElement, private readonly host: ComposerHost, saved: string[]) {
    this.history = new InputHistory(saved);
    this.popup.hidden = true;
    this.popup.setAttribute("role", "listbox");
    this.popup.setAttribute("aria-label", "Completions");
    box.parentElement?.insertBefore(this.popup, box);
    box.addEventListener("keydown", (e) => this.keydown(e));
    box.addEventListener("input", () => this.update());
    box.addEventListener("blur", () => setTimeout(() => this.close(), 150));
    const dropTarget = box.closest("form") ?? box;
    dropTarget.addEventListener("dragover", (e) => {
      e.preventDefault();
      (e as DragEvent).dataTransfer!.dropEffect = "copy";
      dropTarget.classList.add("dragging");
    });
    dropTarget.addEventListener("dragleave", () => dropTarget.classList.remove("dragging"));
    dropTarget.addEventListener("drop", (e) => {
      e.preventDefault();
      dropTarget.classList.remove("dragging");
      const uris = droppedUris((e as DragEvent).dataTransfer!);
      if (uris.length > 0) {
        host.drop(uris);
      }
    });
  }

  /** Send the box's text (if any, and if a prompt can be sent now), remember it, clear the box. */
  submit(): boolean {
    const text = this.box.value;
    if (!text.trim() || !this.host.canSend()) {
      return false;
    }
    this.host.send(text);
    this.history.push(text);
    this.host.saveHistory(this.history.all);
    this.box.value = "";
    this.close();
    return true;
  }

  /** Put text in the box (edit a prompt), caret at the end. */
  set(text: string): void {
    this.box.value = text;
    this.box.focus();
    this.box.setSelectionRange(text.length, text.length);
  }

  /** Insert `@path` mentions at the caret. */
  insertMentions(paths: string[]): void {
    const at = this.box.selectionStart;
    const before = this.box.value.slice(0, at);
    const text = `${before && !/\s$/.test(before) ? " " : ""}${paths.map(mentionText).join(" ")} `;
    this.box.setRangeText(text, at, this.box.selectionEnd, "end");
    this.box.focus();
  }

  /** The completion list for the `@` or `/` being typed (if the query still matches). */
  showCompletions(query: string, trigger: "@" | "/", items: CompletionItem[]): void {
    if (!this.mention || this.mention.query !== query || this.mention.trigger !== trigger) {
      return;
    }
    this.items = items;
    this.active = 0;
    this.render();
  }

  showAttachments(items: { id: string; label: string; kind: string }[]): void {
    this.chips.replaceChildren(...items.map((item) => {
      const chip = el("span", `chip ${item.kind}`);
      chip.dataset.id = item.id;
      chip.append(el("span", "label", item.kind === "selection" ? `✂ ${item.label}` : `@${item.label}`),
        button("×", "remove", () => this.host.removeAttachment(item.id), "Remove"));
      return chip;
    }));
    this.chips.hidden = items.length === 0;
  }

  private update(): void {
    const slash = slashAt(this.box.value, this.box.selectionStart);
    const at = slash ? null : mentionAt(this.box.value, this.box.selectionStart);
    this.mention = slash ? { ...slash, trigger: "/" } : at && { ...at, trigger: "@" };
    if (this.mention) {
      this.host.complete(this.mention.query, this.mention.trigger);
    } else {
      this.close();
    }
  }

  private close(): void {
    this.popup.hidden = true;
    this.items = [];
  }

  private render(): void {
    this.popup.replaceChildren(...this.items.map((item, index) => {
      const li = el("li", `completion ${item.kind}${index === this.active ? " active" : ""}`);
      li.append(el("span", "label", item.label));
      if (item.detail) {
        li.append(el("span", "detail", ` ${item.detail}`));
      }
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", String(index === this.active));
      li.addEventListener("mousedown", (e) => {
        e.preventDefault();
        this.accept(index);
      });
      return li;
    }));
    this.popup.hidden = this.items.length === 0;
  }

  private accept(index: number): void {
    const item = this.items[index];
    if (!item || !this.mention) {
      return;
    }
    const end = this.box.selectionStart;
    this.box.setRangeText(item.insert, this.mention.start, end, "end");
    this.close();
    if (item.kind === "folder") {
      this.update(); // go on completing inside the folder
    }
  }

  private keydown(e: KeyboardEvent): void {
    if (!this.popup.hidden && this.items.length > 0) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        this.active = (this.active + (e.key === "ArrowDown" ? 1 : this.items.length - 1)) % this.items.length;
        this.render();
        return;
      }
      if (e.key === "Enter" || e.key === "Tab") {
        e.preventDefault();
        this.accept(this.active);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        e.stopPropagation();
        this.close();
        return;
      }
    }
    const { value, selectionStart, selectionEnd } = this.box;
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.submit();
    } else if (e.key === "ArrowUp" && !e.shiftKey && caretOnFirstLine(value, selectionStart, selectionEnd)) {
      const older = this.history.older(value);
      if (older !== null) {
        e.preventDefault();
        this.set(older);
      }
    } else if (e.key === "ArrowDown" && !e.shiftKey && caretOnLastLine(value, selectionStart, selectionEnd)) {
      const newer = this.history.newer();
      if (newer !== null) {
        e.preventDefault();
        this.set(newer);
      }
    }
  }
}
