/** `handrail/askUser` (AskUserQuestion) as one quick pick per question, with "Other…" for free text. */

import type { CancellationToken } from "vscode-jsonrpc";
import { answerItems, answerText, questionTitle } from "../logic/askUser";
import type { AskUserParams, AskUserResult } from "../logic/protocol";
import { input, pick } from "./quickPick";

/** Ask every question in turn; null (declined) if the user escapes any of them. */
export async function askUser(params: AskUserParams, token: CancellationToken): Promise<AskUserResult | null> {
  const answers: Record<string, string> = {};
  for (const [index, question] of params.questions.entries()) {
    const title = questionTitle(question, index, params.questions.length);
    const items = answerItems(question);
    const picked = await pick(items, { title, placeholder: question.multiSelect ? "Pick any, then Enter" : "Pick one", canPickMany: question.multiSelect ?? false }, token);
    if (!picked || picked.length === 0) {
      return null;
    }
    const free = picked.some((i) => i.other) ? await input(title, "Your answer", token) : undefined;
    const text = answerText(picked, free);
    if (text === null) {
      return null;
    }
    answers[question.question] = text;
  }
  return { answers };
}
