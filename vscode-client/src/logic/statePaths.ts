/** Where the server keeps a session's files (mirrors src/handrail/state.py and agent/storage.py). */

import * as path from "node:path";

/** handrail's state folder: `$HANDRAIL_STATE_DIR`, else `$XDG_STATE_HOME/handrail`, else `~/.local/state/handrail`. */
export function stateDir(env: Record<string, string | undefined>, home: string): string {
  if (env.HANDRAIL_STATE_DIR) {
    return env.HANDRAIL_STATE_DIR;
  }
  return path.join(env.XDG_STATE_HOME || path.join(home, ".local", "state"), "handrail");
}

/** The folder of one session's files. */
function sessionFolder(sessionId: string, env: Record<string, string | undefined>, home: string): string {
  return path.join(stateDir(env, home), "sessions", sessionId.replace(/[^A-Za-z0-9_.-]/g, "_"));
}

/** The permission audit log of one session. */
export function auditLogPath(sessionId: string, env: Record<string, string | undefined>, home: string): string {
  return path.join(sessionFolder(sessionId, env, home), "audit.jsonl");
}

/** The transcript the server saves of one session (agent/transcript.py), from which it resumes the session. */
export function transcriptPath(sessionId: string, env: Record<string, string | undefined>, home: string): string {
  return path.join(sessionFolder(sessionId, env, home), "transcript.jsonl");
}
