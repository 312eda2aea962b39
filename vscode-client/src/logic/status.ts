/** The status bar's texts. */

import type { Status } from "./chatModel";

const MODE_LABELS: Record<string, string> = {
  default: "Default",
  acceptEdits: "Accept edits",
  plan: "Plan",
  bypassPermissions: "Bypass",
  dontAsk: "Don't ask",
  auto: "Auto",
};

/** A compact token count: 950, 1.2k, 3.4M. */
export function formatTokens(n: number): string {
  if (n < 1000) {
    return String(n);
  }
  if (n < 1_000_000) {
    return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  }
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function modeLabel(mode: string): string {
  return MODE_LABELS[mode] ?? mode;
}

/** The status bar text: running state, mode, and tokens when any were reported. */
export function statusText(status: Status, serverState: "starting" | "running" | "stopped"): string {
  if (serverState !== "running") {
    return serverState === "starting" ? "$(loading~spin) handrail starting" : "$(error) handrail stopped";
  }
  const icon = status.running ? "$(sync~spin)" : "$(hubot)";
  const tokens = status.usage.inputTokens + status.usage.outputTokens;
  const usage = tokens > 0 ? ` · ${formatTokens(status.usage.inputTokens)}↑ ${formatTokens(status.usage.outputTokens)}↓` : "";
  return `${icon} handrail: ${modeLabel(status.mode)}${usage}`;
}
