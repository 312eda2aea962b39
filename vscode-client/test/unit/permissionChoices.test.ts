import assert from "node:assert/strict";
import { test } from "node:test";
import { choiceItems, destinationItems, editTarget, promptTitle, toResult } from "../../src/logic/permissionChoices";
import { EDIT_PROMPT } from "./fixtures";

test("the first step offers allow once, always per suggested rule, deny, deny with a reason", () => {
  const items = choiceItems({ ...EDIT_PROMPT, suggestions: ["Edit(/a/**)", "Edit(/a/app.py)"] });
  assert.deepEqual(items.map((i) => i.choice.kind), ["allow", "always", "always", "deny", "denyWithFeedback"]);
  assert.match(items[1].label, /Always allow Edit\(\/a\/\*\*\)/);
  assert.match(items[2].label, /Always allow Edit\(\/a\/app\.py\)/);
});

test("without suggestions the tool name is the rule", () => {
  const items = choiceItems({ ...EDIT_PROMPT, suggestions: [] });
  assert.deepEqual(items[1].choice, { kind: "always", rule: "Edit" });
});

test("picks map to the contract's results", () => {
  assert.deepEqual(toResult({ kind: "allow" }), { decision: "allow" });
  assert.deepEqual(toResult({ kind: "always", rule: "Bash(npm test:*)" }, "projectSettings"),
    { decision: "allowAlways", rule: "Bash(npm test:*)", destination: "projectSettings" });
  assert.deepEqual(toResult({ kind: "deny" }), { decision: "deny" });
  assert.deepEqual(toResult({ kind: "denyWithFeedback" }, undefined, "  use yarn  "), { decision: "deny", feedback: "use yarn" });
  assert.deepEqual(toResult({ kind: "denyWithFeedback" }, undefined, "   "), { decision: "deny" });
});

test("escaping any step denies (fail closed)", () => {
  assert.deepEqual(toResult(undefined), { decision: "deny" });
  assert.deepEqual(toResult({ kind: "always", rule: "Edit" }, undefined), { decision: "deny" });
  assert.deepEqual(toResult({ kind: "denyWithFeedback" }, undefined, undefined), { decision: "deny" });
});

test("the destinations are the four the server accepts", () => {
  assert.deepEqual(destinationItems("Edit").map((d) => d.destination), ["session", "localSettings", "projectSettings", "userSettings"]);
});

test("edit tools name their file for the diff editor; others do not", () => {
  assert.equal(editTarget(EDIT_PROMPT), "/home/dev/project/app.py");
  assert.equal(editTarget({ ...EDIT_PROMPT, tool: "Bash", input: { command: "touch x" } }), null);
  assert.equal(editTarget({ ...EDIT_PROMPT, tool: "Write", input: {} }), null);
});

test("a sub-agent's prompt says so in the title", () => {
  const { title, placeholder } = promptTitle({ ...EDIT_PROMPT, agent: { toolUseId: "t", description: "fix tests" } });
  assert.match(title, /sub-agent: fix tests/);
  assert.match(placeholder, /Edit changes files/);
});
