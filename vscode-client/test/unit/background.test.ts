import assert from "node:assert/strict";
import { test } from "node:test";
import { backgroundHeading, backgroundKindLabel, backgroundStatusLabel, readBackgroundTasks, runningCount } from "../../src/logic/background";
import type { BackgroundTask } from "../../src/logic/protocol";

const agent: BackgroundTask = { id: "agent_1", kind: "agent", description: "Find the callers", status: "running" };
const shell: BackgroundTask = { id: "shell_1", kind: "shell", description: "npm test", status: "completed" };

test("task lists from the wire: well-formed entries kept, the rest dropped", () => {
  assert.deepEqual(readBackgroundTasks([agent, shell]), [agent, shell]);
  assert.deepEqual(readBackgroundTasks([
    agent,
    null,
    "shell_1",
    { ...shell, kind: "process" },
    { id: "shell_2", kind: "shell", description: "make" }, // no status
    { id: 3, kind: "agent", description: "x", status: "running" },
  ]), [agent]);
  assert.deepEqual(readBackgroundTasks({ tasks: [agent] }), [], "not a list");
  assert.deepEqual(readBackgroundTasks(undefined), []);
});

test("extra fields a newer server sends are not carried into the view", () => {
  assert.deepEqual(readBackgroundTasks([{ ...agent, innerHTML: "<b>x</b>" }]), [agent]);
});

test("every status the server's tools report has a label; an unknown one is shown as sent", () => {
  // tools/background_agents.py AgentStatus and tools/background_shells.py ShellStatus
  for (const status of ["running", "completed", "failed", "stopped", "killed"]) {
    assert.ok(backgroundStatusLabel(status).startsWith(status), status);
  }
  assert.equal(backgroundStatusLabel("running"), "running…");
  assert.equal(backgroundStatusLabel("paused"), "paused");
  assert.equal(backgroundStatusLabel("constructor"), "constructor", "no inherited property is taken for a label");
  assert.equal(backgroundKindLabel("agent"), "Agent");
  assert.equal(backgroundKindLabel("shell"), "Shell");
});

test("the heading counts what still runs", () => {
  assert.equal(runningCount([agent, shell]), 1);
  assert.equal(backgroundHeading([agent]), "Background tasks · 1 running");
  assert.equal(backgroundHeading([agent, shell]), "Background tasks · 1 of 2 running");
  assert.equal(backgroundHeading([shell, { ...agent, status: "failed" }]), "Background tasks · all finished");
});
