/** The interpreter the server runs with when no setting names one: the Python extension's, or the workspace's venv. */

import { execFile } from "node:child_process";
import * as vscode from "vscode";
import { choosePython, type FoundPython } from "../logic/pythonDetect";

interface PythonApi {
  environments?: { getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined };
  settings?: { getExecutionDetails(resource?: vscode.Uri): { execCommand: string[] | undefined } };
}

/** The interpreter the Python extension has selected for the first workspace folder, if it is installed. */
async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>("ms-python.python");
  if (!extension) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const active = api?.environments?.getActiveEnvironmentPath(resource)?.path;
    return active ?? api?.settings?.getExecutionDetails(resource).execCommand?.[0];
  } catch {
    return undefined;
  }
}

const checked = new Map<string, Promise<boolean>>();

/** Whether `python` runs and can import handrail (asked once per interpreter and window). */
function hasHandrail(python: string): Promise<boolean> {
  let answer = checked.get(python);
  if (!answer) {
    answer = new Promise((resolve) => {
      execFile(python, ["-c", "import handrail"], { timeout: 20_000 }, (error) => resolve(!error));
    });
    checked.set(python, answer);
    void answer.then((ok) => ok || checked.delete(python)); // installed later: look again next time
  }
  return answer;
}

/** The interpreter to run `-m handrail lsp` with, or null to run the server command from PATH. */
export async function findPython(setting: string): Promise<FoundPython | null> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
  const trusted = vscode.workspace.isTrusted;
  return choosePython(setting, trusted ? await pythonExtensionInterpreter() : undefined, folders, trusted, hasHandrail);
}
