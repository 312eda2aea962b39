/**
 * Line diffs for the chat: a proposed edit's unified diff (from `handrail/permission`) or two snapshots
 * of a file (before and after a tool call) become the same short list of lines with +/− counts.
 */

export type DiffLineKind = "add" | "remove" | "context" | "gap";

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

export interface LineDiff {
  added: number;
  removed: number;
  lines: DiffLine[];
}

/** How many unchanged lines surround each change. */
const CONTEXT = 2;
/** Above this many cells the middle is shown as replaced whole instead of aligned line by line. */
const MAX_CELLS = 4_000_000;
/** A card shows at most this many diff lines (the counts stay exact). */
export const MAX_SHOWN_LINES = 400;

function splitLines(text: string): string[] {
  if (text === "") {
    return [];
  }
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines[lines.length - 1] === "") {
    lines.pop();
  }
  return lines;
}

/** The edit script between `a` and `b` as kinds per line (longest common subsequence of the changed middle). */
function script(a: string[], b: string[]): DiffLine[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) {
    start += 1;
  }
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const head = a.slice(0, start).map((text): DiffLine => ({ kind: "context", text }));
  const tail = a.slice(endA).map((text): DiffLine => ({ kind: "context", text }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const middle: DiffLine[] = [];
  if ((midA.length + 1) * (midB.length + 1) > MAX_CELLS) {
    middle.push(...midA.map((text): DiffLine => ({ kind: "remove", text })), ...midB.map((text): DiffLine => ({ kind: "add", text })));
  } else {
    const width = midB.length + 1;
    const lcs = new Uint32Array((midA.length + 1) * width);
    for (let i = midA.length - 1; i >= 0; i -= 1) {
      for (let j = midB.length - 1; j >= 0; j -= 1) {
        lcs[i * width + j] = midA[i] === midB[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < midA.length || j < midB.length) {
      if (i < midA.length && j < midB.length && midA[i] === midB[j]) {
        middle.push({ kind: "context", text: midA[i] });
        i += 1;
        j += 1;
      } else if (i < midA.length && (j >= midB.length || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) {
        middle.push({ kind: "remove", text: midA[i] }); // removals first, as diffs read
        i += 1;
      } else {
        middle.push({ kind: "add", text: midB[j] });
        j += 1;
      }
    }
  }
  return [...head, ...middle, ...tail];
}

/** Keep changes with CONTEXT lines around them; longer unchanged runs become one "gap" line. */
function trimContext(all: DiffLine[]): DiffLine[] {
  const keep = new Array<boolean>(all.length).fill(false);
  all.forEach((line, index) => {
    if (line.kind !== "context") {
      for (let k = Math.max(0, index - CONTEXT); k <= Math.min(all.length - 1, index + CONTEXT); k += 1) {
        keep[k] = true;
      }
    }
  });
  const out: DiffLine[] = [];
  let skipped = 0;
  all.forEach((line, index) => {
    if (keep[index]) {
      if (skipped > 0) {
        out.push({ kind: "gap", text: `${skipped} unchanged line${skipped === 1 ? "" : "s"}` });
        skipped = 0;
      }
      out.push(line);
    } else {
      skipped += 1;
    }
  });
  if (skipped > 0 && out.length > 0) {
    out.push({ kind: "gap", text: `${skipped} unchanged line${skipped === 1 ? "" : "s"}` });
  }
  return out;
}

function counted(lines: DiffLine[]): LineDiff {
  const added = lines.filter((l) => l.kind === "add").length;
  const removed = lines.filter((l) => l.kind === "remove").length;
  return { added, removed, lines: lines.slice(0, MAX_SHOWN_LINES) };
}

/** The diff between two versions of a text (a file before and after a tool call). */
export function diffTexts(before: string, after: string): LineDiff {
  return counted(trimContext(script(splitLines(before), splitLines(after))));
}

/** A unified diff's lines (hunk headers become gaps), with its +/− counts. */
export function parseUnifiedDiff(diff: string): LineDiff {
  const lines: DiffLine[] = [];
  let inHunk = false;
  for (const line of diff.replace(/\r\n/g, "\n").split("\n")) {
    if (line.startsWith("@@")) {
      inHunk = true;
      if (lines.length > 0) {
        lines.push({ kind: "gap", text: "…" });
      }
    } else if (!inHunk) {
      continue; // ---/+++ file headers
    } else if (line.startsWith("+")) {
      lines.push({ kind: "add", text: line.slice(1) });
    } else if (line.startsWith("-")) {
      lines.push({ kind: "remove", text: line.slice(1) });
    } else if (line.startsWith(" ")) {
      lines.push({ kind: "context", text: line.slice(1) });
    }
  }
  return counted(lines);
}

/** "+3 −1": the counts a card shows. */
export function diffStat(diff: Pick<LineDiff, "added" | "removed">): string {
  return `+${diff.added} −${diff.removed}`;
}
