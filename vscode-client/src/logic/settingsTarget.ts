/**
 * Which Settings tab "Open Settings" opens for the server settings: the one where the value in force
 * comes from. Without a value anywhere, a remote window (SSH, containers, code-server) opens the Remote
 * tab: the server runs on the remote machine, so its interpreter is set there, not in the local User tab.
 */

export type SettingsTab = "workspaceFolder" | "workspace" | "remote" | "user";

/** What `WorkspaceConfiguration.inspect` reports for one setting (only whether each level has a value). */
export interface SettingLevels {
  workspaceFolderValue?: unknown;
  workspaceValue?: unknown;
  globalValue?: unknown;
}

/** The command that opens a tab, with the search text. */
export const TAB_COMMANDS: Record<SettingsTab, string> = {
  workspaceFolder: "workbench.action.openFolderSettings",
  workspace: "workbench.action.openWorkspaceSettings",
  remote: "workbench.action.openRemoteSettings",
  user: "workbench.action.openSettings",
};

/** The tab holding the value of the first of `levels` that is set, or the default tab for this window. */
export function settingsTab(levels: readonly (SettingLevels | undefined)[], remoteName: string | undefined): SettingsTab {
  for (const level of levels) {
    if (level?.workspaceFolderValue !== undefined) {
      return "workspaceFolder";
    }
    if (level?.workspaceValue !== undefined) {
      return "workspace";
    }
  }
  // In a remote window a machine-overridable global value may live in User or Remote settings; inspect()
  // does not say which, and the server (a remote process) is configured in Remote settings.
  return remoteName ? "remote" : "user";
}
