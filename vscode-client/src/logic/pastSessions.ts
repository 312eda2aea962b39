/**
 * Sessions that survive a reload. The extension remembers the sessions of a workspace (id, title, when,
 * whether a turn was running); the server keeps each one's transcript and resumes it by id on its next
 * prompt. A past session is drawn again from its transcript: prompts, answers and tool calls; a turn that
 * was running when the window closed is marked interrupted.
 */

import type { Entry, ToolCard } from "./chatModel";

/** What the extension keeps per session (in the workspace's state). */
export interface StoredSession {
  id: string;
  title: string;
  /** When the session was last used (ms since the epoch). */
  updated: number;
  /** A turn was running when this was last written: if the window closed then, it was interrupted. */
  running: boolean;
}

/** Sessions kept per workspace, newest first. */
export const MAX_STORED_SESSIONS = 50;

/** Read the stored list (untrusted shape: it survived extension versions). */
export function readStored(value: unknown): StoredSession[] {
  if (!Array.isArray(value)) {
    return [];
  }
  return value.flatMap((v): StoredSession[] => {
    const s = v as Partial<StoredSession> | null;
    return s && typeof s.id === "string" && typeof s.title === "string" && typeof s.updated === "number"
      ? [{ id: s.id, title: s.title, updated: s.updated, running: s.running === true }]
      : [];
  });
}

/** The list with `session` updated (or added), newest first, at most MAX_STORED_SESSIONS. */
export function remember(list: readonly StoredSession[], session: StoredSession): StoredSession[] {
  return [session, ...list.filter((s) => s.id !== session.id)].sort((a, b) => b.updated - a.updated).slice(0, MAX_STORED_SESSIONS);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "Dec 2, 14:05" in local time. */
export function shortDate(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${MONTHS[d.getMonth()]} ${d.getDate()}, ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

interface Block {
  type?: unknown;
  text?: unknown;
  name?: unknown;
  id?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  is_error?: unknown;
  content?: unknown;
}

function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") {
    return [{ type: "text", text: content }];
  }
  return Array.isArray(content) ? content.filter((b): b is Block => typeof b === "object" && b !== null) : [];
}

/** A tool call's one-line summary from its input: the command, the path or the pattern. */
function toolSummary(name: string, input: unknown): string {
  const i = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  for (const key of ["command", "file_path", "path", "pattern", "description", "url", "query"]) {
    const given = i[key];
    if (typeof given === "string") {
      const value = given.split("\n")[0];
      return `${name} ${value.length > 200 ? `${value.slice(0, 200)}…` : value}`;
    }
  }
  return name;
}

function resultText(content: unknown): string {
  return blocksOf(content).map((b) => (typeof b.text === "string" ? b.text : "")).join("\n").slice(0, 2000);
}

export interface PastTranscript {
  entries: Entry[];
  /** The last turn has no answer: the window (or server) went away while it ran. */
  interrupted: boolean;
}

/** A session's `transcript.jsonl` (as the server writes it) as chat entries. Lines that do not parse are skipped. */
export function readTranscript(text: string): PastTranscript {
  let messages: { role: string; content: unknown }[] = [];
  for (const line of text.split("\n")) {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue; // a torn line
    }
    const r = record as { type?: unknown; message?: { role?: unknown; content?: unknown } } | null;
    if (r?.type === "reset") {
      messages = [];
    } else if (r?.type === "message" && (r.message?.role === "user" || r.message?.role === "assistant")) {
      messages.push({ role: r.message.role, content: r.message.content });
    }
  }
  const entries: Entry[] = [];
  const cards = new Map<string, ToolCard>();
  let n = 0;
  const id = (prefix: string): string => `${prefix}-past-${(n += 1)}`;
  for (const message of messages) {
    for (const block of blocksOf(message.content)) {
      if (block.type === "text" && typeof block.text === "string" && block.text.trim()) {
        entries.push(message.role === "user" ? { type: "user", id: id("u"), text: block.text } : { type: "assistant", id: id("a"), text: block.text });
      } else if (block.type === "tool_use" && typeof block.name === "string" && typeof block.id === "string") {
        const card: ToolCard = { id: block.id, name: block.name, summary: toolSummary(block.name, block.input), status: "done", progress: [] };
        cards.set(block.id, card);
        entries.push({ type: "tool", id: block.id, card });
      } else if (block.type === "tool_result" && typeof block.tool_use_id === "string") {
        const card = cards.get(block.tool_use_id);
        if (card) {
          card.status = block.is_error === true ? "error" : "done";
          card.result = resultText(block.content);
        }
      }
    }
  }
  // a finished turn ends with the model's answer; a prompt or tool results without one, or a call without its result, did not finish
  const last = messages.at(-1);
  const interrupted = last !== undefined && (last.role === "user" || blocksOf(last.content).some((b) => b.type === "tool_use"));
  return { entries, interrupted };
}
