/** How the server process is started: command line, environment and initialization options from settings. */

export interface LaunchSettings {
  /** `handrail.server.command`, e.g. "handrail lsp" or "/path/to/handrail lsp --log-level INFO". */
  command: string;
  /** `handrail.server.pythonPath`: when set, wins and runs `<python> -m handrail lsp`. */
  pythonPath: string;
  model: string;
  baseUrl: string;
  maxToolConcurrency: number;
  apiKey?: string;
  workspaceTrusted: boolean;
}

export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
  initializationOptions: Record<string, unknown>;
}

export const DEFAULT_COMMAND = "handrail lsp";

/** Split a command line on whitespace, honouring double and single quotes (no other shell syntax). */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let quote: string | null = null;
  let inWord = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) {
        quote = null;
      } else {
        current += ch;
      }
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) {
        words.push(current);
        current = "";
        inWord = false;
      }
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) {
    throw new Error(`unbalanced ${quote} in the server command: ${line}`);
  }
  if (inWord) {
    words.push(current);
  }
  return words;
}

/** The process to start and what to tell it. `baseEnv` is the extension host's environment. */
export function buildLaunch(settings: LaunchSettings, baseEnv: Record<string, string | undefined>): Launch {
  let words: string[];
  if (settings.pythonPath.trim()) {
    words = [settings.pythonPath.trim(), "-m", "handrail", "lsp"];
  } else {
    words = splitCommandLine(settings.command.trim() || DEFAULT_COMMAND);
  }
  if (words.length === 0) {
    words = splitCommandLine(DEFAULT_COMMAND);
  }
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(baseEnv)) {
    if (value !== undefined) {
      env[key] = value;
    }
  }
  if (settings.apiKey) {
    env.ANTHROPIC_API_KEY = settings.apiKey;
  }
  if (settings.maxToolConcurrency > 0) {
    env.HANDRAIL_MAX_TOOL_CONCURRENCY = String(Math.floor(settings.maxToolConcurrency));
  }
  const initializationOptions: Record<string, unknown> = { workspaceTrusted: settings.workspaceTrusted };
  if (settings.model.trim()) {
    initializationOptions.model = settings.model.trim();
  }
  if (settings.baseUrl.trim()) {
    initializationOptions.baseUrl = settings.baseUrl.trim();
  }
  if (settings.maxToolConcurrency > 0) {
    initializationOptions.maxToolConcurrency = Math.floor(settings.maxToolConcurrency);
  }
  return { command: words[0], args: words.slice(1), env, initializationOptions };
}

/**
 * The command that serves the scripted demo for an editor (`handrail demo --serve`), from the same
 * settings as the server: `<python> -m handrail demo --serve`, or the server command with its `lsp`
 * (and what follows it) replaced. Null when the command has no `lsp` word to replace.
 */
export function demoCommand(settings: Pick<LaunchSettings, "command" | "pythonPath">): string[] | null {
  if (settings.pythonPath.trim()) {
    return [settings.pythonPath.trim(), "-m", "handrail", "demo", "--serve"];
  }
  const words = splitCommandLine(settings.command.trim() || DEFAULT_COMMAND);
  const lsp = words.lastIndexOf("lsp");
  return lsp > 0 ? [...words.slice(0, lsp), "demo", "--serve"] : null;
}

/** What `handrail demo --serve` prints: the sample copy, its scripted model, and the question to ask. */
export interface DemoModel {
  workspace: string;
  baseUrl: string;
  prompt: string;
}

/** Read the demo's one JSON line (untrusted: it comes from a process); the model must be on this machine. */
export function readDemoLine(line: string): DemoModel | null {
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (typeof value.workspace !== "string" || typeof value.baseUrl !== "string" || typeof value.prompt !== "string") {
      return null;
    }
    const url = new URL(value.baseUrl);
    return url.hostname === "127.0.0.1" || url.hostname === "localhost" ? { workspace: value.workspace, baseUrl: value.baseUrl, prompt: value.prompt } : null;
  } catch {
    return null;
  }
}
