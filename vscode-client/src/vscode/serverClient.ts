/**
 * Starts `handrail lsp` through vscode-languageclient, registers handrail's handlers, restarts it on crash.
 * A start has a deadline and a restart always works: the start in progress is abandoned and its process
 * killed (see logic/serverStart.ts). Failures are reported once, to `onProblem`, never as extra toasts.
 */

import { spawn, type ChildProcess } from "node:child_process";
import * as vscode from "vscode";
import {
  CloseAction, ErrorAction, LanguageClient, State,
  type CloseHandlerResult, type ErrorHandlerResult, type GenericNotificationHandler, type GenericRequestHandler,
  type LanguageClientOptions, type ServerOptions, type StaticFeature,
} from "vscode-languageclient/node";
import type { ClientCapabilities, FeatureState } from "vscode-languageclient";
import { HandrailCommands, registerHandlers, type Endpoint, type HandrailUi } from "../logic/handlers";
import { EXPERIMENTAL_CAPABILITIES } from "../logic/protocol";
import { notifyIfRunning } from "../logic/settingsPush";
import { buildLaunch, type Launch, type LaunchSettings } from "../logic/serverLaunch";
import { StartSupervisor, type Launched, type StartOutcome } from "../logic/serverStart";

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

/** A LanguageClient whose errors go to the output channel only: the extension reports each failure once, itself. */
class QuietClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
}

/** Crashes allowed in RESTART_WINDOW_MS before giving up (a server that dies at start would loop). */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

export type ServerState = "starting" | "running" | "stopped";

/** A problem the user should see until it is fixed (null: fixed), with what to do about it. */
export interface ServerProblem {
  message: string;
  /** "settings": the command or interpreter is wrong; "crashed": it stopped. */
  cause: "settings" | "crashed";
}

export interface ServerClientOptions {
  output: vscode.OutputChannel;
  ui: HandrailUi;
  settings: () => Promise<LaunchSettings>;
  /** Seconds the server has to answer `initialize`. */
  startTimeout: () => number;
  onProblem: (problem: ServerProblem | null) => void;
  /** The server's workspace folder when it is not the window's (the demo's sample). */
  workspaceFolder?: vscode.WorkspaceFolder;
  /** What `workspace/configuration` answers for the `handrail` section instead of the user's settings (the demo's). */
  configuration?: Record<string, unknown>;
  name?: string;
}

function kill(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL");
  }
}

export class ServerClient implements vscode.Disposable {
  private client: LanguageClient | null = null;
  private crashes: number[] = [];
  private readonly supervisor: StartSupervisor;
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  readonly onDidChangeState = this.stateEmitter.event;
  state: ServerState = "stopped";

  constructor(private readonly o: ServerClientOptions) {
    this.supervisor = new StartSupervisor(() => this.launch(), () => Math.max(1, o.startTimeout()) * 1000);
  }

  /** The server's commands once the newest start has finished; null if it is not running. */
  async ready(): Promise<HandrailCommands | null> {
    await this.supervisor.settled();
    return this.commands();
  }

  /** The server's commands, while it runs. */
  commands(): HandrailCommands | null {
    return this.client?.isRunning() ? new HandrailCommands(this.endpoint(this.client)) : null;
  }

  /** Send a notification if the server runs (dropped otherwise: the state is re-sent at start). */
  notify(method: string, params: unknown): void {
    notifyIfRunning(this.client, method, params, (line) => this.o.output.appendLine(line));
  }

  private endpoint(client: LanguageClient): Endpoint {
    return {
      onRequest: (method, handler) => client.onRequest(method, handler as GenericRequestHandler<unknown, unknown>),
      onNotification: (method, handler) => client.onNotification(method, handler as GenericNotificationHandler),
      sendRequest: (method, params) => client.sendRequest(method, params),
    };
  }

  private setState(state: ServerState): void {
    if (state !== this.state) {
      this.state = state;
      this.stateEmitter.fire(state);
    }
  }

  /** Start, or restart with fresh settings; a start in progress (even a hung one) is abandoned. */
  async start(): Promise<void> {
    this.setState("starting");
    const outcome = await this.supervisor.start();
    this.report(outcome);
  }

  private launchLine = "";

