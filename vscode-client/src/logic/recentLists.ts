/** The MCP servers' prompts and resources for completion, asked of the server at most once per few seconds
 * (completion asks on every key typed after `/` or `@`). */

import type { HandrailCommands } from "./handlers";

const FRESH_MS = 5000;

export class RecentLists {
  private readonly kept = new Map<string, { at: number; list: Promise<unknown[]> }>();

  /** `commands`: the running server's (null: none runs, so nothing to list). */
  constructor(private readonly commands: () => Promise<HandrailCommands | null>, private readonly now = () => Date.now()) {}

  get<T>(name: string, list: (commands: HandrailCommands) => Promise<T[]>): Promise<T[]> {
    const kept = this.kept.get(name);
    if (kept && this.now() - kept.at < FRESH_MS) {
      return kept.list as Promise<T[]>;
    }
    const fresh = (async () => {
      const commands = await this.commands();
      return commands ? list(commands) : [];
    })();
    this.kept.set(name, { at: this.now(), list: fresh });
    fresh.catch(() => this.kept.delete(name)); // a failure is not kept
    return fresh;
  }
}
