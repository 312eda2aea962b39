/** The extension's entry point: wires the server client, chat view, prompts, status bar, commands and trust. */

import { randomUUID } from "node:crypto";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as vscode from "vscode";
import { ChatController, KEY_FAILURES } from "../logic/chatController";
import { diagnosticsParams, shouldForward } from "../logic/diagnostics";
import type { HandrailCommands } from "../logic/handlers";
import { DIAGNOSTICS, DID_CHANGE_TRUST, MODES, type ChatEvent, type McpServerStatus, type TurnError } from "../logic/protocol";
import { promptWithSelection } from "../logic/selection";
import { DEFAULT_COMMAND, type LaunchSettings } from "../logic/serverLaunch";
import { auditLogPath } from "../logic/statePaths";
import { modeLabel } from "../logic/status";
import { askUser } from "./askUserUi";
import { CHAT_VIEW_ID, ChatViewProvider } from "./chatView";
import { approvableItems, approvalDetail } from "../logic/projectApproval";
import { PermissionUi, PROPOSED_SCHEME, ProposalProvider } from "./permissionUi";
import { ServerClient } from "./serverClient";
import { StatusBar } from "./statusBar";

const API_KEY_SECRET = "handrail.apiKey";
const SET_API_KEY = "Set API Key";
const OPEN_SETTINGS = "Open Settings";
const RESTART_SETTINGS = ["handrail.server", "handrail.maxToolConcurrency"]; // model and baseUrl are read per turn

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

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("handrail");
  const proposals = new ProposalProvider();
  const permissionUi = new PermissionUi(proposals, (line) => output.appendLine(line));
  const statusBar = new StatusBar("handrail.chat.setMode");
  let server: ServerClient | null = null;

  const refreshPermissions = async (): Promise<void> => {
    const trusted = vscode.workspace.isTrusted;
    try {
      const commands = await server?.ready();
      controller.setPermissions((await commands?.permissions(controller.current.sessionId)) ?? null, trusted);
    } catch (error) {
      output.appendLine(`handrail.permissions: ${errorText(error)}`);
    }
  };

  const approveProject = async (): Promise<void> => {
    const commands = await server?.ready();
    if (!commands) {
      void vscode.window.showErrorMessage("The handrail server is not running.");
      return;
    }
    const items = approvableItems(await commands.permissions(controller.current.sessionId));
    if (items.length === 0) {
      void vscode.window.showInformationMessage("Nothing in this workspace's handrail settings waits for your approval.");
      return;
    }
    const answer = await vscode.window.showWarningMessage(
      "Approve exactly these items of this workspace's handrail settings?",
      { modal: true, detail: approvalDetail(items) }, "Approve",
    );
    if (answer === "Approve") {
      await commands.approveProjectSettings(items.map((item) => item.digest ?? ""));
      await refreshPermissions();
    }
  };

  const chatView = new ChatViewProvider(context.extensionUri, (message) => controller.handleMessage(message));
  const controller = new ChatController({
    post: (op) => chatView.post(op),
    commands: async () => (await server?.ready()) ?? null,
    newSessionId: () => randomUUID(),
    approveProject,
    statusChanged: (status) => statusBar.update(status),
    turnFailed: (error) => void offerFix(error),
  });

  /** A failed turn's message, with the fix this extension can run: set the key, or open the model setting. */
  const offerFix = async (error: TurnError): Promise<void> => {
    if (KEY_FAILURES.includes(error.kind)) {
      if ((await vscode.window.showErrorMessage(`handrail: ${error.message}`, SET_API_KEY)) === SET_API_KEY) {
        await vscode.commands.executeCommand("handrail.chat.setApiKey");
      }
    } else if (error.kind === "model") {
      if ((await vscode.window.showErrorMessage(`handrail: ${error.message}`, OPEN_SETTINGS)) === OPEN_SETTINGS) {
        await vscode.commands.executeCommand("workbench.action.openSettings", "handrail.model");
      }
    }
  };

  const settings = async (): Promise<LaunchSettings> => {
    const config = vscode.workspace.getConfiguration("handrail");
    return {
      command: config.get<string>("server.command", DEFAULT_COMMAND),
      pythonPath: config.get<string>("server.pythonPath", ""),
      model: config.get<string>("model", ""),
      baseUrl: config.get<string>("baseUrl", ""),
      maxToolConcurrency: config.get<number>("maxToolConcurrency", 0),
      apiKey: (await context.secrets.get(API_KEY_SECRET)) || undefined,
      workspaceTrusted: vscode.workspace.isTrusted,
    };
  };

  server = new ServerClient(output, {
    permission: (params, token) => {
      controller.promptOpened(params);
      return permissionUi.ask(params, token);
    },
    askUser,
    saveDocument: async (uri) => {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
      return doc ? doc.save() : false;
    },
    chat: (event: ChatEvent) => {
      controller.handleEvent(event);
      if (event.kind === "turnEnd") {
        void refreshPermissions();
      }
    },
  }, settings, (message) => controller.notice(message, "warning"));

  const forwardDiagnostics = (uris: readonly vscode.Uri[]): void => {
    for (const uri of uris) {
      if (shouldForward(uri.scheme)) {
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        server?.notify(DIAGNOSTICS, diagnosticsParams(uri.toString(), doc?.version ?? null, vscode.languages.getDiagnostics(uri)));
      }
    }
  };

  server.onDidChangeState((state) => {
    statusBar.setServer(state);
    if (state === "stopped") {
      void controller.resyncBackground(null);
    }
    if (state === "running") {
      void refreshPermissions();
      void server?.ready().then((commands) => controller.resyncBackground(commands ? (id) => commands.backgroundTasks(id) : null));
      forwardDiagnostics(vscode.languages.getDiagnostics().map(([uri]) => uri)); // a (re)started server knows none
    }
  });

  const withServer = <T>(run: (commands: NonNullable<ReturnType<ServerClient["commands"]>>) => Promise<T>) => async (): Promise<T | undefined> => {
    const commands = await server?.ready();
    if (!commands) {
      void vscode.window.showErrorMessage("The handrail server is not running (see the handrail output).");
      return undefined;
    }
    return run(commands);
  };

  context.subscriptions.push(
    output,
    statusBar,
    server,
    vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, proposals),
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chatView, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.commands.registerCommand("handrail.chat.ask", async (given?: unknown) => {
      let question = typeof given === "string" ? given : undefined;
      const editor = vscode.window.activeTextEditor;
      if (question === undefined) {
        question = await vscode.window.showInputBox({ title: "Ask handrail", prompt: editor && !editor.selection.isEmpty ? "The selection is sent along" : undefined });
      }
      if (!question) {
        return;
      }
      const selection = editor && !editor.selection.isEmpty ? {
        path: vscode.workspace.asRelativePath(editor.document.uri),
        languageId: editor.document.languageId,
        startLine: editor.selection.start.line + 1,
        endLine: editor.selection.end.line + 1,
        text: editor.document.getText(editor.selection),
      } : null;
      await chatView.reveal();
      await controller.ask(promptWithSelection(question, selection));
    }),
    vscode.commands.registerCommand("handrail.chat.cancel", () => controller.stop()),
    vscode.commands.registerCommand("handrail.chat.newSession", async () => {
      controller.newSession();
      await chatView.reveal();
    }),
    vscode.commands.registerCommand("handrail.chat.setMode", withServer(async (commands) => {
      const current = controller.current.status.mode;
      const picked = await vscode.window.showQuickPick(
        MODES.map((mode) => ({ label: modeLabel(mode), description: mode === current ? `${mode} (current)` : mode, mode })),
        { title: "handrail: permission mode" },
      );
      if (!picked) {
        return;
      }
      try {
        await commands.setMode(picked.mode, controller.current.sessionId);
        controller.setMode(picked.mode);
      } catch (error) {
        void vscode.window.showErrorMessage(`handrail: ${errorText(error)}`); // e.g. bypass disabled by policy
      }
    })),
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
        if (!servers) {
          return;
        }
        await vscode.window.showQuickPick(servers.map((s) => ({
          label: `${s.name}: ${s.state}`,
          description: `${s.source} · ${s.tools.length} tools`,
          detail: s.error ? `${s.error}${s.stderrTail ? ` — ${s.stderrTail}` : ""}` : s.tools.join(", "),
        })), { title: "handrail: MCP servers" });
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
        const picked = await vscode.window.showQuickPick(servers.map((s) => ({
          label: s.name,
          description: s.state,
          detail: s.error,
        })), { title: "handrail: restart which MCP server?" });
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
    vscode.commands.registerCommand("handrail.chat.approveProjectSettings", approveProject),
    vscode.commands.registerCommand("handrail.chat.setApiKey", async () => {
      const key = await vscode.window.showInputBox({ title: "handrail: Anthropic API key", prompt: "Stored in VS Code's secret storage (empty clears it)", password: true, ignoreFocusOut: true });
      if (key === undefined) {
        return;
      }
      if (key) {
        await context.secrets.store(API_KEY_SECRET, key);
      } else {
        await context.secrets.delete(API_KEY_SECRET);
      }
      await server?.start(); // the key reaches the server through its environment
    }),
    vscode.commands.registerCommand("handrail.chat.restartServer", () => server?.start()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      server?.notify(DID_CHANGE_TRUST, { trusted: true });
      void refreshPermissions();
    }),
    vscode.languages.onDidChangeDiagnostics((event) => forwardDiagnostics(event.uris)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (RESTART_SETTINGS.some((s) => event.affectsConfiguration(s))) {
        controller.notice("handrail settings changed: restarting the server.");
        void server?.start();
      }
    }),
  );
  void server.start();
}

export function deactivate(): void {}
