/** Quick picks and input boxes that close when the server cancels the request they answer. */

import * as vscode from "vscode";
import type { CancellationToken } from "vscode-jsonrpc";

export interface PickOptions {
  title: string;
  placeholder?: string;
  canPickMany?: boolean;
}

/** Show `widget` until the first of: `finish` called, hidden (Escape), or the server's cancellation. */
function settle<T>(widget: vscode.QuickInput, token: CancellationToken, resolve: (value: T | undefined) => void): (value: T | undefined) => void {
  let done = false;
  const finish = (value: T | undefined): void => {
    if (!done) {
      done = true;
      resolve(value);
      subscription.dispose();
      widget.dispose();
    }
  };
  const subscription = token.onCancellationRequested(() => finish(undefined));
  widget.onDidHide(() => finish(undefined));
  widget.ignoreFocusOut = true; // looking at the diff must not dismiss the prompt
  return finish;
}

/** Show a quick pick; resolves with the accepted items, or undefined (Escape, or cancelled by the server). */
export function pick<T extends vscode.QuickPickItem>(items: T[], options: PickOptions, token: CancellationToken): Promise<T[] | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<T>();
    qp.title = options.title;
    qp.placeholder = options.placeholder ?? "";
    qp.canSelectMany = options.canPickMany ?? false;
    qp.matchOnDescription = true;
    qp.items = items;
    const finish = settle<T[]>(qp, token, resolve);
    qp.onDidAccept(() => finish(qp.canSelectMany ? [...qp.selectedItems] : [...qp.activeItems].slice(0, 1)));
    qp.show();
  });
}

/** Ask for one line of text; undefined on Escape or server cancellation. `check` says what is wrong with the
 * text (null: fine); text with a problem is not accepted. */
export function input(title: string, prompt: string, token: CancellationToken, check?: (text: string) => string | null, value = ""): Promise<string | undefined> {
  return new Promise((resolve) => {
    const box = vscode.window.createInputBox();
    box.title = title;
    box.prompt = prompt;
    box.value = value;
    const finish = settle<string>(box, token, resolve);
    const validate = (): string | null => {
      const problem = check?.(box.value) ?? null;
      box.validationMessage = problem ?? undefined;
      return problem;
    };
    box.onDidChangeValue(() => validate());
    box.onDidAccept(() => validate() === null && finish(box.value));
    box.show();
  });
}
