/** The permission quick pick's items and how a pick maps to a `handrail/permission` result. */

import type { Destination, PermissionParams, PermissionResult } from "./protocol";

export type Choice =
  | { kind: "allow" }
  | { kind: "always"; rule: string }
  | { kind: "deny" }
  | { kind: "denyWithFeedback" };

export interface ChoiceItem {
  label: string;
  description?: string;
  choice: Choice;
}

export interface DestinationItem {
  label: string;
  description: string;
  destination: Destination;
}

/** The tools whose prompt shows a diff editor next to the quick pick. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);

/** The first step: allow once, one "always" per suggested rule, deny, deny with a reason. */
export function choiceItems(params: PermissionParams): ChoiceItem[] {
  const rules = params.suggestions.length > 0 ? params.suggestions : [params.tool];
  return [
    { label: "$(check) Allow once", choice: { kind: "allow" } },
    ...rules.map((rule): ChoiceItem => ({
      label: `$(check-all) Always allow ${rule}`,
      description: "choose where to remember it next",
      choice: { kind: "always", rule },
    })),
    { label: "$(close) Deny", choice: { kind: "deny" } },
    { label: "$(comment) Deny and tell the agent why…", choice: { kind: "denyWithFeedback" } },
  ];
}

/** The second step after "Always allow": where the rule is saved. */
export function destinationItems(rule: string): DestinationItem[] {
  return [
    { label: "This session", description: `${rule} until the session ends`, destination: "session" },
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
        : { decision: "allowAlways", rule: choice.rule, destination };
    case "deny":
      return { decision: "deny" };
    case "denyWithFeedback": {
      const reason = feedback?.trim();
      return reason ? { decision: "deny", feedback: reason } : { decision: "deny" };
    }
  }
}

/** The quick pick's title and placeholder: what the agent wants and why it asks. */
export function promptTitle(params: PermissionParams): { title: string; placeholder: string } {
  const who = params.agent ? ` (sub-agent: ${params.agent.description})` : "";
  return {
    title: `handrail wants to run ${params.tool}${who}`,
    placeholder: `${params.summary} — ${params.reason}`,
  };
}

/** The file an edit prompt is about, if the input names one. */
export function editTarget(params: PermissionParams): string | null {
  if (!EDIT_TOOLS.has(params.tool)) {
    return null;
  }
  const path = params.input.file_path ?? params.input.notebook_path;
  return typeof path === "string" && path.length > 0 ? path : null;
}
