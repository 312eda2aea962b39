/**
 * Undoing a turn in VS Code: a preview first (the files and what goes back, the diffs one click away in
 * the multi-file diff editor), then one workspace edit that puts every file back, saved — so the editor's
 * own Undo can take the undo back.
 */

import * as vscode from "vscode";
import { restoreSummary, type Checkpoint, type RestoredFile } from "../logic/checkpoints";
import { visible } from "../logic/visibleText";
import { PROPOSED_SCHEME, type ProposalProvider } from "./permissionUi";

const UNDO = "Undo Turn";
const SHOW = "Show Changes";

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/** Each file's state now beside its state before the turn, in one multi-file diff editor. */
async function showChanges(checkpoint: Checkpoint, proposals: ProposalProvider): Promise<void> {
  const side = (file: RestoredFile, which: string, text: string): vscode.Uri => {
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: file.path, query: `${which}=${checkpoint.id}` });
    proposals.set(uri, text);
    return uri;
  };
  const resources: [vscode.Uri, vscode.Uri, vscode.Uri][] = [];
  for (const file of checkpoint.files) {
    const uri = vscode.Uri.file(file.path);
    const now = (await exists(uri)) ? uri : side(file, "now", "");
    resources.push([uri, now, side(file, "before", file.before ?? "")]);
  }
  await vscode.commands.executeCommand("vscode.changes", "handrail: undo the turn (now ↔ before the turn)", resources);
}

/** Put every file back as it was before the turn, in one workspace edit, and save what it touched. */
async function restore(files: readonly RestoredFile[]): Promise<boolean> {
  const edit = new vscode.WorkspaceEdit();
  const touched: vscode.Uri[] = [];
  for (const file of files) {
    const uri = vscode.Uri.file(file.path);
    if (file.before === null) {
      edit.deleteFile(uri, { ignoreIfNotExists: true });
    } else if (await exists(uri)) {
      const doc = await vscode.workspace.openTextDocument(uri);
      edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), file.before);
      touched.push(uri);
    } else {
      edit.createFile(uri, { overwrite: true, contents: Buffer.from(file.before, "utf8") });
    }
  }
  if (!(await vscode.workspace.applyEdit(edit))) {
    return false;
  }
  for (const uri of touched) {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (doc?.isDirty) {
      await doc.save();
    }
  }
  return true;
}

/** Ask (with the preview) and undo; true when the files were put back. */
export async function undoTurn(checkpoint: Checkpoint, proposals: ProposalProvider, shown: (path: string) => string): Promise<boolean> {
  const detail = [
    `Every file the turn “${visible(checkpoint.prompt.split("\n")[0].slice(0, 120))}” changed through handrail goes back to its state before that turn:`,
    "",
    ...checkpoint.files.map((f) => `• ${restoreSummary(f, visible(shown(f.path)))}`),
    "",
    "Changes made to these files after the turn are undone as well. Shell commands' changes are not tracked.",
  ].join("\n");
  let answer = await vscode.window.showWarningMessage("Undo this turn's file changes?", { modal: true, detail }, UNDO, SHOW);
  if (answer === SHOW) {
    await showChanges(checkpoint, proposals);
    answer = await vscode.window.showInformationMessage(`Undo the turn's changes to ${checkpoint.files.length === 1 ? shown(checkpoint.files[0].path) : `${checkpoint.files.length} files`}?`, UNDO);
  }
  if (answer !== UNDO) {
    return false;
  }
  const done = await restore(checkpoint.files);
  if (!done) {
    void vscode.window.showErrorMessage("handrail: the files could not be put back (the editor refused the edit).");
  }
  return done;
}
