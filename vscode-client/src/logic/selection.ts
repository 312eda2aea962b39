/** The Ask command's prompt: the user's question plus the editor selection as context. */

export interface SelectionContext {
  path: string;
  languageId: string;
  startLine: number; // 1-based
  endLine: number;
  text: string;
}

export interface Position {
  line: number; // 0-based, as VS Code counts
  character: number;
}

/**
 * The 1-based lines a selection covers. A selection that ends at the start of a line (a whole-line
 * selection: triple-click, Shift+Down) does not include that line.
 */
export function selectionLines(start: Position, end: Position): { startLine: number; endLine: number } {
  const last = end.character === 0 && end.line > start.line ? end.line - 1 : end.line;
  return { startLine: start.line + 1, endLine: last + 1 };
}

/** "line 3" or "lines 3-5". */
export function lineRange(startLine: number, endLine: number): string {
  return startLine === endLine ? `line ${startLine}` : `lines ${startLine}-${endLine}`;
}

/** The selection quoted as the prompt carries it. */
export function quoteSelection(selection: SelectionContext): string {
  const fence = selection.text.includes("```") ? "````" : "```";
  return `Selected in ${selection.path} (${lineRange(selection.startLine, selection.endLine)}):\n${fence}${selection.languageId}\n${selection.text}\n${fence}`;
}

/** The prompt text with the selection quoted after the question (unchanged without a selection). */
export function promptWithSelection(question: string, selection: SelectionContext | null): string {
  if (!selection || !selection.text.trim()) {
    return question;
  }
  return `${question}\n\n${quoteSelection(selection)}`;
}
