/** Starts `handrail lsp` through vscode-languageclient, registers handrail's handlers, restarts it on crash. */

import * as vscode from "vscode";
import {
  CloseAction, ErrorAction, LanguageClient, State,
  type CloseHandlerResult, type ErrorHandlerResult, type GenericNotificationHandler, type GenericRequestHandler,
  type LanguageClientOptions, type ServerOptions, type StaticFeature,
} from "vscode-languageclient/node";
import type { ClientCapabilities, FeatureState } from "vscode-languageclient";
import { HandrailCommands, registerHandlers, type Endpoint, type HandrailUi } from "../logic/handlers";
import { EXPERIMENTAL_CAPABILITIES } from "../logic/protocol";
import { buildLaunch, type LaunchSettings } from "../logic/serverLaunch";

/** Declares `capabilities.experimental.handrail` (permission, save, askUser, diagnostics). */
class HandrailCapabilities implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.experimental = { ...(capabilities.experimental as object | undefined), ...EXPERIMENTAL_CAPABILITIES };
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: "static" };
  }
  clear(): void {}
}

/** Crashes allowed in RESTART_WINDOW_MS before giving up (a server that dies at start would loop). */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

export type ServerState = "starting" | "running" | "stopped";

export class ServerClient implements vscode.Disposable {
  private client: LanguageClient | null = null;
  private crashes: number[] = [];
  private starting: Promise<void> = Promise.resolve();
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  readonly onDidChangeState = this.stateEmitter.event;
  state: ServerState = "stopped";

  constructor(
    private readonly output: vscode.OutputChannel,
    private readonly ui: HandrailUi,
    private readonly settings: () => Promise<LaunchSettings>,
    private readonly onCrash: (message: string) => void,
  ) {}

  /** The server's commands once a start in progress has finished; null if it is not running. */
  async ready(): Promise<HandrailCommands | null> {
    await this.starting;
    return this.commands();
  }

  /** The server's commands, while it runs. */
  commands(): HandrailCommands | null {
    return this.client?.isRunning() ? new HandrailCommands(this.endpoint(this.client)) : null;
  }

  /** Send a notification if the server runs (dropped otherwise: the state is re-sent at start). */
  notify(method: string, params: unknown): void {
    if (this.client?.isRunning()) {
      this.client.sendNotification(method, params).catch((e: unknown) => this.output.appendLine(`notify ${method}: ${String(e)}`));
    }
  }

  private endpoint(client: LanguageClient): Endpoint {
    return {
      onRequest: (method, handler) => client.onRequest(method, handler as GenericRequestHandler<unknown, unknown>),
      onNotification: (method, handler) => client.onNotification(method, handler as GenericNotificationHandler),
      sendRequest: (method, params) => client.sendRequest(method, params),
    };
  }

  private setState(state: ServerState): void {
    this.state = state;
    this.stateEmitter.fire(state);
  }

  /** Start (or restart with fresh settings). */
  start(): Promise<void> {
    this.starting = this.starting.then(() => this.restart());
    return this.starting;
  }

  private async restart(): Promise<void> {
    await this.stop();
    const launch = buildLaunch(await this.settings(), process.env);
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const serverOptions: ServerOptions = { command: launch.command, args: launch.args, options: { env: launch.env, ...(cwd ? { cwd } : {}) } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      outputChannel: this.output,
      initializationOptions: launch.initializationOptions,
      synchronize: { configurationSection: "handrail" },
      errorHandler: {
        error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue }),
        closed: (): CloseHandlerResult => this.closed(),
      },
    };
    const client = new LanguageClient("handrail", "handrail", serverOptions, clientOptions);
    client.registerFeature(new HandrailCapabilities());
    registerHandlers(this.endpoint(client), this.ui);
    client.onDidChangeState((e) => {
      this.setState(e.newState === State.Running ? "running" : e.newState === State.Starting ? "starting" : "stopped");
    });
    this.client = client;
    this.setState("starting");
    try {
      await client.start();
    } catch (error) {
      this.setState("stopped");
      const message = `handrail could not start \`${[launch.command, ...launch.args].join(" ")}\`: ${error instanceof Error ? error.message : String(error)}. Set handrail.server.command or handrail.server.pythonPath.`;
      this.onCrash(message);
      void vscode.window.showErrorMessage(message, "Open Settings").then((pick) => {
        if (pick) {
          void vscode.commands.executeCommand("workbench.action.openSettings", "handrail.server");
        }
      });
    }
  }

  private closed(): CloseHandlerResult {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < RESTART_WINDOW_MS), now];
    if (this.crashes.length > MAX_RESTARTS) {
      const message = `The handrail server stopped ${this.crashes.length} times in 3 minutes; not restarting. Run "handrail: Restart Server" after fixing it (see the output channel).`;
      this.onCrash(message);
      void vscode.window.showErrorMessage(message);
      return { action: CloseAction.DoNotRestart, message, handled: true };
    }
    const message = "The handrail server stopped unexpectedly and is restarting; the running turn was lost.";
    this.onCrash(message);
    void vscode.window.showWarningMessage(message);
    return { action: CloseAction.Restart, message, handled: true };
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client && client.state !== State.Stopped) {
      try {
        await client.stop(5000);
      } catch (error) {
        this.output.appendLine(`stopping the server: ${String(error)}`);
      }
    }
    this.setState("stopped");
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
  }
}
