/**
 * One prompt at a time: permission and askUser requests wait their turn instead of stacking
 * quick picks. A request the server cancels (or settles itself) while queued is dropped unseen.
 */

import type { CancellationToken } from "vscode-jsonrpc";

interface Pending<T> {
  key: string;
  token: CancellationToken;
  show: (token: CancellationToken) => Promise<T>;
  fallback: T;
  resolve: (value: T) => void;
  dropped: boolean;
}

export class PromptQueue {
  private readonly pending: Pending<unknown>[] = [];
  private running = false;

  /** Number of prompts waiting behind the one shown. */
  get waiting(): number {
    return this.pending.length;
  }

  /**
   * Queue a prompt. `show` runs when it is this prompt's turn; `fallback` answers a prompt that was
   * cancelled or dropped before it was shown (the server ignores that answer anyway).
   */
  enqueue<T>(key: string, token: CancellationToken, fallback: T, show: (token: CancellationToken) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve) => {
      const item: Pending<T> = { key, token, show, fallback, resolve, dropped: false };
      this.pending.push(item as Pending<unknown>);
      void this.pump();
    });
  }

  /** Drop a queued (not yet shown) prompt, e.g. because the chat stream says it was decided. */
  drop(key: string): boolean {
    const index = this.pending.findIndex((p) => p.key === key);
    if (index < 0) {
      return false;
    }
    const [item] = this.pending.splice(index, 1);
    item.dropped = true;
    item.resolve(item.fallback);
    return true;
  }

  private async pump(): Promise<void> {
    if (this.running) {
      return;
    }
    this.running = true;
    try {
      for (let item = this.pending.shift(); item; item = this.pending.shift()) {
        if (item.token.isCancellationRequested) {
          item.resolve(item.fallback);
          continue;
        }
        try {
          item.resolve(await item.show(item.token));
        } catch {
          item.resolve(item.fallback); // a broken prompt must not block the ones behind it
        }
      }
    } finally {
      this.running = false;
    }
  }
}
