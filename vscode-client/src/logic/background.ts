/** A session's background agents and shells as the client shows them: read from the wire, labelled, counted. */

import type { BackgroundStatus, BackgroundTask } from "./protocol";

const STATUS_LABELS: Record<BackgroundStatus, string> = {
  running: "running…",
  completed: "completed",
  failed: "failed",
  stopped: "stopped",
  killed: "killed",
};

/**
 * Read the task list of a `background` event or of `handrail.backgroundTasks` (untrusted JSON):
 * entries without the expected fields are dropped rather than drawn half-empty.
 */
export function readBackgroundTasks(value: unknown): BackgroundTask[] {
  if (!Array.isArray(value)) {
    return [];
  }
  const tasks: BackgroundTask[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== "object" || item === null) {
      continue;
    }
    const { id, kind, description, status } = item as Record<string, unknown>;
    if (typeof id === "string" && (kind === "agent" || kind === "shell") && typeof description === "string" && typeof status === "string") {
      tasks.push({ id, kind, description, status });
    }
  }
  return tasks;
}

/** What the view says for a status; one it does not know (a newer server's) is shown as sent. */
export function backgroundStatusLabel(status: string): string {
  return Object.hasOwn(STATUS_LABELS, status) ? STATUS_LABELS[status as BackgroundStatus] : status;
}

export function backgroundKindLabel(kind: BackgroundTask["kind"]): string {
  return kind === "agent" ? "Agent" : "Shell";
}

export function runningCount(tasks: readonly BackgroundTask[]): number {
  return tasks.filter((t) => t.status === "running").length;
}

/** The section's heading: how many still run, so finishing is visible without reading every row. */
export function backgroundHeading(tasks: readonly BackgroundTask[]): string {
  const running = runningCount(tasks);
  if (running === 0) {
    return "Background tasks · all finished";
  }
  return running === tasks.length ? `Background tasks · ${running} running` : `Background tasks · ${running} of ${tasks.length} running`;
}

