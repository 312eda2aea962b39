/**
 * Starting the server so that a start that hangs cannot wedge the extension: each start has a deadline,
 * and a new start (Restart Server, a fixed setting) abandons the one in progress at once — its process
 * is killed — instead of waiting behind it.
 */

/** One launched server: `ready` settles when it answered `initialize` (or failed); `abort` ends it for good. */
export interface Launched {
  ready: Promise<void>;
  abort(): Promise<void>;
}

export type StartOutcome =
  | { kind: "running" }
  | { kind: "failed"; error: string }
  | { kind: "timeout"; seconds: number }
  /** A later start took over; this one's outcome no longer matters. */
  | { kind: "superseded" };

export class TimeoutError extends Error {}

/** `promise`, or a TimeoutError after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

export class StartSupervisor {
  private generation = 0;
  private current: Launched | null = null;
  private latest: Promise<StartOutcome> = Promise.resolve({ kind: "failed", error: "not started" });
  private abandonWait: () => void = () => undefined; // ends the wait for the current start's `initialize`

  /**
   * @param launch starts a server process and its client (may throw: the command does not exist)
   * @param timeoutMs the deadline for `initialize`
   */
  constructor(private readonly launch: () => Promise<Launched>, private readonly timeoutMs: () => number) {}

  /** Start (or restart). A start already in progress is abandoned and its process ended. */
  start(): Promise<StartOutcome> {
    this.generation += 1;
    this.abandonWait();
    this.latest = this.run(this.generation);
    return this.latest;
  }

  /** The outcome of the newest start (waits for it, never for an abandoned one). */
  async settled(): Promise<StartOutcome> {
    for (;;) {
      const latest = this.latest;
      const outcome = await latest;
      if (latest === this.latest) {
        return outcome;
      }
    }
  }

  /** End the server (a start in progress too). */
  async stop(): Promise<void> {
    this.generation += 1;
    this.abandonWait();
    const previous = this.current;
    this.current = null;
    this.latest = Promise.resolve({ kind: "failed", error: "stopped" });
    await previous?.abort();
  }

  private async run(generation: number): Promise<StartOutcome> {
    const previous = this.current;
    this.current = null;
    await previous?.abort();
    if (generation !== this.generation) {
      return { kind: "superseded" };
    }
    let launched: Launched;
    try {
      launched = await this.launch();
    } catch (error) {
      return generation === this.generation ? { kind: "failed", error: error instanceof Error ? error.message : String(error) } : { kind: "superseded" };
    }
    if (generation !== this.generation) {
      await launched.abort();
      return { kind: "superseded" };
    }
    this.current = launched;
    const ms = this.timeoutMs();
    // an abandoned start settles at once, even when its process never answers nor dies
    const abandoned = new Promise<never>((_, reject) => { this.abandonWait = () => reject(new Error("superseded")); });
    try {
      await withTimeout(Promise.race([launched.ready, abandoned]), ms);
    } catch (error) {
      if (generation !== this.generation) {
        return { kind: "superseded" };
      }
      this.current = null;
      await launched.abort();
      return error instanceof TimeoutError
        ? { kind: "timeout", seconds: Math.round(ms / 1000) }
        : { kind: "failed", error: error instanceof Error ? error.message : String(error) };
    }
    return generation === this.generation ? { kind: "running" } : { kind: "superseded" };
  }
}
