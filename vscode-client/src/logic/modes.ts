/** The permission modes as the user sees them: a label, one line on what each does, and which need a warning. */

import { MODES } from "./protocol";

export interface ModeInfo {
  label: string;
  description: string;
}

const INFO: Record<string, ModeInfo> = {
  default: { label: "Default", description: "Asks before anything that changes files or runs commands" },
  acceptEdits: { label: "Accept edits", description: "Edits files in the workspace without asking; still asks before commands" },
  plan: { label: "Plan", description: "Reads and plans only: nothing is written or run until you approve the plan" },
  auto: { label: "Auto", description: "A small model approves the safe calls; you are asked about the rest" },
  dontAsk: { label: "Don't ask", description: "Never asks: whatever would ask is denied" },
  bypassPermissions: { label: "Bypass", description: "Runs every tool call without asking (protected paths still ask)" },
};

/** The warning confirmed before switching to a mode that stops asking (null: switch at once). */
export function modeWarning(mode: string): string | null {
  return mode === "bypassPermissions"
    ? "Bypass permissions: every command and edit the agent proposes runs without asking you, until you switch back. Only writes to protected paths still ask."
    : null;
}

export function modeLabel(mode: string): string {
  return INFO[mode]?.label ?? mode;
}

export function modeDescription(mode: string): string {
  return INFO[mode]?.description ?? "";
}

/** The mode picker's entries, the current one marked. */
export function modeChoices(current: string): { mode: string; label: string; description: string; detail: string }[] {
  return MODES.map((mode) => ({
    mode,
    label: `${mode === current ? "$(check) " : ""}${modeLabel(mode)}`,
    description: mode,
    detail: `${modeDescription(mode)}${modeWarning(mode) ? " — asks you to confirm" : ""}`,
  }));
}
