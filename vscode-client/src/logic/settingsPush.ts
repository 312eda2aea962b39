/**
 * How a change of the `handrail` settings reaches the server, without the "Sending notification
 * workspace/didChangeConfiguration failed" toast that granting workspace trust used to pop: granting trust
 * changes the restricted launch settings, which restart the server, and a push to a server being stopped fails.
 */

/** Settings read when the server starts: a change restarts it (model and baseUrl are read per turn). */
export const RESTART_SETTINGS = ["handrail.server", "handrail.maxToolConcurrency"] as const;

/** `restart` for launch settings (the new server reads the rest at start: nothing is pushed), `push` for the
 * others, `none` for settings that are not handrail's. */
export function settingsChange(affects: (section: string) => boolean): "restart" | "push" | "none" {
  if (RESTART_SETTINGS.some((s) => affects(s))) {
    return "restart";
  }
  return affects("handrail") ? "push" : "none";
}

/** The part of a language client a notification needs. */
export interface NotificationTarget {
  isRunning(): boolean;
  sendNotification(method: string, params: unknown): Promise<void>;
}

/**
 * Send a notification to a running server only (one starting or stopping gets the state at its next start);
 * a send that fails anyway (the server stopped meanwhile) goes to the log, never to the user.
 */
export function notifyIfRunning(target: NotificationTarget | null, method: string, params: unknown, log: (line: string) => void): void {
  if (target?.isRunning()) {
    target.sendNotification(method, params).catch((e: unknown) => log(`notify ${method}: ${String(e)}`));
  }
}
