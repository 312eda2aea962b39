/**
 * Text shown in a prompt, made safe to read (the same rules as the server's `permissions/visible.py`):
 * control characters, bidi overrides and isolates, zero-width and other format characters, line and
 * paragraph separators and lone surrogates are written as escapes (`\u202e`), so nothing hides or turns
 * around the rest of a command; `cutMiddle` shortens a text for a one-line title and keeps its end.
 */

const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
const NAMED: Record<string, string> = { "\t": "\\t", "\r": "\\r", "\n": "\\n" };

function escapeChar(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) {
    return named;
  }
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x100) {
    return `\\x${code.toString(16).padStart(2, "0")}`;
  }
  if (code < 0x10000) {
    return `\\u${code.toString(16).padStart(4, "0")}`;
  }
  return `\\U${code.toString(16).padStart(8, "0")}`;
}

/** `text` with every character that could hide or reorder what follows escaped (`keepNewlines` keeps line breaks). */
export function visible(text: string, keepNewlines = false): string {
  return text.replace(HIDDEN, (char) => (keepNewlines && char === "\n" ? char : escapeChar(char)));
}

/** `text` at most about `limit` characters long, its start and its end kept (the cut is marked). */
export function cutMiddle(text: string, limit: number): string {
  const chars = Array.from(text); // code points, as the server counts them
  if (chars.length <= limit) {
    return text;
  }
  const keep = Math.max(limit - 40, 20);
  const head = Math.floor((keep * 2) / 5);
  const tail = keep - head;
  const hidden = chars.length - head - tail;
  return `${chars.slice(0, head).join("")} …[${hidden} characters not shown]… ${chars.slice(chars.length - tail).join("")}`;
}
