/**
 * Paths in the chat: absolute paths inside the workspace are shown relative to it and can be clicked
 * (the extension opens them); everything else stays plain text.
 */

export type Segment = { text: string } | { text: string; path: string; line?: number };

/** A root without its trailing separator ("/" stays "/"). */
function bare(root: string): string {
  return root.length > 1 ? root.replace(/[\\/]+$/, "") : root;
}

/** `path` relative to the workspace root that holds it, or null when none does. */
export function relativeToRoots(path: string, roots: readonly string[]): string | null {
  for (const root of roots.map(bare)) {
    if (path === root) {
      return ".";
    }
    if (path.startsWith(`${root}/`) || path.startsWith(`${root}\\`)) {
      return path.slice(root.length + 1);
    }
  }
  return null;
}

/** How a path is shown: workspace-relative when inside the workspace, as given otherwise. */
export function displayPath(path: string, roots: readonly string[]): string {
  return relativeToRoots(path, roots) ?? path;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Split `text` into plain segments and links: every occurrence of a workspace root followed by a path
 * (up to whitespace, a quote or a bracket) becomes a link showing the relative path, with `:line` kept.
 */
export function linkPaths(text: string, roots: readonly string[]): Segment[] {
  const usable = roots.map(bare).filter((r) => r.length > 1).sort((a, b) => b.length - a.length);
  if (usable.length === 0 || text === "") {
    return text === "" ? [] : [{ text }];
  }
  const pattern = new RegExp(`(?:${usable.map(escapeRegExp).join("|")})(?:[\\\\/][^\\s"'\`<>()\\[\\]{},;]*)?(?![\\w@-]|\\.\\w)`, "g"); // not a longer name ("project" in "projects")
  const out: Segment[] = [];
  let last = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    let found = match[0].replace(/[.:]+$/, ""); // a sentence's full stop is not part of the path
    const lineMatch = /:(\d+)(?::\d+)?$/.exec(found);
    const line = lineMatch ? Number(lineMatch[1]) : undefined;
    const path = lineMatch ? found.slice(0, lineMatch.index) : found;
    const relative = relativeToRoots(path, usable);
    if (relative === null) {
      continue;
    }
    if (match.index > last) {
      out.push({ text: text.slice(last, match.index) });
    }
    found = lineMatch ? `${relative}${lineMatch[0]}` : relative;
    out.push(line !== undefined ? { text: found, path, line } : { text: found, path });
    last = match.index + match[0].replace(/[.:]+$/, "").length;
    pattern.lastIndex = last;
  }
  if (last < text.length) {
    out.push({ text: text.slice(last) });
  }
  return out;
}

/** Whether a short text (inline code in an answer) looks like a relative file path worth a link: `src/app.py`, `app.py:12`. */
export function looksLikeRelativePath(text: string): boolean {
  return /^(?:\.{0,2}\/)?[\w.@-]+(?:\/[\w.@-]+)*\.[A-Za-z0-9]{1,8}(?::\d+)?$/.test(text) && !/^\d/.test(text) && !text.includes("..");
}
