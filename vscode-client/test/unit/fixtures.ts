/** Recorded messages shared by the unit tests. */

import * as fs from "node:fs";
import * as path from "node:path";
import type { ChatEvent, PermissionParams } from "../../src/logic/protocol";

function fixture(name: string): string {
  // out/test/unit -> test/fixtures
  return path.join(__dirname, "..", "..", "..", "test", "fixtures", name);
}

/** A chat stream recorded from the real server, extended with the contract's newer kinds. */
export function recordedStream(): ChatEvent[] {
  return JSON.parse(fs.readFileSync(fixture("chat-stream.json"), "utf8")) as ChatEvent[];
}

export const EDIT_PROMPT: PermissionParams = {
  sessionId: "s1",
  toolUseId: "toolu_edit",
  tool: "Edit",
  input: { file_path: "/home/dev/project/app.py", old_string: "'hello '", new_string: "'hi '" },
  summary: "Edit /home/dev/project/app.py",
  reason: "Edit changes files",
  diff: "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def greet(name):\n-    return 'hello ' + name\n+    return 'hi ' + name\n",
  suggestions: ["Edit(/home/dev/project/**)"],
};
