/** The status bar's texts. */

import type { Status } from "./chatModel";
import { modeLabel } from "./modes";
import type { Usage, UsageTotals } from "./protocol";

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

/** An estimated cost: from ten cents with two decimals, below with two significant figures. */
export function formatCost(usd: number): string {
  if (usd >= 0.1) {
    return `$${usd.toFixed(2)}`;
  }
  if (usd === 0) {
    return "$0";
  }
  if (usd < 0.0001) {
    return "< $0.0001";
  }
  return `$${usd.toPrecision(2).replace(/0+$/, "").replace(/\.$/, "")}`;
}

/** Every input token sent: plain input, cache reads and cache writes. */
export function inputTotal(usage: UsageTotals): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/** How full the context window is, in percent (null when the server did not say). */
export function contextPercent(usage: Pick<Usage, "contextTokens" | "contextWindow">): number | null {
  if (!usage.contextTokens || !usage.contextWindow) {
    return null;
  }
  return Math.min(100, Math.round((100 * usage.contextTokens) / usage.contextWindow));
}

/** One turn's usage as the chat shows it under the turn. */
export function usageLine(usage: Usage): string {
  const read = usage.cacheReadTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const cache = read || written ? ` (${formatTokens(read)} from the cache, ${formatTokens(written)} written to it)` : "";
  const parts = [`${formatTokens(inputTotal(usage))} input tokens${cache}`, `${formatTokens(usage.outputTokens)} output`];
  if (typeof usage.costUsd === "number") {
    parts.push(`about ${formatCost(usage.costUsd)}`);
  }
  const percent = contextPercent(usage);
  if (percent !== null) {
    parts.push(`context ${percent}% of ${formatTokens(usage.contextWindow ?? 0)}`);
  }
  return parts.join(" · ");
}

/** The status bar text: running state, mode, tokens when any were reported, running background tasks. */
export function statusText(status: Status, serverState: "starting" | "running" | "stopped"): string {
  if (serverState !== "running") {
    return serverState === "starting" ? "$(loading~spin) handrail starting" : "$(error) handrail stopped";
  }
  const icon = status.running ? "$(sync~spin)" : "$(hubot)";
  const input = inputTotal(status.usage);
  const tokens = input + status.usage.outputTokens;
  let usage = tokens > 0 ? ` · ${formatTokens(input)}↑ ${formatTokens(status.usage.outputTokens)}↓` : "";
  if (tokens > 0 && typeof status.usage.costUsd === "number") {
    usage += ` · ${formatCost(status.usage.costUsd)}`;
  }
  const percent = contextPercent(status.usage);
  if (percent !== null) {
    usage += ` · ${percent}%`;
  }
  const background = status.backgroundRunning > 0 ? ` · $(server-process) ${status.backgroundRunning}` : "";
  return `${icon} handrail: ${modeLabel(status.mode)}${usage}${background}`;
}

/** The status bar tooltip: the same facts in words. */
export function statusTooltip(status: Status): string {
  const u = status.usage;
  const read = u.cacheReadTokens ?? 0;
  const written = u.cacheWriteTokens ?? 0;
  const cache = read || written ? ` (${read} read from the prompt cache, ${written} written to it)` : "";
  let tokens = `${inputTotal(u)} input${cache} / ${u.outputTokens} output tokens`;
  if (typeof u.costUsd === "number") {
    tokens += `, about ${formatCost(u.costUsd)}`;
  }
  const percent = contextPercent(u);
  const context = percent !== null ? `; context ${percent}% full (${formatTokens(u.contextTokens ?? 0)} of ${formatTokens(u.contextWindow ?? 0)} tokens)` : "";
  const n = status.backgroundRunning;
  const background = n > 0 ? `; ${n} background task${n === 1 ? "" : "s"} running` : "";
  return `handrail — mode ${status.mode}${status.running ? ", running" : ""}; this session: ${tokens}${context}${background}. Click to switch mode.`;
}
