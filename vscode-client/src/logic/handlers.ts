/**
 * The client side of handrail's protocol extensions, independent of VS Code: the extension registers
 * these on its LanguageClient, the integration test on a plain vscode-jsonrpc connection.
 */

import type { CancellationToken, Disposable } from "vscode-jsonrpc";
import { readBackgroundTasks } from "./background";
import { PromptQueue } from "./promptQueue";
import {
  ASK_USER, CHAT, Commands, ELICIT, MCP_APPROVAL, PERMISSION, SAVE_DOCUMENT, asChatEvent,
  type AskResult, type AskUserParams, type AskUserResult, type BackgroundTask, type ChatEvent, type McpRestartResult,
  type ElicitParams, type ElicitResult, type McpApprovalParams, type McpApprovalResult, type McpApproveResult,
  type McpMentionable, type McpPrompt, type McpServerStatus, type McpSignInResult, type McpSignOutResult,
  type PermissionParams, type PermissionResult, type PermissionsReport,
} from "./protocol";

/** The part of a JSON-RPC connection (LanguageClient or MessageConnection) the handlers need. */
export interface Endpoint {
  onRequest(method: string, handler: (params: never, token: CancellationToken) => unknown): Disposable;
  onNotification(method: string, handler: (params: never) => void): Disposable;
  sendRequest(method: string, params: unknown): Promise<unknown>;
}

/** What the user sees; the extension implements it with quick picks, tests with scripted answers. */
export interface HandrailUi {
  permission(params: PermissionParams, token: CancellationToken): Promise<PermissionResult>;
  askUser(params: AskUserParams, token: CancellationToken): Promise<AskUserResult | null>;
  saveDocument(uri: string): Promise<boolean>;
  chat(event: ChatEvent): void;
  /** May the workspace's MCP server start (asked in the chat; without it: not now). */
  mcpApproval?(params: McpApprovalParams, token: CancellationToken): Promise<McpApprovalResult>;
  /** An MCP server's form (without it: cancelled). */
  elicit?(params: ElicitParams, token: CancellationToken): Promise<ElicitResult>;
}

const NOT_NOW: McpApprovalResult = { approved: false };
const CANCELLED: ElicitResult = { action: "cancel" };

const DENY: PermissionResult = { decision: "deny" };

/** Register the handlers for handrail's server→client messages; the queue serialises prompts. */
export function registerHandlers(endpoint: Endpoint, ui: HandrailUi, queue = new PromptQueue()): Disposable[] {
  return [
    endpoint.onRequest(PERMISSION, (params: PermissionParams, token) =>
      queue.enqueue(`permission:${params.toolUseId}`, token, DENY, (t) => ui.permission(params, t))),
    endpoint.onRequest(ASK_USER, (params: AskUserParams, token) =>
      queue.enqueue<AskUserResult | null>(`ask:${params.toolUseId}`, token, null, (t) => ui.askUser(params, t))),
    endpoint.onRequest(MCP_APPROVAL, (params: McpApprovalParams, token) => ui.mcpApproval?.(params, token) ?? NOT_NOW),
    endpoint.onRequest(ELICIT, (params: ElicitParams, token) =>
      queue.enqueue(`elicit:${params.server}`, token, CANCELLED, (t) => ui.elicit?.(params, t) ?? Promise.resolve(CANCELLED))),
    endpoint.onRequest(SAVE_DOCUMENT, async (params: { uri: string }) => ({ saved: await ui.saveDocument(params.uri) })),
    endpoint.onNotification(CHAT, (params: unknown) => {
      const event = asChatEvent(params);
      if (!event) {
        return;
      }
      if (event.kind === "permission") {
        queue.drop(`permission:${event.toolUseId}`); // decided (or abandoned) by the server while queued
      }
      ui.chat(event);
    }),
  ];
}

/** Typed calls of handrail's server commands. */
export class HandrailCommands {
  constructor(private readonly endpoint: Pick<Endpoint, "sendRequest">) {}

  private async execute(command: string, args: unknown[]): Promise<unknown> {
    return this.endpoint.sendRequest("workspace/executeCommand", { command, arguments: args });
  }

  ask(prompt: string, sessionId: string): Promise<AskResult> {
    return this.execute(Commands.ask, [{ prompt, sessionId }]) as Promise<AskResult>;
  }

  cancel(sessionId: string): Promise<unknown> {
    return this.execute(Commands.cancel, [{ sessionId }]);
  }

  setMode(mode: string, sessionId?: string): Promise<unknown> {
    return this.execute(Commands.setMode, [sessionId ? { mode, sessionId } : { mode }]);
  }

  permissions(sessionId?: string): Promise<PermissionsReport> {
    return this.execute(Commands.permissions, [sessionId ? { sessionId } : {}]) as Promise<PermissionsReport>;
  }

  /** Approve exactly the items with these digests (what the user was shown), or everything waiting without. */
  approveProjectSettings(digests?: string[]): Promise<unknown> {
    return this.execute(Commands.approveProjectSettings, digests ? [{ items: digests }] : []);
  }

  /** The session's background agents and shells (the same listing as the `background` chat event). */
  async backgroundTasks(sessionId: string): Promise<BackgroundTask[]> {
    return readBackgroundTasks(await this.execute(Commands.backgroundTasks, [{ sessionId }]));
  }

  async mcpStatus(): Promise<McpServerStatus[]> {
    const result = (await this.execute(Commands.mcpStatus, [])) as { servers?: McpServerStatus[] } | null;
    return result?.servers ?? [];
  }

  restartMcpServer(name: string): Promise<McpRestartResult> {
    return this.execute(Commands.restartMcpServer, [{ name }]) as Promise<McpRestartResult>;
  }

  /** Approve `name`'s definition with `digest` (the one shown); the server refuses one that changed since. */
  approveMcpServer(name: string, digest?: string): Promise<McpApproveResult> {
    return this.execute(Commands.approveMcpServer, [digest ? { name, digest } : { name }]) as Promise<McpApproveResult>;
  }

  /** Connect again so the user can sign in (the server opens the browser through window/showDocument). */
  signInMcpServer(name: string): Promise<McpSignInResult> {
    return this.execute(Commands.signInMcpServer, [{ name }]) as Promise<McpSignInResult>;
  }

  signOutMcpServer(name: string): Promise<McpSignOutResult> {
    return this.execute(Commands.signOutMcpServer, [{ name }]) as Promise<McpSignOutResult>;
  }

  /** The connected servers' prompts (run one by sending its command as the prompt). */
  async mcpPrompts(): Promise<McpPrompt[]> {
    const result = (await this.execute(Commands.mcpPrompts, [])) as { prompts?: McpPrompt[] } | null;
    return Array.isArray(result?.prompts) ? result.prompts : [];
  }

  /** The connected servers' resources and templates to mention. */
  async mcpResources(): Promise<McpMentionable[]> {
    const result = (await this.execute(Commands.mcpResources, [])) as { resources?: McpMentionable[] } | null;
    return Array.isArray(result?.resources) ? result.resources : [];
  }
}
