/** `handrail/permission` as a quick pick (the `handrail.permissionPrompt` option; the chat card asks in any case),
 * with VS Code's diff editor showing a proposed edit meanwhile, the plan beside a plan's approval, and the full
 * command on "Show full command"; and "Open diff" / "Open plan" for the chat card. */

import * as vscode from "vscode";
import type { CancellationToken } from "vscode-jsonrpc";
import {
  choiceItems,
  destinationItems,
  editTarget,
  fullCommandText,
  planText,
  promptTitle,
  toResult,
} from "../logic/permissionChoices";
import type { PermissionParams, PermissionResult } from "../logic/protocol";
import { applyUnifiedDiff } from "../logic/unifiedDiff";
import { visible } from "../logic/visibleText";
import { input, pick } from "./quickPick";

export const PROPOSED_SCHEME = "handrail-proposed";

/** Read-only virtual documents holding the proposed text (the diff editor's right side). */
export class ProposalProvider implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  set(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  delete(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }
}

async function currentText(uri: vscode.Uri): Promise<string | null> {
  try {
    const doc = await vscode.workspace.openTextDocument(uri);
    return doc.getText().replace(/\r\n/g, "\n");
  } catch {
    return null; // a new file
  }
}

export class PermissionUi {
  constructor(private readonly proposals: ProposalProvider, private readonly log: (line: string) => void) {}

  /** Show the proposed change (the diff editor; a plan opens as a document); returns what to clean up afterwards. */
  async showProposal(params: PermissionParams): Promise<vscode.Uri[]> {
    const plan = planText(params);
    return plan !== null ? this.showText(params, "plan.md", plan, "markdown") : this.showDiff(params);
  }

  private async showDiff(params: PermissionParams): Promise<vscode.Uri[]> {
    const path = editTarget(params);
    if (!path) {
      return [];
    }
    const target = vscode.Uri.file(path);
    const before = await currentText(target);
    let proposed: string | null = null;
    try {
      proposed = params.diff !== null ? applyUnifiedDiff(before ?? "", params.diff) : null;
    } catch (error) {
      this.log(`the diff for ${path} does not apply to the editor's text: ${String(error)}`);
    }
    if (proposed === null && params.tool === "Write" && typeof params.input.content === "string") {
      proposed = params.input.content;
    }
    if (proposed === null) {
      return [];
    }
    const right = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path, query: `proposed=${params.toolUseId}` });
    this.proposals.set(right, proposed);
    const cleanup = [right];
    let left = target;
    if (before === null) {
      left = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path, query: `empty=${params.toolUseId}` });
      this.proposals.set(left, "");
      cleanup.push(left);
    }
    const name = path.split(/[\\/]/).pop() ?? path;
    await vscode.commands.executeCommand("vscode.diff", left, right, `${name}: proposed by handrail (${params.tool})`, {
      preview: false, // a preview diff would replace the user's preview editor of the same file
      preserveFocus: true,
    });
    return cleanup;
  }

  /** Open read-only `text` beside the prompt (a plan, a full command) without taking the focus. */
  private async showText(params: PermissionParams, name: string, text: string, language: string): Promise<vscode.Uri[]> {
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${name}`, query: `prompt=${params.toolUseId}` });
    this.proposals.set(uri, text);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, language).then(undefined, () => doc);
    await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true, viewColumn: vscode.ViewColumn.Beside });
    return [uri];
  }

  private async closeShown(uris: vscode.Uri[]): Promise<void> {
    if (uris.length === 0) {
      return;
    }
    const shown = new Set(uris.map((u) => u.toString()));
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter(
      (t) =>
        (t.input instanceof vscode.TabInputTextDiff && shown.has(t.input.modified.toString())) ||
        (t.input instanceof vscode.TabInputText && shown.has(t.input.uri.toString())),
    );
    await vscode.window.tabGroups.close(tabs, true);
    uris.forEach((u) => this.proposals.delete(u));
  }

  /**
   * Ask with a quick pick. Undefined when it closed without an answer (Escape, another quick input such as
   * Ctrl+P, or the server cancelling): the question then stays open in the chat card, never denied by that.
   */
  async ask(params: PermissionParams, token: CancellationToken): Promise<PermissionResult | undefined> {
    let shown: vscode.Uri[] = [];
    try {
      shown = await this.showProposal(params);
    } catch (error) {
      this.log(`could not show the proposal: ${String(error)}`);
    }
    try {
      const { title, placeholder } = promptTitle(params);
      let first = (await pick(choiceItems(params), { title, placeholder }, token))?.[0];
      while (first?.choice.kind === "showCommand") {
        shown.push(...(await this.showText(params, "command.sh", fullCommandText(params), "shellscript")));
        first = (await pick(choiceItems(params), { title, placeholder }, token))?.[0];
      }
      if (!first) {
        return undefined;
      }
      if (first.choice.kind === "always") {
        const rules = first.choice.rules;
        const named = visible(rules.join(", "));
        const [where] = (await pick(destinationItems(rules), { title: `Always allow ${named}: remember ${rules.length > 1 ? "them" : "it"} where?` }, token)) ?? [];
        return where ? toResult(first.choice, where.destination) : undefined;
      }
      if (first.choice.kind === "denyWithFeedback") {
        const feedback = await input(`Deny ${params.tool}`, "Tell the agent why (or what to do instead)", token);
        return feedback === undefined ? undefined : toResult(first.choice, undefined, feedback);
      }
      return toResult(first.choice);
    } finally {
      await this.closeShown(shown).catch((e: unknown) => this.log(`closing what the prompt showed: ${String(e)}`));
    }
  }
}