  private report(outcome: StartOutcome): void {
    switch (outcome.kind) {
      case "superseded":
        return;
      case "running":
        this.crashes = [];
        this.o.onProblem(null);
        this.setState("running");
        return;
      case "timeout":
        this.setState("stopped");
        this.o.onProblem({
          cause: "settings",
          message: `The handrail server did not start within ${outcome.seconds} s (\`${this.launchLine}\`). Check handrail.server.pythonPath or handrail.server.command, then restart it.`,
        });
        return;
      case "failed":
        this.setState("stopped");
        this.o.onProblem({
          cause: "settings",
          message: `The handrail server could not start (\`${this.launchLine}\`): ${outcome.error}. Set handrail.server.pythonPath to a Python with handrail installed, or handrail.server.command.`,
        });
        return;
    }
  }

  /** Spawn the process ourselves, so that a start that hangs can be killed. */
  private async launch(): Promise<Launched> {
    const launch: Launch = buildLaunch(await this.o.settings(), process.env);
    this.launchLine = [launch.command, ...launch.args].join(" ");
    this.o.output.appendLine(`starting: ${this.launchLine}`);
    const cwd = this.o.workspaceFolder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    let child: ChildProcess | null = null;
    const serverOptions: ServerOptions = () => new Promise<ChildProcess>((resolve, reject) => {
      const proc = spawn(launch.command, launch.args, { env: launch.env, ...(cwd ? { cwd } : {}) });
      child = proc;
      proc.once("error", reject); // e.g. ENOENT: the command does not exist
      proc.once("spawn", () => resolve(proc));
      proc.stderr?.on("data", (chunk: Buffer) => this.o.output.append(chunk.toString()));
    });
    const folder = this.o.workspaceFolder;
    const clientOptions: LanguageClientOptions = {
      documentSelector: folder
        ? [{ scheme: "file", pattern: `${folder.uri.fsPath}/**` }]
        : [{ scheme: "file" }, { scheme: "untitled" }],
      outputChannel: this.o.output,
      initializationOptions: launch.initializationOptions,
      ...(folder ? { workspaceFolder: folder } : {}),
      ...(this.o.configuration ? { middleware: { workspace: { configuration: (params: { items: unknown[] }) => params.items.map(() => this.o.configuration) } } } : {}),
      errorHandler: {
        error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue }),
        closed: (): CloseHandlerResult => this.closed(client),
      },
    };
    const client: LanguageClient = new QuietClient("handrail", this.o.name ?? "handrail", serverOptions, clientOptions);
    client.registerFeature(new HandrailCapabilities());
    // The extension sends workspace/executeCommand itself; registering the server's commands as VS Code
    // commands would only make a second server (the demo's) fail: "command 'handrail.ask' already exists".
    client.getFeature("workspace/executeCommand").register = () => undefined;
    registerHandlers(this.endpoint(client), this.o.ui);
    client.onDidChangeState((e) => {
      if (client === this.client) {
        this.setState(e.newState === State.Running ? "running" : e.newState === State.Starting ? "starting" : "stopped");
        if (e.newState === State.Running) {
          this.o.onProblem(null); // back after a crash
        }
      }
    });
    this.client = client;
    return {
      ready: client.start(),
      abort: async () => {
        if (this.client === client) {
          this.client = null;
        }
        if (client.state === State.Running) {
          await client.stop(2000).catch((e: unknown) => this.o.output.appendLine(`stopping the server: ${String(e)}`));
        }
        if (child) {
          kill(child);
        }
      },
    };
  }

  private closed(client: LanguageClient): CloseHandlerResult {
    if (client !== this.client) {
      return { action: CloseAction.DoNotRestart, handled: true }; // an abandoned start, or a stopped server
    }
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < RESTART_WINDOW_MS), now];
    if (this.crashes.length > MAX_RESTARTS) {
      const message = `The handrail server stopped ${this.crashes.length} times in 3 minutes; not restarting. Restart it after fixing the cause (see the handrail output).`;
      this.o.onProblem({ cause: "crashed", message });
      return { action: CloseAction.DoNotRestart, message, handled: true };
    }
    this.o.onProblem({ cause: "crashed", message: "The handrail server stopped unexpectedly and is restarting; the running turn was lost." });
    return { action: CloseAction.Restart, handled: true };
  }

  async stop(): Promise<void> {
    await this.supervisor.stop();
    this.setState("stopped");
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
  }
}
