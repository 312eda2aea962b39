/** `handrail/elicit`: an MCP server's form as quick picks and input boxes (logic/elicitForm.ts asks the fields). */

import * as vscode from "vscode";
import type { CancellationToken } from "vscode-jsonrpc";
import { fillForm, type FormAsker, type FormField } from "../logic/elicitForm";
import type { ElicitParams, ElicitResult } from "../logic/protocol";
import { visible } from "../logic/visibleText";
import { input, pick } from "./quickPick";

function title(params: ElicitParams, field: FormField, position: string): string {
  return `MCP server "${visible(params.server)}" asks (${position}): ${visible(field.title)}${field.required ? "" : " (optional)"}`;
}

/** Ask the form; the answer the server checks against its schema. */
export function elicit(params: ElicitParams, token: CancellationToken): Promise<ElicitResult> {
  const asker: FormAsker = {
    start: async () => {
      const items = [
        { label: "Answer", description: "fill in the form", value: "answer" as const },
        { label: "Decline", description: "tell the server no", value: "decline" as const },
      ];
      const picked = await pick(items, { title: `MCP server "${visible(params.server)}" asks: ${visible(params.message)}`, placeholder: visible(params.message) }, token);
      return picked?.[0]?.value;
    },
    pick: async (field, choices, position) => {
      const items = choices.map((c) => ({ label: visible(c.label), value: c.value, ...(field.default === c.value ? { description: "default" } : {}) }));
      const picked = await pick(items, { title: title(params, field, position), placeholder: field.description ? visible(field.description) : "Pick one" }, token);
      return picked?.[0]?.value;
    },
    pickMany: async (field, choices, position, problem) => {
      for (;;) {
        const items = choices.map((c) => ({ label: visible(c.label), value: c.value }));
        const picked = await pick(items, { title: title(params, field, position), placeholder: field.description ? visible(field.description) : "Pick any, then Enter", canPickMany: true }, token);
        if (!picked) {
          return undefined;
        }
        const values = picked.map((i) => i.value);
        const wrong = problem(values);
        if (!wrong) {
          return values;
        }
        void vscode.window.showWarningMessage(`${visible(field.title)}: ${wrong}`);
      }
    },
    type: (field, position, check) => {
      const initial = typeof field.default === "string" || typeof field.default === "number" ? String(field.default) : "";
      return input(title(params, field, position), field.description ? visible(field.description) : `Type ${field.kind === "text" ? "the text" : "a number"}`, token, check, initial);
    },
    cannotShow: (shown, why) => {
      void vscode.window.showWarningMessage(`handrail: MCP server "${visible(shown.server)}" asked with a form that cannot be shown (${why}); it was declined.`);
    },
  };
  return fillForm(params, asker);
}
