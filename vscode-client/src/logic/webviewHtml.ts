/** The chat webview's HTML shell: a strict content security policy, one nonce'd script, one stylesheet. */

import { randomBytes } from "node:crypto";
import { escapeHtml } from "./markdown";

export function makeNonce(): string {
  return randomBytes(18).toString("base64url");
}

export interface ShellOptions {
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  nonce: string;
  /** Extra nonce'd script before the main one (the DOM test's stand-in for acquireVsCodeApi). */
  preludeScript?: string;
}

/** The page: nothing but our script (by nonce) and our stylesheet may load or run. */
export function chatHtml(o: ShellOptions): string {
  const csp = [
    "default-src 'none'",
    `style-src ${o.cspSource}`,
    `script-src 'nonce-${o.nonce}'`,
    `img-src ${o.cspSource} data:`,
    `font-src ${o.cspSource}`,
  ].join("; ").replace(/"/g, ""); // an attribute value: no double quotes inside
  const prelude = o.preludeScript ? `<script nonce="${o.nonce}">${o.preludeScript}</script>` : "";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(o.styleUri)}">
<title>handrail</title>
</head>
<body>
<header class="toolbar" role="toolbar" aria-label="Sessions">
  <label class="visually-hidden" for="sessions">Session</label>
  <select id="sessions" title="Sessions of this window"></select>
  <button id="new-session" type="button" class="secondary" title="New session (Alt+N); it keeps the permission mode">New</button>
</header>
<div class="toolbar settings" role="toolbar" aria-label="Mode and model">
  <button id="mode" type="button" class="chip-button" title="Permission mode (click to switch)"></button>
  <button id="model" type="button" class="chip-button" title="Model (click to choose)"></button>
  <span id="state" class="state" aria-live="polite"></span>
</div>
<section id="banner" class="banner" role="alert" hidden></section>
<section id="inactive" class="inactive" hidden></section>
<section id="todos" class="todos" aria-label="Todo list" hidden></section>
<section id="background" class="background" aria-label="Background tasks" hidden></section>
<section id="empty" class="empty" hidden></section>
<main id="transcript" class="transcript" aria-live="polite" tabindex="0"></main>
<form id="prompt-form" class="prompt">
  <div id="attachments" class="attachments" aria-label="Attached to the next prompt" hidden></div>
  <label class="visually-hidden" for="prompt">Ask handrail</label>
  <textarea id="prompt" rows="3" placeholder="Ask handrail… (Enter to send, Shift+Enter for a new line, @ to attach a file, ↑ for earlier prompts)"></textarea>
  <div class="buttons">
    <button id="add-selection" type="button" class="secondary small" title="Attach the editor's selection">+ Selection</button>
    <button id="add-file" type="button" class="secondary small" title="Attach the active editor's file">+ File</button>
    <span class="spacer"></span>
    <button id="send" type="submit" title="Send (Enter)">Send</button>
    <button id="stop" type="button" class="secondary" title="Stop (Escape)" disabled>Stop</button>
  </div>
</form>
${prelude}<script nonce="${o.nonce}" src="${escapeHtml(o.scriptUri)}"></script>
</body>
</html>`;
}
