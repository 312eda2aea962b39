/** Approving the workspace's own settings from VS Code: show every item that waits, approve exactly those. */

import type { InactiveItem, PermissionsReport } from "./protocol";
import { visible } from "./visibleText";

/** The held-back items the user can approve (those with a digest), as `handrail.permissions` listed them. */
export function approvableItems(report: PermissionsReport | null): InactiveItem[] {
  return (report?.inactive ?? []).filter((item) => typeof item.digest === "string" && item.digest.length > 0);
}

/** One line per item: what it would do, escaped, and which file it comes from. */
export function approvalDetail(items: InactiveItem[]): string {
  const lines = items.map((item) => {
    const what = item.rule ? `${item.behavior ?? "allow"} ${item.rule}` : (item.value ?? item.setting ?? "?");
    return `• ${visible(what)} (${item.source} settings)`;
  });
  return [...lines, "", "Until you approve, only what these files tighten applies (their deny and ask rules)."].join("\n");
}
