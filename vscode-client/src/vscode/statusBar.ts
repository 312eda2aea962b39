/** The status bar item: mode (click to switch), whether a turn runs, tokens used, background tasks running. */

import * as vscode from "vscode";
import type { Status } from "../logic/chatModel";
import { statusText, statusTooltip } from "../logic/status";
import type { ServerState } from "./serverClient";

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("handrail.status", vscode.StatusBarAlignment.Left, 50);
  private status: Status = { sessionId: "", running: false, mode: "default", usage: { inputTokens: 0, outputTokens: 0 }, backgroundRunning: 0 };
  private server: ServerState = "starting";

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

  private render(): void {
    this.item.text = statusText(this.status, this.server);
    this.item.tooltip = statusTooltip(this.status);
  }

  dispose(): void {
    this.item.dispose();
  }
}
