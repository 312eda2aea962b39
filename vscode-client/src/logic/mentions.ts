/**
 * Context the user attaches to a prompt: `@path` mentions typed (with completion) or dropped into the
 * prompt box, the selection and the active file. The prompt names them so the model can read them
 * with its tools (under the same permission rules as any other read); a selection is quoted whole,
 * as the user chose exactly that text.
 */

import { quoteSelection, type SelectionContext } from "./selection";

export interface PathCandidate {
  /** Workspace-relative, "/" separated; folders end with "/". */
  path: string;
  kind: "file" | "folder";
}

export type Attachment =
  | { id: string; kind: "file" | "folder"; path: string; absolute: string; label: string }
  | { id: string; kind: "selection"; label: string; selection: SelectionContext };

/** An attachment before the chat numbers it. */
export type NewAttachment = Attachment extends infer T ? (T extends unknown ? Omit<T, "id"> : never) : never;

/** The `@…` being typed at `caret`: where it starts and what has been typed after the `@`. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const match = /(^|\s)@([^\s@]*)$/.exec(before);
  if (!match) {
    return null;
  }
  return { start: before.length - match[2].length - 1, query: match[2] };
}

/** How a path is written as a mention (quoted when it has spaces). */
export function mentionText(path: string): string {
  return /\s/.test(path) ? `@"${path}"` : `@${path}`;
}

/** The paths mentioned in a prompt: `@src/app.py`, `@src/`, `@"a folder/b.py"`; an e-mail address is not one. */
export function mentionedPaths(prompt: string): string[] {
  const found: string[] = [];
  const pattern = /(^|\s)@(?:"([^"\n]+)"|([^\s"]+))/g;
  for (let match = pattern.exec(prompt); match; match = pattern.exec(prompt)) {
    const path = (match[2] ?? match[3]).replace(/[,.;:!?)]+$/, "");
    if (path && !found.includes(path)) {
      found.push(path);
    }
  }
  return found;
}

/** Candidates for a query, best first: name starts with it, then path contains it, then a fuzzy match. */
export function rankCandidates(query: string, candidates: readonly PathCandidate[], limit = 20): PathCandidate[] {
  const q = query.toLowerCase();
  const score = (c: PathCandidate): number => {
    const path = c.path.toLowerCase();
    const name = path.replace(/\/$/, "").split("/").pop() ?? path;
    if (q === "") {
      return 3 + path.split("/").length; // shallow paths first
    }
    if (name.startsWith(q)) {
      return 0;
    }
    if (path.startsWith(q)) {
      return 1;
    }
    if (path.includes(q)) {
      return 2;
    }
    let at = 0;
    for (const ch of q) {
      at = path.indexOf(ch, at);
      if (at < 0) {
        return Infinity;
      }
      at += 1;
    }
    return 10;
  };
  return candidates
    .map((c) => ({ c, s: score(c) }))
    .filter((x) => x.s !== Infinity)
    .sort((a, b) => a.s - b.s || a.c.path.length - b.c.path.length || a.c.path.localeCompare(b.c.path))
    .slice(0, limit)
    .map((x) => x.c);
}

/** Every folder above the given files ("src/", "src/lib/"), for completion of folders. */
export function foldersOf(files: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.split("/");
    for (let i = 1; i < parts.length; i += 1) {
      folders.add(`${parts.slice(0, i).join("/")}/`);
    }
  }
  return [...folders].sort();
}

/** The prompt sent to the server: the user's text, the quoted selections, then the attached files and folders. */
export function composePrompt(text: string, attachments: readonly Attachment[]): string {
  const parts = [text.trim()];
  for (const a of attachments) {
    if (a.kind === "selection" && a.selection.text.trim()) {
      parts.push(quoteSelection(a.selection));
    }
  }
  const paths = attachments.filter((a): a is Extract<Attachment, { absolute: string }> => a.kind !== "selection");
  if (paths.length > 0) {
    const lines = paths.map((a) => `- ${a.label} (${a.kind}: ${a.absolute})`);
    parts.push(`Attached by the user (read them as needed):\n${lines.join("\n")}`);
  }
  return parts.join("\n\n");
}
