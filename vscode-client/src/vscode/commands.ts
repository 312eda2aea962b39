/** The extension's commands (palette, menus, keybindings, and the chat view's buttons), in one place. */

import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as vscode from "vscode";
import { serverActions } from "../logic/mcpStatus";
import type { ChatController } from "../logic/chatController";
import type { HostCommand } from "../logic/chatModel";
import type { HandrailCommands } from "../logic/handlers";
import { modeChoices, modeWarning } from "../logic/modes";
import { PLAN_TOOL, alwaysRules, destinationItems } from "../logic/permissionChoices";
import { cardResult } from "../logic/permissionCard";
import type { McpServerStatus, PermissionParams } from "../logic/protocol";
import { selectionLines } from "../logic/selection";
import { auditLogPath } from "../logic/statePaths";
import { visible } from "../logic/visibleText";
import type { ChatViewProvider } from "./chatView";
import type { PermissionUi } from "./permissionUi";
import { input, pick } from "./quickPick";
import type { ServerClient } from "./serverClient";
import { CancellationTokenSource } from "vscode-jsonrpc";

/** The command behind each button the chat view may show. */
export const HOST_COMMAND_IDS: Record<HostCommand, string> = {
  setApiKey: "handrail.chat.setApiKey",
  tryDemo: "handrail.chat.tryDemo",
  openServerSettings: "handrail.chat.openServerSettings",
  restartServer: "handrail.chat.restartServer",
  showOutput: "handrail.chat.showOutput",
  pickModel: "handrail.chat.pickModel",
  pickMode: "handrail.chat.setMode",
  addSelection: "handrail.chat.addSelection",
  addActiveFile: "handrail.chat.addActiveFile",
  openModelSetting: "handrail.chat.openModelSetting",
  showPermissionLog: "handrail.chat.showPermissionLog",
};

/** Models suggested by the picker (any other name can be typed). */
const SUGGESTED_MODELS = ["claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5", "claude-opus-4-8", "claude-sonnet-4-6"];

/** What the commands work with. */
export interface Services {
  output: vscode.OutputChannel;
  controller: ChatController;
  chatView: ChatViewProvider;
  server: ServerClient;
  permissionUi: PermissionUi;
  approveProject: () => Promise<void>;
  setApiKey: (key: string | undefined) => Promise<void>;
  tryDemo: () => Promise<void>;
  openServerSettings: () => Promise<void>;
  /** Ask the server for the MCP servers' states again (the status bar shows them). */
  refreshMcp: () => Promise<void>;
}

const ACTION_LABELS = {
  approve: "Approve", signIn: "Sign in", signOut: "Sign out", restart: "Restart",
} as const;

