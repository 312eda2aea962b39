/** The extension's entry point: wires the server client, chat view, permission questions, status bar, commands and trust. */

import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as vscode from "vscode";
import { ChatController, type ChatHost } from "../logic/chatController";
import type { Banner } from "../logic/chatModel";
import type { HandrailUi } from "../logic/handlers";
import { diagnosticsParams, shouldForward } from "../logic/diagnostics";
import { foldersOf, rankCandidates, type Attachment, type PathCandidate } from "../logic/mentions";
import { readStored, remember } from "../logic/pastSessions";
import { displayPath, relativeToRoots } from "../logic/paths";
import { approvableItems, approvalDetail } from "../logic/projectApproval";
import { DIAGNOSTICS, DID_CHANGE_TRUST, type ChatEvent, type PermissionParams, type PermissionResult } from "../logic/protocol";
import { DEFAULT_COMMAND, type LaunchSettings } from "../logic/serverLaunch";
import { RecentLists } from "../logic/recentLists";
import { settingsChange } from "../logic/settingsPush";
import { TAB_COMMANDS, settingsTab } from "../logic/settingsTarget";
import { transcriptPath } from "../logic/statePaths";
import { askUser } from "./askUserUi";
import { elicit } from "./elicitUi";
import { undoTurn } from "./checkpointUi";
import { CHAT_VIEW_ID, ChatViewProvider } from "./chatView";
import { registerCommands, runHostCommand } from "./commands";
import { Demo } from "./demo";
import { PermissionUi, PROPOSED_SCHEME, ProposalProvider } from "./permissionUi";
import { findPython } from "./python";
import { ServerClient, type ServerProblem } from "./serverClient";
import { StatusBar } from "./statusBar";
import type { CancellationToken } from "vscode-jsonrpc";
import { CancellationTokenSource } from "vscode-jsonrpc";

const API_KEY_SECRET = "handrail.apiKey";
/** The workspace's sessions (ids, titles, dates), so they are listed again after a reload. */
const SESSIONS_KEY = "handrail.sessions";
const SERVER_SETTINGS = ["server.pythonPath", "server.command"];
/** Files larger than this are not kept for a card's diff. */
const MAX_SNAPSHOT_BYTES = 2 * 1024 * 1024;
const EXCLUDE = "**/{node_modules,.git,.venv,venv,__pycache__,dist,out,build,.mypy_cache,.pytest_cache}/**";

function roots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
}

/** A session's saved transcript, or null (none, or too large to draw). */
function readTranscript(sessionId: string): string | null {
  const file = transcriptPath(sessionId, process.env, os.homedir());
  try {
    return fs.statSync(file).size <= 4 * MAX_SNAPSHOT_BYTES ? fs.readFileSync(file, "utf8") : null;
  } catch {
    return null;
  }
}

/** The text of a file as the user sees it: the open document, else the disk (small files only); null when unreadable. */
function readText(path: string): string | null {
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === "file" && d.uri.fsPath === path);
  if (doc) {
    return doc.getText();
  }
  try {
    return fs.statSync(path).size <= MAX_SNAPSHOT_BYTES ? fs.readFileSync(path, "utf8") : null;
  } catch {
    return null;
  }
}

