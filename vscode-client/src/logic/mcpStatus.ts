/** The MCP servers' state for the status bar: a mark when one needs the user, a line per server in the tooltip. */

import type { McpServerStatus } from "./protocol";

const STATE_WORDS: Record<string, string> = {
  starting: "starting", running: "running", failed: "failed", restarting: "restarting", stopped: "stopped",
  needsApproval: "needs your approval", untrusted: "off until the workspace is trusted", needsSignIn: "needs sign-in",
};

/** States the user can act on (approve, sign in, restart). */
const NEEDS_USER = new Set(["needsApproval", "needsSignIn", "failed"]);

/** The servers that wait for the user. */
export function needingUser(servers: readonly McpServerStatus[]): McpServerStatus[] {
  return servers.filter((s) => NEEDS_USER.has(s.state));
}

/** One line per server: its name, state and tools (or why it is not running). */
export function mcpTooltip(servers: readonly McpServerStatus[]): string {
  if (servers.length === 0) {
    return "";
  }
  const lines = servers.map((s) => {
    const state = STATE_WORDS[s.state] ?? s.state;
    const tools = s.state === "running" ? ` (${s.tools.length} tool${s.tools.length === 1 ? "" : "s"})` : "";
    const error = s.error && s.state !== "running" ? `: ${s.error.split("\n")[0].slice(0, 120)}` : "";
    return `${s.name}: ${state}${tools}${error}`;
  });
  const waiting = needingUser(servers).length;
  const hint = waiting > 0 ? "\nRun \"handrail: MCP Servers…\" to approve, sign in or restart." : "";
  return `MCP servers:\n${lines.join("\n")}${hint}`;
}

/** The actions the MCP Servers list offers for a server in this state. */
export function serverActions(server: McpServerStatus): ("approve" | "signIn" | "signOut" | "restart")[] {
  switch (server.state) {
    case "needsApproval":
      return ["approve"];
    case "needsSignIn":
      return ["signIn", "restart"];
    case "untrusted":
      return [];
    default: // only a remote server can have a sign-in to sign out of
      return server.remote ? ["restart", "signOut"] : ["restart"];
  }
}
