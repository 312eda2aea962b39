/** Apply a unified diff (as sent in `handrail/permission`'s `diff`) to a text. */

interface Hunk {
  oldStart: number;
  lines: string[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function parseHunks(diff: string): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Hunk | null = null;
  for (const line of diff.split("\n")) {
    const header = HUNK_HEADER.exec(line);
    if (header) {
      current = { oldStart: Number(header[1]), lines: [] };
      hunks.push(current);
    } else if (current && (line.startsWith(" ") || line.startsWith("-") || line.startsWith("+") || line.startsWith("\\"))) {
      current.lines.push(line);
    } else if (current && line === "") {
      current.lines.push(" "); // some producers drop the space of an empty context line
    }
  }
  for (const hunk of hunks) {
    while (hunk.lines.length > 0 && hunk.lines[hunk.lines.length - 1] === " ") {
      hunk.lines.pop(); // the trailing newline of the diff text, not a context line
    }
  }
  return hunks;
}

/** The text after applying `diff`; throws when a hunk's context does not match. */
export function applyUnifiedDiff(text: string, diff: string): string {
  const hadFinalNewline = text.endsWith("\n");
  const source = text === "" ? [] : (hadFinalNewline ? text.slice(0, -1) : text).split("\n");
  const out: string[] = [];
  let cursor = 0; // index into source
  let finalNewline = hadFinalNewline || text === "";
  for (const hunk of parseHunks(diff)) {
    const start = Math.max(hunk.oldStart - 1, 0);
    if (start < cursor) {
      throw new Error("overlapping hunks");
    }
    out.push(...source.slice(cursor, start));
    cursor = start;
    let lastSign = "";
    for (const line of hunk.lines) {
      const sign = line[0];
      const body = line.slice(1);
      if (sign === "\\") {
        // "\ No newline at end of file" refers to the line before it
        finalNewline = lastSign === "-";
        continue;
      }
      lastSign = sign;
      if (sign === "+") {
        out.push(body);
        continue;
      }
      if (source[cursor] !== body) {
        throw new Error(`the diff does not apply at line ${cursor + 1}`);
      }
      if (sign === " ") {
        out.push(body);
      }
      cursor += 1;
    }
  }
  out.push(...source.slice(cursor));
  if (out.length === 0) {
    return "";
  }
  return out.join("\n") + (finalNewline ? "\n" : "");
}
