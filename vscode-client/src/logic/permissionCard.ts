/**
 * A `handrail/permission` request as the chat shows it inline: the exact command first (escaped, whole),
 * the model's description after it, the proposed diff with its +/− counts, the plan of a plan approval,
 * and every rule an "Always allow" would add. All model-given text goes through `visible`.
 */

import { parseUnifiedDiff, type LineDiff } from "./lineDiff";
import { editTarget, alwaysRules, commandOf, PLAN_TOOL } from "./permissionChoices";
import { displayPath } from "./paths";
import type { Destination, PermissionParams, PermissionResult } from "./protocol";
import { visible } from "./visibleText";

export interface PromptView {
  toolUseId: string;
  tool: string;
  /** "plan": approve / keep planning; "tool": allow / always / deny. */
  kind: "plan" | "tool";
  /** What is asked, in one line ("Run this command?", "Edit src/app.py?"). */
  question: string;
  /** The exact command (escaped, line breaks kept), for shell calls. */
  command?: string;
  /** The model's words for the call (escaped): shown after the command, never instead of it. */
  description?: string;
  /** Why handrail asks. */
  reason: string;
  /** A sub-agent's call: its description. */
  agent?: string;
  /** The file an edit changes, workspace-relative, and the proposed change. */
  file?: string;
  diff?: LineDiff;
  /** Whether the extension can open the change in VS Code's diff editor. */
  canOpenDiff: boolean;
  /** The plan (markdown, rendered escaped) of a plan approval. */
  plan?: string;
  /** Every rule "Always allow" adds (escaped). */
  rules: string[];
  /** Everything else the call carries, for tools without a command or diff (escaped JSON). */
  details?: string;
}

export const DESTINATIONS: readonly { destination: Destination; label: string; detail: string }[] = [
  { destination: "session", label: "This session", detail: "until the session ends" },
  { destination: "localSettings", label: "This workspace", detail: ".handrail/settings.local.json, not committed" },
  { destination: "projectSettings", label: "Project (shared)", detail: ".handrail/settings.json, committed" },
  { destination: "userSettings", label: "All my workspaces", detail: "your user settings" },
];

function inputDetails(params: PermissionParams): string | undefined {
  const entries = Object.entries(params.input).filter(([key]) => key !== "description");
  if (entries.length === 0) {
    return undefined;
  }
  const text = JSON.stringify(Object.fromEntries(entries), null, 2);
  return visible(text.length > 4000 ? `${text.slice(0, 4000)}\n…` : text, true);
}

/** The card for a permission request; `roots` makes the edited file's path workspace-relative. */
export function promptView(params: PermissionParams, roots: readonly string[]): PromptView {
  const base = {
    toolUseId: params.toolUseId,
    tool: params.tool,
    reason: visible(params.reason),
    rules: alwaysRules(params).map((r) => visible(r)),
    canOpenDiff: false,
    ...(params.agent ? { agent: visible(params.agent.description) } : {}),
  };
  if (params.tool === PLAN_TOOL) {
    const plan = typeof params.input.plan === "string" ? params.input.plan : "";
    return { ...base, kind: "plan", question: "Approve this plan and let the agent make changes?", plan: visible(plan, true), rules: [] };
  }
  const command = commandOf(params);
  const description = params.description ? visible(params.description) : undefined;
  if (command !== null) {
    return { ...base, kind: "tool", question: `Run this ${params.tool === "Bash" ? "command" : `${visible(params.tool)} command`}?`,
      command: visible(command, true), ...(description ? { description } : {}) };
  }
  const target = editTarget(params);
  if (target !== null) {
    const file = visible(displayPath(target, roots));
    const diff = params.diff !== null ? parseUnifiedDiff(params.diff) : undefined;
    const verb = params.tool === "Write" ? "Write" : "Edit";
    return { ...base, kind: "tool", question: `${verb} ${file}?`, file, ...(diff ? { diff } : {}), canOpenDiff: true };
  }
  const details = inputDetails(params);
  return { ...base, kind: "tool", question: `Allow ${visible(params.summary || params.tool)}?`, ...(details ? { details } : {}) };
}

/** An answer from the chat card, read from the webview (untrusted): the rules come from the request, never from the view. */
export interface CardAnswer {
  decision: "allow" | "allowAlways" | "deny";
  destination?: Destination;
  feedback?: string;
}

export function isDestination(value: unknown): value is Destination {
  return DESTINATIONS.some((d) => d.destination === value);
}

/** The `handrail/permission` result for a card's answer. */
export function cardResult(params: PermissionParams, answer: CardAnswer): PermissionResult {
  const rules = alwaysRules(params);
  if (answer.decision === "allowAlways" && params.tool !== PLAN_TOOL && rules.length > 0) {
    return { decision: "allowAlways", rules, rule: rules[0], destination: answer.destination ?? "session" };
  }
  if (answer.decision === "allow" || answer.decision === "allowAlways") {
    return { decision: "allow" };
  }
  const feedback = answer.feedback?.trim();
  return feedback ? { decision: "deny", feedback } : { decision: "deny" };
}
