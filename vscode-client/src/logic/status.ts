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

/** The status bar text: running state, mode, tokens when any were reported, running background tasks. */
export function statusText(status: Status, serverState: "starting" | "running" | "stopped"): string {
  if (serverState !== "running") {
    return serverState === "starting" ? "$(loading~spin) handrail starting" : "$(error) handrail stopped";
  }
  const icon = status.running ? "$(sync~spin)" : "$(hubot)";
  const tokens = status.usage.inputTokens + status.usage.outputTokens;
  const usage = tokens > 0 ? ` · ${formatTokens(status.usage.inputTokens)}↑ ${formatTokens(status.usage.outputTokens)}↓` : "";
  const background = status.backgroundRunning > 0 ? ` · $(server-process) ${status.backgroundRunning}` : "";
  return `${icon} handrail: ${modeLabel(status.mode)}${usage}${background}`;
}

/** The status bar tooltip: the same facts in words. */
export function statusTooltip(status: Status): string {
  const tokens = `${status.usage.inputTokens} input / ${status.usage.outputTokens} output tokens`;
  const n = status.backgroundRunning;
  const background = n > 0 ? `; ${n} background task${n === 1 ? "" : "s"} running` : "";
  return `handrail — mode ${status.mode}${status.running ? ", running" : ""}; ${tokens}${background}. Click to switch mode.`;
}
