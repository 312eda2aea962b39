/**
 * A minimal editor around the real `handrail lsp`: vscode-jsonrpc over stdio, the extension's own
 * protocol handlers (registerHandlers) with a scripted user, buffers that take workspace edits.
 */

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";
import { pathToFileURL, fileURLToPath } from "node:url";
import type { CancellationToken, MessageConnection } from "vscode-jsonrpc";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { registerHandlers, HandrailCommands, type HandrailUi } from "../../src/logic/handlers";
import { EXPERIMENTAL_CAPABILITIES, type AskUserParams, type AskUserResult, type ChatEvent, type PermissionParams, type PermissionResult } from "../../src/logic/protocol";

/** The repository root (the folder with pyproject.toml above vscode-client). */
export function repoRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, "pyproject.toml"))) {
    const up = path.dirname(dir);
    if (up === dir) {
      throw new Error("pyproject.toml not found above the test");
    }
    dir = up;
  }
  return dir;
}

/** The Python with handrail installed: $HANDRAIL_PYTHON or the repository's .venv. */
export function python(): string {
  return process.env.HANDRAIL_PYTHON ?? path.join(repoRoot(), ".venv", "bin", "python");
}

export type Block = { text: string } | { tool: string; input: Record<string, unknown> };

export interface FakeModel {
  baseUrl: string;
  requests(): Promise<{ requests: Record<string, unknown>[]; errors: string[] }>;
  close(): void;
}

