import assert from "node:assert/strict";
import { test } from "node:test";
import { applyUnifiedDiff } from "../../src/logic/unifiedDiff";
import { EDIT_PROMPT } from "./fixtures";

test("a one-hunk edit applies", () => {
  assert.equal(applyUnifiedDiff("def greet(name):\n    return 'hello ' + name\n", EDIT_PROMPT.diff!), "def greet(name):\n    return 'hi ' + name\n");
});

test("several hunks, lines kept between them", () => {
  const text = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const diff = "--- a\n+++ b\n@@ -1,3 +1,3 @@\n-line 1\n+LINE 1\n line 2\n line 3\n@@ -18,3 +18,4 @@\n line 18\n line 19\n line 20\n+line 21\n";
  const out = applyUnifiedDiff(text, diff).split("\n");
  assert.equal(out[0], "LINE 1");
  assert.equal(out[10], "line 11");
  assert.equal(out[20], "line 21");
});

test("a new file from an empty text", () => {
  assert.equal(applyUnifiedDiff("", "--- /dev/null\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n"), "a\nb\n");
});

test("no newline at end of file is honoured on both sides", () => {
  const diff = "--- a\n+++ b\n@@ -1 +1 @@\n-old\n\\ No newline at end of file\n+new\n\\ No newline at end of file\n";
  assert.equal(applyUnifiedDiff("old", diff), "new");
  const adds = "--- a\n+++ b\n@@ -1 +1 @@\n-old\n\\ No newline at end of file\n+new\n";
  assert.equal(applyUnifiedDiff("old", adds), "new\n");
});

test("a diff that does not match the text throws instead of guessing", () => {
  assert.throws(() => applyUnifiedDiff("something else\n", EDIT_PROMPT.diff!), /does not apply/);
});
