/** The Ask command's prompt: the user's question plus the editor selection as context. */

export interface SelectionContext {
  path: string;
  languageId: string;
  startLine: number; // 1-based
  endLine: number;
  text: string;
}

/** The prompt text with the selection quoted after the question (unchanged without a selection). */
export function promptWithSelection(question: string, selection: SelectionContext | null): string {
  if (!selection || !selection.text.trim()) {
    return question;
  }
  const lines = selection.startLine === selection.endLine ? `line ${selection.startLine}` : `lines ${selection.startLine}-${selection.endLine}`;
  const fence = selection.text.includes("```") ? "````" : "```";
  return `${question}\n\nSelected in ${selection.path} (${lines}):\n${fence}${selection.languageId}\n${selection.text}\n${fence}`;
}