/** A workspace path (absolute or relative) as a file URI, or null when it is outside the workspace or missing. */
function workspaceUri(given: string): { uri: vscode.Uri; relative: string; isFolder: boolean } | null {
  const folders = roots();
  const candidates = given.startsWith("/") ? [given] : folders.map((root) => `${root}/${given.replace(/^\.\//, "").replace(/\/$/, "")}`);
  for (const absolute of candidates) {
    const relative = relativeToRoots(absolute, folders);
    if (relative === null || relative.split(/[\\/]/).includes("..")) {
      continue;
    }
    try {
      const stat = fs.statSync(absolute);
      return { uri: vscode.Uri.file(absolute), relative, isFolder: stat.isDirectory() };
    } catch {
      continue;
    }
  }
  return null;
}

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("handrail");
  const proposals = new ProposalProvider();
  const permissionUi = new PermissionUi(proposals, (line) => output.appendLine(line));
  const statusBar = new StatusBar("handrail.chat.setMode");
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration("handrail");

  const apiKey = async (): Promise<string | undefined> => (await context.secrets.get(API_KEY_SECRET)) || undefined;
  const hasKey = async (): Promise<boolean> => Boolean((await apiKey()) || process.env.ANTHROPIC_API_KEY);

  const settings = async (): Promise<LaunchSettings> => {
    const c = config();
    const command = c.get<string>("server.command", DEFAULT_COMMAND);
    let pythonPath = c.get<string>("server.pythonPath", "");
    if (!pythonPath.trim() && (command.trim() === DEFAULT_COMMAND || !command.trim())) {
      const found = await findPython("");
      if (found) {
        pythonPath = found.python;
        output.appendLine(`using ${found.python} (${found.source === "pythonExtension" ? "the Python extension's interpreter" : "the workspace's virtual environment"}); set handrail.server.pythonPath to choose another`);
      }
    }
    return {
      command,
      pythonPath,
      model: c.get<string>("model", ""),
      baseUrl: c.get<string>("baseUrl", ""),
      maxToolConcurrency: c.get<number>("maxToolConcurrency", 0),
      apiKey: await apiKey(),
      workspaceTrusted: vscode.workspace.isTrusted,
    };
  };
  const startTimeout = (): number => config().get<number>("server.startTimeout", 30);

  /** One place for set-up problems: a banner over the chat that goes away by itself when fixed; no toasts. */
  const showProblem = (problem: ServerProblem | null): void => {
    const banner: Banner | null = problem && {
      level: problem.cause === "crashed" ? "warning" : "error",
      text: problem.message,
      actions: problem.cause === "settings"
        ? [{ label: "Open Settings", command: "openServerSettings" }, { label: "Restart Server", command: "restartServer" }, { label: "Show Output", command: "showOutput" }]
        : [{ label: "Restart Server", command: "restartServer" }, { label: "Show Output", command: "showOutput" }],
    };
    controller.setBanner(banner);
  };

  // eslint-disable-next-line prefer-const -- assigned below: the host refers to them, they refer to the host's UI
  let server: ServerClient;
  // eslint-disable-next-line prefer-const
  let demo: Demo;
  const chatView = new ChatViewProvider(context.extensionUri, (message) => controller.handleMessage(message));

  const host: ChatHost = {
    post: (op) => chatView.post(op),
    commands: async (sessionId) => (demo.owns(sessionId) ? demo.commands() : server.ready()),
    newSessionId: () => randomUUID(),
    approveProject: () => approveProject(),
    statusChanged: (status) => statusBar.update(status),
    run: runHostCommand,
    readText,
    openFile: async (path, line) => {
      const target = workspaceUri(path) ?? (path.startsWith("/") && fs.existsSync(path) && demoRoot && path.startsWith(demoRoot) ? { uri: vscode.Uri.file(path), isFolder: false } : null);
      if (!target) {
        void vscode.window.showInformationMessage(`${path} is not a file of this workspace.`);
        return;
      }
      if (target.isFolder) {
        await vscode.commands.executeCommand("revealInExplorer", target.uri);
        return;
      }
      const position = line ? new vscode.Position(line - 1, 0) : undefined;
      await vscode.window.showTextDocument(target.uri, { preview: true, ...(position ? { selection: new vscode.Range(position, position) } : {}) });
    },
    openDiff: async (params) => {
      await permissionUi.showProposal(params);
    },
    copy: (text) => Promise.resolve(vscode.env.clipboard.writeText(text)),
    complete: async (query): Promise<PathCandidate[]> => {
      const files = await vscode.workspace.findFiles("**/*", EXCLUDE, 5000);
      const paths = files.map((u) => vscode.workspace.asRelativePath(u, false));
      const candidates: PathCandidate[] = [...foldersOf(paths).map((p) => ({ path: p, kind: "folder" as const })), ...paths.map((p) => ({ path: p, kind: "file" as const }))];
      return rankCandidates(query, candidates);
    },
    mcpPrompts: () => mcpLists.get("prompts", (commands) => commands.mcpPrompts()),
    mcpResources: () => mcpLists.get("resources", (commands) => commands.mcpResources()),
    resolveMention: (path): Promise<Attachment | null> => {
      const found = workspaceUri(path);
      return Promise.resolve(found && {
        id: path, kind: found.isFolder ? "folder" : "file", path: found.relative, absolute: found.uri.fsPath,
        label: found.isFolder ? `${found.relative}/` : found.relative,
      });
    },
    dropped: (uris) => Promise.resolve(uris.flatMap((raw) => {
      let uri: vscode.Uri;
      try {
        uri = raw.startsWith("/") ? vscode.Uri.file(raw) : vscode.Uri.parse(raw, true);
      } catch {
        return [];
      }
      const found = uri.scheme === "file" ? workspaceUri(uri.fsPath) : null;
      return found ? [found.isFolder ? `${found.relative}/` : found.relative] : [];
    })),
    questionsChanged: (open) => void vscode.commands.executeCommand("setContext", "handrail.permissionPending", open > 0),
    undoFiles: (checkpoint) => undoTurn(checkpoint, proposals, (path) => displayPath(path, roots())),
    sessionChanged: (session) => {
      if (!demo.owns(session.id)) {
        void context.workspaceState.update(SESSIONS_KEY, remember(readStored(context.workspaceState.get(SESSIONS_KEY)), session));
      }
    },
    readTranscript,
  };
  const controller = new ChatController(host);
  const mcpLists = new RecentLists(() => Promise.resolve(demo.owns(controller.current.sessionId) ? null : server.commands()));
  controller.addPastSessions(readStored(context.workspaceState.get(SESSIONS_KEY)).filter((s) => fs.existsSync(transcriptPath(s.id, process.env, os.homedir()))));
  let demoRoot: string | null = null;

  /** A permission request: the chat card asks; with `handrail.permissionPrompt: quickPick` a quick pick asks too. */
  const permission = (params: PermissionParams, token: CancellationToken): Promise<PermissionResult> => {
    const answered = controller.askPermission(params, token);
    if (config().get<string>("permissionPrompt", "inline") === "quickPick") {
      const closing = new CancellationTokenSource();
      token.onCancellationRequested(() => closing.cancel());
      void answered.finally(() => closing.cancel());
      void permissionUi.ask(params, closing.token).then((result) => {
        if (result) {
          controller.answer(params.toolUseId, result);
        }
      });
    }
    return answered;
  };

  const ui: HandrailUi = {
    permission,
    askUser,
    mcpApproval: (params, token) => controller.askMcpApproval(params, token),
    elicit,
    saveDocument: async (uri: string) => {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
      return doc ? doc.save() : false;
    },
    chat: (event: ChatEvent) => {
      controller.handleEvent(event);
      if (event.kind === "turnEnd" && !demo.owns(event.sessionId)) {
        void refreshPermissions();
        void refreshMcp();
      }
    },
  };

  server = new ServerClient({ output, ui, settings, startTimeout, onProblem: showProblem });
  demo = new Demo(output, ui);

  const refreshPermissions = async (): Promise<void> => {
    const trusted = vscode.workspace.isTrusted;
    try {
      const commands = await server.ready();
      const report = (await commands?.permissions(controller.current.sessionId)) ?? null;
      if (!demo.owns(controller.current.sessionId)) {
        controller.setPermissions(report, trusted);
      }
      void vscode.commands.executeCommand("setContext", "handrail.projectSettingsWaiting", approvableItems(report).length > 0);
    } catch (error) {
      output.appendLine(`handrail.permissions: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const approveProject = async (): Promise<void> => {
    const commands = await server.ready();
    if (!commands) {
      void vscode.window.showErrorMessage("The handrail server is not running.");
      return;
    }
    const items = approvableItems(await commands.permissions(controller.current.sessionId));
    if (items.length === 0) {
      void vscode.window.showInformationMessage("Nothing in this workspace's handrail settings waits for your approval (no .handrail/settings.json item is held back).");
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

  /** The MCP servers' states for the status bar: asked when the server starts, after each turn, every 20 s. */
  const refreshMcp = async (): Promise<void> => {
    try {
      statusBar.setMcp((await server.commands()?.mcpStatus()) ?? []);
    } catch (error) {
      output.appendLine(`handrail.mcpStatus: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const mcpPoll = setInterval(() => void refreshMcp(), 20_000);

  const openServerSettings = async (): Promise<void> => {
    const c = config();
    const tab = settingsTab(SERVER_SETTINGS.map((name) => c.inspect(name)), vscode.env.remoteName);
    await vscode.commands.executeCommand(TAB_COMMANDS[tab], "handrail.server");
  };

  const updateSetup = async (): Promise<void> => {
    // the demo's sample copy counts as a workspace folder for paths: its cards show them relative too
    controller.updateSetup({ server: server.state, hasKey: await hasKey(), model: config().get<string>("model", ""), roots: [...roots(), ...(demoRoot ? [demoRoot] : [])] });
  };

  const tryDemo = async (): Promise<void> => {
    await chatView.reveal();
    const session = controller.newSession();
    controller.notice("Scripted demo: a fake model on 127.0.0.1 plays the agent in a copy of a small sample project, through the real handrail server. It asks you before it edits or runs anything — answer in the cards below. Set an API key to work on your own code.");
    try {
      const model = await demo.start(await settings(), session.sessionId, startTimeout, (problem) => problem && controller.notice(problem.message, "error"));
      demoRoot = model.workspace;
      await updateSetup();
      await vscode.window.showTextDocument(Demo.sampleFile(model), { preview: true, preserveFocus: true, viewColumn: vscode.ViewColumn.One });
      await controller.ask(model.prompt);
    } catch (error) {
      controller.notice(`The demo could not start: ${error instanceof Error ? error.message : String(error)}`, "error");
    }
  };

  const setApiKey = async (key: string | undefined): Promise<void> => {
    if (key) {
      await context.secrets.store(API_KEY_SECRET, key);
    } else {
      await context.secrets.delete(API_KEY_SECRET);
    }
    await updateSetup();
    await server.start(); // the key reaches the server through its environment
  };

  const forwardDiagnostics = (uris: readonly vscode.Uri[]): void => {
    for (const uri of uris) {
      if (shouldForward(uri.scheme)) {
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        server.notify(DIAGNOSTICS, diagnosticsParams(uri.toString(), doc?.version ?? null, vscode.languages.getDiagnostics(uri)));
      }
    }
  };

  server.onDidChangeState((state) => {
    statusBar.setServer(state);
    void updateSetup();
    if (state === "stopped") {
      void controller.resyncBackground(null);
    }
    if (state === "running") {
      void refreshPermissions();
      void refreshMcp();
      void server.ready().then((commands) => controller.resyncBackground(commands ? (id) => commands.backgroundTasks(id) : null));
      forwardDiagnostics(vscode.languages.getDiagnostics().map(([uri]) => uri)); // a (re)started server knows none
    }
  });

  context.subscriptions.push(
    { dispose: () => clearInterval(mcpPoll) },
    output,
    statusBar,
    server,
    demo,
    vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, proposals),
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chatView, { webviewOptions: { retainContextWhenHidden: true } }),
    ...registerCommands({ output, controller, chatView, server, permissionUi, approveProject, setApiKey, tryDemo, openServerSettings, refreshMcp }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      server.notify(DID_CHANGE_TRUST, { trusted: true });
      void refreshPermissions();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void updateSetup()),
    vscode.languages.onDidChangeDiagnostics((event) => forwardDiagnostics(event.uris)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      const change = settingsChange((section) => event.affectsConfiguration(section));
      if (change === "restart") {
        controller.notice("handrail settings changed: restarting the server.");
        void server.start();
      } else if (change === "push") {
        // pushed only to a running server, never to one being stopped or started (no failed notification)
        server.notify("workspace/didChangeConfiguration", { settings: { handrail: config() } });
        void updateSetup();
      }
    }),
  );
  void updateSetup();
  void server.start();
}

export function deactivate(): void {}
