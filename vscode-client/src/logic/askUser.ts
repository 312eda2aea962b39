/** AskUserQuestion: quick pick items per question and the answers map sent back. */

import type { AskQuestion } from "./protocol";

export const OTHER_LABEL = "Other…";

export interface AnswerItem {
  label: string;
  description?: string;
  other: boolean;
}

/** The items of one question's quick pick: its options, then "Other…" for free text. */
export function answerItems(question: AskQuestion): AnswerItem[] {
  return [
    ...question.options.map((o) => ({ label: o.label, ...(o.description ? { description: o.description } : {}), other: false })),
    { label: OTHER_LABEL, description: "type your own answer", other: true },
  ];
}

/**
 * The answer text for one question: picked labels joined with ", ", with the free text (if "Other…"
 * was picked) in place of "Other…". `null` when nothing usable was given.
 */
export function answerText(picked: AnswerItem[], freeText?: string): string | null {
  const parts: string[] = [];
  for (const item of picked) {
    if (item.other) {
      const text = freeText?.trim();
      if (text) {
        parts.push(text);
      }
    } else {
      parts.push(item.label);
    }
  }
  return parts.length > 0 ? parts.join(", ") : null;
}

/** A short title for the quick pick of question `index` of `total`. */
export function questionTitle(question: AskQuestion, index: number, total: number): string {
  const header = question.header ? `${question.header}: ` : "";
  const counter = total > 1 ? ` (${index + 1}/${total})` : "";
  return `${header}${question.question}${counter}`;
}
