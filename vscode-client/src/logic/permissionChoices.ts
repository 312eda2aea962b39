/** The permission quick pick's items and how a pick maps to a `handrail/permission` result. */

import type { Destination, PermissionParams, PermissionResult } from "./protocol";
import { cutMiddle, visible } from "./visibleText";

export type Choice =
  | { kind: "allow" }
  | { kind: "always"; rules: string[] }
  | { kind: "deny" }
  | { kind: "denyWithFeedback" }
  | { kind: "showCommand" };

export interface ChoiceItem {
  label: string;
  description?: string;
  detail?: string;
  choice: Choice;
}

export interface DestinationItem {
  label: string;
  description: string;
  destination: Destination;
}

/** The tools whose prompt shows a diff editor next to the quick pick. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);
/** Plan approval comes as a permission request for this tool, the plan in `input.plan`. */
export const PLAN_TOOL = "ExitPlanMode";
/** How much of a command the quick pick's title shows; longer ones are cut in the middle and offer "Show full command". */
export const TITLE_COMMAND_CHARS = 160;

/** The exact command of the call, if it runs one. */
export function commandOf(params: PermissionParams): string | null {
  return typeof params.command === "string" ? params.command : null;
}

/** Whether the title cannot show the whole command (then "Show full command" opens it). */
export function commandIsCut(params: PermissionParams): boolean {
  const command = commandOf(params);
  return command !== null && (cutMiddle(visible(command), TITLE_COMMAND_CHARS) !== visible(command) || command.includes("\n"));
}

/** The rules an "always allow" adds: every suggestion together (a compound command needs them all). None: no rule
 * is safe to offer (a flagged command), so no "always" is offered; the tool's name would allow every call. */
export function alwaysRules(params: PermissionParams): string[] {
  return [...params.suggestions];
}

/** The first step: allow once, show the full command (when cut), always allow every suggested rule, deny, deny with a reason.
 * A plan's approval: approve plan, keep planning, keep planning with feedback. */
export function choiceItems(params: PermissionParams): ChoiceItem[] {
  if (params.tool === PLAN_TOOL) {
    return [
      { label: "$(check) Approve plan", description: "leave plan mode and let it make changes", choice: { kind: "allow" } },
      { label: "$(close) Keep planning", choice: { kind: "deny" } },
      { label: "$(comment) Keep planning, with feedback…", choice: { kind: "denyWithFeedback" } },
    ];
  }
  const rules = alwaysRules(params);
  const items: ChoiceItem[] = [{ label: "$(check) Allow once", choice: { kind: "allow" } }];
  if (commandIsCut(params)) {
    items.push({ label: "$(eye) Show full command", description: "opens it beside, then asks again", choice: { kind: "showCommand" } });
  }
  if (rules.length > 0) {
    items.push({
      label: `$(check-all) Always allow ${visible(rules.join(", "))}`,
      description: rules.length > 1 ? `adds ${rules.length} rules; choose where to remember them next` : "choose where to remember it next",
      choice: { kind: "always", rules },
    });
  }
  items.push(
    { label: "$(close) Deny", choice: { kind: "deny" } },
    { label: "$(comment) Deny and tell the agent why…", choice: { kind: "denyWithFeedback" } },
  );
  return items;
}

/** The second step after "Always allow": where the rules are saved. */
export function destinationItems(rules: string[]): DestinationItem[] {
  const named = visible(rules.join(", "));
  return [
    { label: "This session", description: `${named} until the session ends`, destination: "session" },
    { label: "This workspace only", description: ".handrail/settings.local.json (not committed)", destination: "localSettings" },
    { label: "Team project settings", description: ".handrail/settings.json (committed, shared)", destination: "projectSettings" },
    { label: "User settings", description: "every workspace of yours", destination: "userSettings" },
  ];
}

/** The result for a completed pick; `undefined` steps (Escape) deny. */
export function toResult(choice: Choice | undefined, destination?: Destination, feedback?: string): PermissionResult {
  if (choice === undefined) {
    return { decision: "deny" };
  }
  switch (choice.kind) {
    case "allow":
      return { decision: "allow" };
    case "always":
      return destination === undefined
        ? { decision: "deny" }
        : { decision: "allowAlways", rules: choice.rules, rule: choice.rules[0], destination };
    case "deny":
    case "showCommand": // only reached if the pick loop ended on it: never allow by default
      return { decision: "deny" };
    case "denyWithFeedback": {
      const reason = feedback?.trim();
      return reason ? { decision: "deny", feedback: reason } : { decision: "deny" };
    }
  }
}

/** The quick pick's title and placeholder: the exact command first (escaped, its end kept), the model's words and
 * the reason after it; other tools: what the agent wants and why it asks. */
export function promptTitle(params: PermissionParams): { title: string; placeholder: string } {
  const who = params.agent ? ` (sub-agent: ${visible(params.agent.description)})` : "";
  if (params.tool === PLAN_TOOL) {
    return {
      title: `handrail has a plan${who}: approve it to leave plan mode?`,
      placeholder: "The plan is open beside this question",
    };
  }
  const command = commandOf(params);
  if (command !== null) {
    const said = params.description ? `The model describes it as: ${visible(params.description)} — ` : "";
    return {
      title: `handrail wants to run ${params.tool}${who}: $ ${cutMiddle(visible(command), TITLE_COMMAND_CHARS)}`,
      placeholder: `${said}${visible(params.reason)}`,
    };
  }
  return {
    title: `handrail wants to run ${params.tool}${who}`,
    placeholder: `${visible(params.summary)} — ${visible(params.reason)}`,
  };
}

/** The full command as the "Show full command" document shows it: escaped, its lines kept. */
export function fullCommandText(params: PermissionParams): string {
  const said = params.description ? `\n\n# The model describes it as: ${visible(params.description)}` : "";
  return `${visible(commandOf(params) ?? "", true)}${said}\n`;
}

/** The plan as its document shows it: escaped, its lines kept (null when the request carries none). */
export function planText(params: PermissionParams): string | null {
  const plan = params.tool === PLAN_TOOL ? params.input.plan : undefined;
  return typeof plan === "string" ? visible(plan, true) : null;
}

/** The file an edit prompt is about, if the input names one. */
export function editTarget(params: PermissionParams): string | null {
  if (!EDIT_TOOLS.has(params.tool)) {
    return null;
  }
  const path = params.input.file_path ?? params.input.notebook_path;
  return typeof path === "string" && path.length > 0 ? path : null;
}