/** Start the scripted model (handrail.fake_model through a small helper) with one list of blocks per reply. */
export async function startFakeModel(dir: string, replies: Block[][]): Promise<FakeModel> {
  const script = path.join(dir, "script.json");
  fs.writeFileSync(script, JSON.stringify(replies));
  const helper = path.join(repoRoot(), "vscode-client", "test", "fixtures", "fake_model.py");
  const proc = spawn(python(), [helper, script], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = readline.createInterface({ input: proc.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on("line", (line) => waiting.shift()?.(line));
  const next = (): Promise<string> => new Promise((resolve) => waiting.push(resolve));
  const baseUrl = await next();
  return {
    baseUrl,
    requests: async () => {
      const answer = next();
      proc.stdin.write("requests\n");
      return JSON.parse(await answer) as { requests: Record<string, unknown>[]; errors: string[] };
    },
    close: () => proc.stdin.end(),
  };
}

interface TextEdit {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  newText: string;
}

function offsetAt(text: string, pos: { line: number; character: number }): number {
  let offset = 0;
  for (let line = 0; line < pos.line; line += 1) {
    const nl = text.indexOf("\n", offset);
    if (nl < 0) {
      return text.length;
    }
    offset = nl + 1;
  }
  return Math.min(offset + pos.character, text.length); // ASCII test files: UTF-16 units = chars
}

/** A scripted user: answers prompts from queues, records what it was asked. */
export class ScriptedUser implements HandrailUi {
  readonly permissions: PermissionParams[] = [];
  readonly questions: AskUserParams[] = [];
  readonly chatEvents: ChatEvent[] = [];
  readonly saved: string[] = [];
  permissionAnswers: PermissionResult[] = [];
  onPermission: ((params: PermissionParams) => void) | null = null;

  constructor(private readonly buffers: Map<string, { text: string; version: number }>) {}

  permission(params: PermissionParams, _token: CancellationToken): Promise<PermissionResult> {
    this.permissions.push(params);
    this.onPermission?.(params);
    return Promise.resolve(this.permissionAnswers.shift() ?? { decision: "deny" });
  }

  askUser(params: AskUserParams): Promise<AskUserResult | null> {
    this.questions.push(params);
    return Promise.resolve(null);
  }

  saveDocument(uri: string): Promise<boolean> {
    const buffer = this.buffers.get(uri);
    if (!buffer) {
      return Promise.resolve(false);
    }
    fs.writeFileSync(fileURLToPath(uri), buffer.text);
    this.saved.push(uri);
    return Promise.resolve(true);
  }

  chat(event: ChatEvent): void {
    this.chatEvents.push(event);
  }
}

export interface Session {
  connection: MessageConnection;
  commands: HandrailCommands;
  user: ScriptedUser;
  buffers: Map<string, { text: string; version: number }>;
  open(file: string): void;
  buffer(file: string): string;
  close(): Promise<void>;
}

/** Start `<python> -m handrail lsp` in `workspace` and initialize it like the extension does. */
export async function startServer(workspace: string, baseUrl: string, stateDir: string, initializationOptions: Record<string, unknown> = {}): Promise<Session> {
  const env = {
    ...process.env,
    HANDRAIL_STATE_DIR: stateDir,
    XDG_STATE_HOME: path.join(stateDir, "xdg-state"),
    XDG_CONFIG_HOME: path.join(stateDir, "xdg-config"),
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: "test-key",
    HANDRAIL_RETRY_BASE_DELAY: "0",
  };
  const proc: ChildProcessWithoutNullStreams = spawn(python(), ["-m", "handrail", "lsp"], { cwd: workspace, env });
  proc.stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  const connection = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  const buffers = new Map<string, { text: string; version: number }>();
  const user = new ScriptedUser(buffers);
  registerHandlers({
    onRequest: (method, handler) => connection.onRequest(method, handler as (p: unknown, t: CancellationToken) => unknown),
    onNotification: (method, handler) => connection.onNotification(method, handler as (p: unknown) => void),
    sendRequest: (method, params) => connection.sendRequest(method, params),
  }, user);
  // what VS Code's LanguageClient answers for us in the extension
  connection.onRequest("workspace/applyEdit", (params: { edit: { documentChanges?: { textDocument: { uri: string }; edits: TextEdit[] }[] } }) => {
    for (const change of params.edit.documentChanges ?? []) {
      const buffer = buffers.get(change.textDocument.uri);
      if (!buffer) {
        return { applied: false, failureReason: "not open" };
      }
      const edits = [...change.edits].sort((a, b) => offsetAt(buffer.text, b.range.start) - offsetAt(buffer.text, a.range.start));
      for (const edit of edits) {
        buffer.text = buffer.text.slice(0, offsetAt(buffer.text, edit.range.start)) + edit.newText + buffer.text.slice(offsetAt(buffer.text, edit.range.end));
      }
      buffer.version += 1;
      void connection.sendNotification("textDocument/didChange", {
        textDocument: { uri: change.textDocument.uri, version: buffer.version },
        contentChanges: [{ text: buffer.text }],
      });
    }
    return { applied: true };
  });
  connection.onRequest("workspace/configuration", (params: { items: unknown[] }) => params.items.map(() => null));
  connection.onRequest("window/workDoneProgress/create", () => null);
  connection.onRequest("client/registerCapability", () => null);
  connection.onRequest("window/showMessageRequest", () => null);
  connection.onNotification(() => undefined); // $/progress, window/logMessage…
  connection.listen();
  const rootUri = pathToFileURL(workspace).toString();
  await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: path.basename(workspace) }],
    initializationOptions: { workspaceTrusted: false, ...initializationOptions },
    capabilities: {
      window: { workDoneProgress: true },
      workspace: { applyEdit: true, configuration: true, workspaceEdit: { documentChanges: true, resourceOperations: ["create"] } },
      general: { positionEncodings: ["utf-16"] },
      experimental: EXPERIMENTAL_CAPABILITIES,
    },
  });
  await connection.sendNotification("initialized", {});
  const uriOf = (file: string): string => pathToFileURL(path.join(workspace, file)).toString();
  return {
    connection,
    commands: new HandrailCommands({ sendRequest: (method, params) => connection.sendRequest(method, params) }),
    user,
    buffers,
    open: (file) => {
      const uri = uriOf(file);
      const text = fs.readFileSync(path.join(workspace, file), "utf8");
      buffers.set(uri, { text, version: 1 });
      void connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "plaintext", version: 1, text } });
    },
    buffer: (file) => buffers.get(uriOf(file))?.text ?? "",
    close: async () => {
      const exited = new Promise((resolve) => proc.once("exit", resolve));
      await connection.sendRequest("shutdown");
      await connection.sendNotification("exit");
      await exited;
      connection.dispose();
    },
  };
}
