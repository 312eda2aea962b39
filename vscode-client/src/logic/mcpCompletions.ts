/**
 * MCP in the prompt box: `/` at the start completes the servers' prompts (`/mcp__server__prompt` with its
 * arguments; sent as the prompt, the server runs it), `@` completes their resources (`@server:uri`, which the
 * server attaches) next to workspace files.
 */

import type { McpMentionable, McpPrompt } from "./protocol";

/** One line of the completion list: `label` is shown, `insert` replaces what was typed. */
export interface CompletionItem {
  label: string;
  kind: "file" | "folder" | "prompt" | "resource";
  insert: string;
  /** Shown after the label: a prompt's usage and description, a resource's name. */
  detail?: string;
}

/** The `/…` being typed: only at the very start of the box (a slash command is the whole prompt). */
export function slashAt(text: string, caret: number): { start: number; query: string } | null {
  const match = /^\/(\S*)$/.exec(text.slice(0, caret));
  return match ? { start: 0, query: match[1] } : null;
}

/** Whether a prompt runs an MCP prompt (the server reads its arguments, so nothing is added to it). */
export function isPromptCommand(text: string): boolean {
  return /^\/mcp__\S/.test(text.trim());
}

function rank<T>(query: string, items: readonly T[], keys: (item: T) => string[], limit: number): T[] {
  const q = query.toLowerCase();
  const score = (item: T): number => {
    const texts = keys(item).map((k) => k.toLowerCase());
    if (texts.some((t) => t.startsWith(q))) {
      return 0;
    }
    return texts.some((t) => t.includes(q)) ? 1 : Infinity;
  };
  return items.map((item) => ({ item, s: score(item) })).filter((x) => x.s !== Infinity).sort((a, b) => a.s - b.s).slice(0, limit).map((x) => x.item);
}

/** Prompts matching what follows the `/` (the command without its slash, or the prompt's own name). */
export function promptItems(query: string, prompts: readonly McpPrompt[], limit = 20): CompletionItem[] {
  return rank(query, prompts, (p) => [p.command.replace(/^\//, ""), p.name, p.title ?? ""], limit).map((p) => ({
    label: p.command,
    kind: "prompt" as const,
    insert: `${p.command} `,
    detail: [p.usage !== p.command ? p.usage.slice(p.command.length).trim() : "", p.title ?? p.description ?? ""].filter(Boolean).join(" — "),
  }));
}

/** Resources matching what follows the `@` (the mention without its `@`, or the resource's name). A template's
 * mention is inserted without a trailing space: its {variables} are for the user to fill in. */
export function resourceItems(query: string, resources: readonly McpMentionable[], limit = 10): CompletionItem[] {
  return rank(query, resources, (r) => [r.mention.replace(/^@/, ""), r.name, r.uri ?? r.uriTemplate ?? ""], limit).map((r) => ({
    label: r.mention,
    kind: "resource" as const,
    insert: r.uriTemplate ? r.mention : `${r.mention} `,
    detail: [r.name, r.description ?? ""].filter(Boolean).join(" — "),
  }));
}
