/** The chat webview view: serves the HTML shell and relays ops and messages to the ChatController. */

import * as vscode from "vscode";
import type { ViewOp } from "../logic/chatModel";
import { chatHtml, makeNonce } from "../logic/webviewHtml";

export const CHAT_VIEW_ID = "handrail.chat";

export class ChatViewProvider implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | null = null;

  constructor(private readonly extensionUri: vscode.Uri, private readonly onMessage: (message: unknown) => Promise<void>) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const webview = view.webview;
    webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, "dist"), vscode.Uri.joinPath(this.extensionUri, "media")] };
    webview.html = chatHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, "dist", "webview.js")).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, "media", "chat.css")).toString(),
    });
    webview.onDidReceiveMessage((message: unknown) => {
      this.onMessage(message).catch((e: unknown) => void vscode.window.showErrorMessage(`handrail: ${String(e)}`));
    });
    view.onDidDispose(() => {
      this.view = null;
    });
  }

  /** Post one op; a closed view redraws from the controller's state when it sends `ready`. */
  post(op: ViewOp): void {
    void this.view?.webview.postMessage(op);
  }

  /** Reveal the view and focus the prompt box. */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    this.post({ op: "focusPrompt" });
  }
}
