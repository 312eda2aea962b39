/** The status bar item: mode (click to switch), whether a turn runs, tokens used, background tasks running. */

import * as vscode from "vscode";
import type { Status } from "../logic/chatModel";
import { mcpTooltip, needingUser } from "../logic/mcpStatus";
import type { McpServerStatus } from "../logic/protocol";
import { statusText, statusTooltip } from "../logic/status";
import type { ServerState } from "./serverClient";

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("handrail.status", vscode.StatusBarAlignment.Left, 50);
  private status: Status = { sessionId: "", running: false, mode: "default", usage: { inputTokens: 0, outputTokens: 0 }, backgroundRunning: 0 };
  private server: ServerState = "starting";
  private mcp: McpServerStatus[] = [];

  constructor(command: string) {
    this.item.name = "handrail";
    this.item.command = command;
    this.render();
    this.item.show();
  }

  update(status: Status): void {
    this.status = status;
    this.render();
  }

  setServer(state: ServerState): void {
    this.server = state;
    this.render();
  }

  /** The MCP servers' states (from `handrail.mcpStatus`): the tooltip lists them, a mark says one needs the user. */
  setMcp(servers: McpServerStatus[]): void {
    this.mcp = servers;
    this.render();
  }

  private render(): void {
    const waiting = this.server === "running" ? needingUser(this.mcp).length : 0;
    this.item.text = `${statusText(this.status, this.server)}${waiting > 0 ? ` $(warning) MCP ${waiting}` : ""}`;
    const mcp = this.server === "running" ? mcpTooltip(this.mcp) : "";
    this.item.tooltip = [statusTooltip(this.status), mcp].filter(Boolean).join("\n\n");
  }

  dispose(): void {
    this.item.dispose();
  }
}
