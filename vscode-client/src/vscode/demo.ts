/**
 * "Try without a key": the scripted demo inside VS Code. `handrail demo --serve` copies a small sample
 * project and serves a scripted model on 127.0.0.1; a second handrail server runs on that copy, pointed at
 * that model; the chat opens a session on it and asks the demo's question. Everything else is real: the
 * server, the SDK, the permission cards, the edit landing in an editor.
 */

import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import * as readline from "node:readline";
import * as vscode from "vscode";
import type { HandrailUi } from "../logic/handlers";
import { demoCommand, readDemoLine, type DemoModel, type LaunchSettings } from "../logic/serverLaunch";
import { withTimeout } from "../logic/serverStart";
import { ServerClient, type ServerProblem } from "./serverClient";

export class Demo implements vscode.Disposable {
  private model: ChildProcess | null = null;
  private server: ServerClient | null = null;
  private readonly sessionIds = new Set<string>();

  constructor(private readonly output: vscode.OutputChannel, private readonly ui: HandrailUi) {}

  /** Whether a session is the demo's (its commands go to the demo's server). */
  owns(sessionId: string): boolean {
    return this.sessionIds.has(sessionId);
  }

  /** The demo server's commands, while it runs. */
  async commands(): Promise<ReturnType<ServerClient["commands"]>> {
    return (await this.server?.ready()) ?? null;
  }

  /** Start the scripted model and a server on its sample; resolves with the model's facts. Throws with a readable message. */
  async start(settings: LaunchSettings, sessionId: string, startTimeout: () => number, onProblem: (p: ServerProblem | null) => void): Promise<DemoModel> {
    await this.stop();
    const command = demoCommand(settings);
    if (!command) {
      throw new Error(`the demo needs \`handrail demo\`, but the server command \`${settings.command}\` has no \`lsp\` to replace; set handrail.server.pythonPath`);
    }
    const proc = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
    this.model = proc;
    proc.stderr?.on("data", (chunk: Buffer) => this.output.append(chunk.toString()));
    const firstLine = new Promise<string>((resolve, reject) => {
      proc.once("error", reject);
      proc.once("exit", (code) => reject(new Error(`\`${command.join(" ")}\` exited (${String(code)}) before it was ready; see the handrail output`)));
      readline.createInterface({ input: proc.stdout }).once("line", resolve);
    });
    const model = readDemoLine(await withTimeout(firstLine, 60_000));
    if (!model) {
      throw new Error("the demo did not say where its model listens");
    }
    const folder: vscode.WorkspaceFolder = { uri: vscode.Uri.file(model.workspace), name: "handrail demo", index: 0 };
    this.server = new ServerClient({
      output: this.output,
      ui: this.ui,
      name: "handrail demo",
      settings: () => Promise.resolve({ ...settings, apiKey: "demo-key", baseUrl: model.baseUrl, model: "", workspaceTrusted: true }),
      startTimeout,
      onProblem,
      workspaceFolder: folder,
      configuration: { baseUrl: model.baseUrl, apiKey: "demo-key" },
    });
    await this.server.start();
    this.sessionIds.add(sessionId);
    return model;
  }

  /** The sample file the demo fixes, to open beside the chat. */
  static sampleFile(model: DemoModel): vscode.Uri {
    return vscode.Uri.file(path.join(model.workspace, "calculator.py"));
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    await server?.stop();
    server?.dispose();
    this.model?.stdin?.end(); // the demo removes its sample copy when its input closes
    this.model = null;
  }

  dispose(): void {
    void this.stop();
  }
}
