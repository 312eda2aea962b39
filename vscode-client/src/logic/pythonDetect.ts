/**
 * Finding the server without reading any code: when `handrail.server.pythonPath` and
 * `handrail.server.command` are left at their defaults, the extension runs `<python> -m handrail lsp`
 * with the Python extension's selected interpreter or the workspace's own virtual environment, when
 * that interpreter has handrail installed; otherwise `handrail lsp` from PATH.
 */

import * as path from "node:path";

/** Where a workspace's virtual environment keeps its interpreter, by platform. */
export function venvCandidates(folder: string, platform: NodeJS.Platform = process.platform): string[] {
  const names = [".venv", "venv", "env"];
  return names.map((name) => (platform === "win32" ? path.join(folder, name, "Scripts", "python.exe") : path.join(folder, name, "bin", "python")));
}

/** Where an interpreter came from, for the output channel and the empty state. */
export type PythonSource = "setting" | "pythonExtension" | "workspaceVenv";

export interface FoundPython {
  python: string;
  source: PythonSource;
}

/**
 * The interpreter to run the server with: the setting when set; else, in a trusted workspace only, the
 * first candidate (the Python extension's choice, then each workspace folder's venv) that `hasHandrail`
 * accepts; else null. In Restricted Mode nothing from the workspace runs: its venv is the repository's code.
 */
export async function choosePython(
  setting: string,
  pythonExtension: string | undefined,
  folders: readonly string[],
  trusted: boolean,
  hasHandrail: (python: string) => Promise<boolean>,
  platform: NodeJS.Platform = process.platform,
): Promise<FoundPython | null> {
  if (setting.trim()) {
    return { python: setting.trim(), source: "setting" };
  }
  if (!trusted) {
    return null;
  }
  const candidates: FoundPython[] = [];
  if (pythonExtension) {
    candidates.push({ python: pythonExtension, source: "pythonExtension" });
  }
  for (const folder of folders) {
    candidates.push(...venvCandidates(folder, platform).map((python) => ({ python, source: "workspaceVenv" as const })));
  }
  for (const candidate of candidates) {
    if (await hasHandrail(candidate.python)) {
      return candidate;
    }
  }
  return null;
}
