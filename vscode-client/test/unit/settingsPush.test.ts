import assert from "node:assert/strict";
import { test } from "node:test";
import { notifyIfRunning, settingsChange, type NotificationTarget } from "../../src/logic/settingsPush";

/** What granting workspace trust changes: the restricted launch settings (and with them the section). */
const TRUST_GRANTED = new Set(["handrail", "handrail.server", "handrail.server.command", "handrail.server.pythonPath"]);

test("granting trust changes launch settings: the server restarts and nothing is pushed to the one stopping", () => {
  assert.equal(settingsChange((s) => TRUST_GRANTED.has(s)), "restart");
  assert.equal(settingsChange((s) => s === "handrail" || s === "handrail.maxToolConcurrency"), "restart");
  assert.equal(settingsChange((s) => s === "handrail" || s === "handrail.model"), "push");
  assert.equal(settingsChange((s) => s === "editor"), "none");
});

class Target implements NotificationTarget {
  sent: string[] = [];
  constructor(private readonly running: boolean, private readonly fails = false) {}
  isRunning() { return this.running; }
  sendNotification(method: string) {
    this.sent.push(method);
    return this.fails ? Promise.reject(new Error("Client is not running")) : Promise.resolve();
  }
}

test("a notification reaches a running server only; one that fails anyway is logged, not thrown or shown", async () => {
  const logged: string[] = [];
  const stopped = new Target(false);
  notifyIfRunning(stopped, "workspace/didChangeConfiguration", {}, (l) => logged.push(l));
  notifyIfRunning(null, "workspace/didChangeConfiguration", {}, (l) => logged.push(l));
  assert.deepEqual(stopped.sent, []);
  const running = new Target(true);
  notifyIfRunning(running, "workspace/didChangeConfiguration", {}, (l) => logged.push(l));
  assert.deepEqual(running.sent, ["workspace/didChangeConfiguration"]);
  const stopping = new Target(true, true); // stopped between the check and the send
  notifyIfRunning(stopping, "workspace/didChangeConfiguration", {}, (l) => logged.push(l));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(logged, ["notify workspace/didChangeConfiguration: Error: Client is not running"]);
});