/** Run one action on an MCP server; what the user is told of its outcome. */
async function runMcpAction(commands: HandrailCommands, server: McpServerStatus, action: keyof typeof ACTION_LABELS): Promise<{ ok: boolean; text: string } | null> {
  const name = server.name;
  switch (action) {
    case "approve": {
      // what it starts is shown first, exactly as the server states it; the approval binds that definition
      const question = server.approval?.question ?? `The workspace's MCP server '${name}' has nothing to approve.`;
      if ((await vscode.window.showWarningMessage(question, { modal: true }, "Approve")) !== "Approve") {
        return null;
      }
      const r = await commands.approveMcpServer(name, server.approval?.digest);
      return { ok: r.approved, text: r.approved ? `approved '${name}': it starts.` : `'${name}' was not approved: ${r.reason ?? "unknown reason"}` };
    }
    case "signIn": {
      const r = await commands.signInMcpServer(name);
      return { ok: r.signingIn, text: r.signingIn ? `signing in to '${name}': finish in the browser.` : `cannot sign in to '${name}': ${r.reason ?? "unknown reason"}` };
    }
    case "signOut": {
      const r = await commands.signOutMcpServer(name);
      return { ok: r.signedOut, text: r.signedOut ? `signed out of '${name}'${r.detail ? ` (${r.detail})` : ""}.` : `'${name}': ${r.reason ?? r.detail ?? "nothing to sign out of"}` };
    }
    case "restart": {
      const r = await commands.restartMcpServer(name);
      return { ok: r.restarted, text: r.restarted ? `restarting MCP server '${name}'.` : `could not restart '${name}': ${r.reason ?? "unknown reason"}` };
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The MCP servers the server reports, or undefined (the user told) when none is configured. */
async function configuredMcpServers(commands: Pick<HandrailCommands, "mcpStatus">): Promise<McpServerStatus[] | undefined> {
  const servers = await commands.mcpStatus();
  if (servers.length === 0) {
    void vscode.window.showInformationMessage("handrail: no MCP servers are configured.");
    return undefined;
  }
  return servers;
}

/** The selection of the active editor as an attachment (with the lines it really covers), or null. */
function selectionAttachment(): Parameters<ChatController["attach"]>[0] | null {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) {
    return null;
  }
  const { startLine, endLine } = selectionLines(editor.selection.start, editor.selection.end);
  const path = vscode.workspace.asRelativePath(editor.document.uri);
  const text = editor.document.getText(editor.selection);
  return {
    kind: "selection",
    label: `${path}:${startLine}${endLine !== startLine ? `-${endLine}` : ""}`,
    selection: { path, languageId: editor.document.languageId, startLine, endLine, text },
  };
}

export function registerCommands(s: Services): vscode.Disposable[] {
  const { controller, chatView, server } = s;

  const withServer = <T>(run: (commands: HandrailCommands) => Promise<T>) => async (): Promise<T | undefined> => {
    const commands = await server.ready();
    if (!commands) {
      void vscode.window.showErrorMessage("The handrail server is not running (see the handrail output).");
      return undefined;
    }
    return run(commands);
  };

  /** The oldest open permission question of the chat's session, or a message saying there is none. */
  const openQuestion = (): PermissionParams | undefined => {
    const question = controller.openQuestions()[0];
    if (!question) {
      void vscode.window.showInformationMessage("handrail has no open permission question in this session.");
    }
    return question;
  };

  /** Answer the open question from the keyboard; a quick input closed without a choice leaves it open. */
  const answerWith = (decide: (params: PermissionParams) => Promise<Parameters<typeof cardResult>[1] | undefined>) => async (): Promise<void> => {
    const params = openQuestion();
    if (!params) {
      return;
    }
    const answer = await decide(params);
    if (answer) {
      controller.answer(params.toolUseId, cardResult(params, answer));
    }
  };
  const never = new CancellationTokenSource().token;

  return [
    vscode.commands.registerCommand("handrail.chat.ask", async (given?: unknown) => {
      let question = typeof given === "string" ? given : undefined;
      const selection = selectionAttachment();
      if (question === undefined) {
        question = await vscode.window.showInputBox({ title: "Ask handrail", prompt: selection ? `The selection (${selection.label}) is sent along` : undefined });
      }
      if (!question) {
        return;
      }
      if (selection) {
        controller.attach(selection);
      }
      await chatView.reveal();
      await controller.ask(question);
    }),
    vscode.commands.registerCommand("handrail.chat.addSelection", async () => {
      const selection = selectionAttachment();
      if (!selection) {
        void vscode.window.showInformationMessage("Select some text in an editor first.");
        return;
      }
      controller.attach(selection);
      await chatView.reveal();
    }),
    vscode.commands.registerCommand("handrail.chat.addActiveFile", async () => {
      const document = vscode.window.activeTextEditor?.document;
      if (!document || document.uri.scheme !== "file") {
        void vscode.window.showInformationMessage("Open a file in an editor first.");
        return;
      }
      const label = vscode.workspace.asRelativePath(document.uri);
      controller.attach({ kind: "file", path: label, absolute: document.uri.fsPath, label });
      await chatView.reveal();
    }),
    vscode.commands.registerCommand("handrail.chat.cancel", () => controller.stop()),
    vscode.commands.registerCommand("handrail.chat.newSession", async () => {
      controller.newSession();
      await chatView.reveal();
    }),
    vscode.commands.registerCommand("handrail.chat.setMode", async () => {
      const current = controller.current.status.mode;
      const picked = await vscode.window.showQuickPick(modeChoices(current), { title: "handrail: permission mode", matchOnDetail: true });
      if (!picked || picked.mode === current) {
        return;
      }
      const warning = modeWarning(picked.mode);
      if (warning && (await vscode.window.showWarningMessage(warning, { modal: true }, "Switch to Bypass")) !== "Switch to Bypass") {
        return;
      }
      const commands = await server.ready();
      if (!commands) {
        void vscode.window.showErrorMessage("The handrail server is not running (see the handrail output).");
        return;
      }
      try {
        await commands.setMode(picked.mode, controller.current.sessionId);
        controller.setMode(picked.mode);
      } catch (error) {
        void vscode.window.showErrorMessage(`handrail: ${errorText(error)}`); // e.g. bypass disabled by policy
      }
    }),
    vscode.commands.registerCommand("handrail.chat.pickModel", async () => {
      const config = vscode.workspace.getConfiguration("handrail");
      const current = config.get<string>("model", "");
      const items: (vscode.QuickPickItem & { model: string | null })[] = [
        { label: `${current === "" ? "$(check) " : ""}Server default`, description: "the server's own choice (HANDRAIL_MODEL, or its default)", model: "" },
        ...[...new Set([...(current ? [current] : []), ...SUGGESTED_MODELS])].map((m) => ({ label: `${m === current ? "$(check) " : ""}${m}`, model: m })),
        { label: "$(edit) Another model…", description: "type its name (a gateway's, say)", model: null },
      ];
      const picked = await vscode.window.showQuickPick(items, { title: "handrail: model for the next turns" });
      if (!picked) {
        return;
      }
      const model = picked.model ?? (await vscode.window.showInputBox({ title: "handrail: model name", value: current }));
      if (model === undefined) {
        return;
      }
      await config.update("model", model.trim(), vscode.ConfigurationTarget.Global);
    }),
    vscode.commands.registerCommand("handrail.chat.openModelSetting", () => vscode.commands.executeCommand("workbench.action.openSettings", "handrail.model")),
    vscode.commands.registerCommand("handrail.chat.showPermissionLog", async () => {
      const file = auditLogPath(controller.current.sessionId, process.env, os.homedir());
      try {
        await fs.access(file);
      } catch {
        void vscode.window.showInformationMessage(`No permission decisions were logged in this session yet (${file}).`);
        return;
      }
      await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
    }),
    vscode.commands.registerCommand("handrail.chat.mcpStatus", withServer(async (commands) => {
      try {
        const servers = await configuredMcpServers(commands);
        await s.refreshMcp();
        if (!servers) {
          return;
        }
        const picked = await vscode.window.showQuickPick(servers.map((m) => ({
          label: `${m.name}: ${m.state}`,
          description: `${m.source} · ${m.tools.length} tools`,
          detail: m.error ? `${m.error}${m.stderrTail ? ` — ${m.stderrTail}` : ""}` : m.tools.join(", "),
          server: m,
        })), { title: "handrail: MCP servers (pick one to approve, sign in or out, restart)" });
        const actions = picked ? serverActions(picked.server) : [];
        if (!picked || actions.length === 0) {
          return;
        }
        const name = picked.server.name;
        const action = await vscode.window.showQuickPick(actions.map((a) => ({ label: ACTION_LABELS[a], action: a })), { title: `handrail: MCP server '${name}'` });
        if (!action) {
          return;
        }
        const outcome = await runMcpAction(commands, picked.server, action.action);
        if (!outcome) {
          return;
        }
        void (outcome.ok ? vscode.window.showInformationMessage(`handrail: ${outcome.text}`) : vscode.window.showWarningMessage(`handrail: ${outcome.text}`));
        await s.refreshMcp();
      } catch (error) {
        void vscode.window.showWarningMessage(`handrail: MCP status is not available from this server (${errorText(error)}).`);
      }
    })),
    vscode.commands.registerCommand("handrail.chat.restartMcpServer", withServer(async (commands) => {
      try {
        const servers = await configuredMcpServers(commands);
        if (!servers) {
          return;
        }
        const picked = await vscode.window.showQuickPick(servers.map((m) => ({ label: m.name, description: m.state, detail: m.error })), { title: "handrail: restart which MCP server?" });
        if (!picked) {
          return;
        }
        const result = await commands.restartMcpServer(picked.label);
        void (result.restarted
          ? vscode.window.showInformationMessage(`handrail: restarting MCP server '${picked.label}'.`)
          : vscode.window.showWarningMessage(`handrail: could not restart '${picked.label}': ${result.reason ?? "unknown reason"}`));
      } catch (error) {
        void vscode.window.showWarningMessage(`handrail: restarting MCP servers is not available from this server (${errorText(error)}).`);
      }
    })),
    vscode.commands.registerCommand("handrail.chat.approveProjectSettings", s.approveProject),
    vscode.commands.registerCommand("handrail.chat.setApiKey", async () => {
      const key = await vscode.window.showInputBox({ title: "handrail: Anthropic API key", prompt: "Stored in VS Code's secret storage (empty clears it)", password: true, ignoreFocusOut: true });
      if (key !== undefined) {
        await s.setApiKey(key || undefined);
      }
    }),
    vscode.commands.registerCommand("handrail.chat.tryDemo", s.tryDemo),
    vscode.commands.registerCommand("handrail.chat.restartServer", () => server.start()),
    vscode.commands.registerCommand("handrail.chat.openServerSettings", s.openServerSettings),
    vscode.commands.registerCommand("handrail.chat.showOutput", () => s.output.show(true)),
    // Answering the open permission question from anywhere (keybindings while one is open).
    vscode.commands.registerCommand("handrail.chat.permission.answer", async () => {
      const params = openQuestion();
      if (params) {
        const result = await s.permissionUi.ask(params, never);
        if (result) {
          controller.answer(params.toolUseId, result);
        }
      }
    }),
    vscode.commands.registerCommand("handrail.chat.permission.allow", answerWith(() => Promise.resolve({ decision: "allow" }))),
    vscode.commands.registerCommand("handrail.chat.permission.deny", answerWith(() => Promise.resolve({ decision: "deny" }))),
    vscode.commands.registerCommand("handrail.chat.permission.allowAlways", answerWith(async (params) => {
      if (params.tool === PLAN_TOOL) {
        return { decision: "allow" };
      }
      const rules = alwaysRules(params);
      const [where] = (await pick(destinationItems(rules), { title: `Always allow ${visible(rules.join(", "))}: remember where?` }, never)) ?? [];
      return where ? { decision: "allowAlways", destination: where.destination } : undefined;
    })),
    vscode.commands.registerCommand("handrail.chat.permission.denyWithFeedback", answerWith(async (params) => {
      const feedback = await input(`Deny ${params.tool}`, "Tell the agent why (or what to do instead)", never);
      return feedback === undefined ? undefined : { decision: "deny", feedback };
    })),
  ];
}

/** Run the command behind a chat view button. */
export async function runHostCommand(command: HostCommand): Promise<void> {
  await vscode.commands.executeCommand(HOST_COMMAND_IDS[command]);
}
