/**
 * How a tool card reads at a glance: one short fact in its head ("42 lines", "+3 −1", "5 files") and,
 * instead of the text written for the model (`cat -n` numbering, "has been updated…"), what a person
 * wants to see: the diff of an edit, the lines read, the command's output.
 */

/** The tools whose cards show the file's change (snapshots before and after the call). */
export const FILE_CHANGING_TOOLS: ReadonlySet<string> = new Set(["Edit", "Write", "MultiEdit"]);

/** Tools whose cards would only repeat a panel of their own (TodoWrite: the Todos list). */
export const PANEL_TOOLS: ReadonlySet<string> = new Set(["TodoWrite"]);

/** The server previews at most this many characters of a result. */
export const PREVIEW_CHARS = 2000;

/** The file a file-changing call names in its summary ("Edit /abs/app.py", "MultiEdit /abs/app.py (2 edits)"). */
export function changedFile(name: string, summary: string): string | null {
  if (!FILE_CHANGING_TOOLS.has(name) || !summary.startsWith(`${name} `)) {
    return null;
  }
  const path = summary.slice(name.length + 1).replace(/ \(\d+ edits?\)$/, "");
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) ? path : null;
}

const NUMBERED = /^\s*(\d+)\t(.*)$/;

/** `cat -n` text without its numbers, and the last line number seen (null when it is not numbered). */
export function stripLineNumbers(text: string): { text: string; lastLine: number | null } {
  const lines = text.split("\n");
  const numbered = lines.filter((l) => NUMBERED.test(l)).length;
  if (numbered === 0 || numbered < lines.filter((l) => l.trim() !== "").length / 2) {
    return { text, lastLine: null };
  }
  let lastLine: number | null = null;
  const out = lines.map((line) => {
    const m = NUMBERED.exec(line);
    if (!m) {
      return line;
    }
    lastLine = Number(m[1]);
    return m[2];
  });
  return { text: out.join("\n"), lastLine };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export interface ResultView {
  /** The fact in the card's head. */
  fact: string;
  /** What the card's "Output" fold holds (null: nothing worth showing, e.g. an edit's text when its diff is shown). */
  body: string | null;
}

/** A finished call's result as its card shows it. */
export function resultView(name: string, preview: string, isError: boolean, hasDiff: boolean): ResultView {
  const cut = preview.length >= PREVIEW_CHARS;
  if (isError) {
    return { fact: "", body: preview };
  }
  const lines = preview.split("\n").filter((l) => l.trim() !== "");
  switch (name) {
    case "Read": {
      const stripped = stripLineNumbers(preview);
      const n = stripped.lastLine;
      return { fact: n === null ? "" : `${n}${cut ? "+" : ""} lines`, body: stripped.text };
    }
    case "Edit":
    case "MultiEdit":
    case "Write":
      return { fact: "", body: hasDiff ? null : stripLineNumbers(preview).text };
    case "Glob":
      return { fact: /^No files found/.test(preview) ? "no files" : `${plural(lines.length, "file")}${cut ? "+" : ""}`, body: preview };
    case "Grep":
      return { fact: /^No (files|matches) found/.test(preview) ? "no matches" : `${plural(lines.length, "line")}${cut ? "+" : ""}`, body: preview };
    default:
      return { fact: "", body: preview };
  }
}
