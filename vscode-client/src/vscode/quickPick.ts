/** Quick picks and input boxes that close when the server cancels the request they answer. */

import * as vscode from "vscode";
import type { CancellationToken } from "vscode-jsonrpc";

export interface PickOptions {
  title: string;
  placeholder?: string;
  canPickMany?: boolean;
}

/** Show a quick pick; resolves with the accepted items, or undefined (Escape, or cancelled by the server). */
export function pick<T extends vscode.QuickPickItem>(items: T[], options: PickOptions, token: CancellationToken): Promise<T[] | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<T>();
    qp.title = options.title;
    qp.placeholder = options.placeholder ?? "";
    qp.canSelectMany = options.canPickMany ?? false;
    qp.ignoreFocusOut = true; // looking at the diff must not dismiss the prompt
    qp.matchOnDescription = true;
    qp.items = items;
    let done = false;
    const finish = (value: T[] | undefined): void => {
      if (!done) {
        done = true;
        resolve(value);
        subscription.dispose();
        qp.dispose();
      }
    };
    const subscription = token.onCancellationRequested(() => finish(undefined));
    qp.onDidAccept(() => finish(qp.canSelectMany ? [...qp.selectedItems] : [...qp.activeItems].slice(0, 1)));
    qp.onDidHide(() => finish(undefined));
    qp.show();
  });
}

/** Ask for one line of text; undefined on Escape or server cancellation. */
export function input(title: string, prompt: string, token: CancellationToken): Promise<string | undefined> {
  return new Promise((resolve) => {
    const box = vscode.window.createInputBox();
    box.title = title;
    box.prompt = prompt;
    box.ignoreFocusOut = true;
    let done = false;
    const finish = (value: string | undefined): void => {
      if (!done) {
        done = true;
        resolve(value);
        subscription.dispose();
        box.dispose();
      }
    };
    const subscription = token.onCancellationRequested(() => finish(undefined));
    box.onDidAccept(() => finish(box.value));
    box.onDidHide(() => finish(undefined));
    box.show();
  });
}
