/** Runs tasks one after another, in push order, each to completion (awaiting promises).
 * A task that fails is reported and the next one runs. */
export class SerialQueue {
  private tasks: Array<() => unknown> = [];
  private running = false;
  private waiters: Array<() => void> = [];

  push(task: () => unknown): void {
    this.tasks.push(task);
    if (!this.running) void this.drain();
  }

  /** Drops the tasks not started yet. */
  clear(): void { this.tasks = []; }

  /** Resolves once every task pushed so far has run. */
  idle(): Promise<void> {
    if (!this.running && this.tasks.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (let task = this.tasks.shift(); task; task = this.tasks.shift()) {
        try {
          const r = task();
          if (r instanceof Promise) await r;
        } catch (err) {
          console.error("chat-sdk: event handling failed", err);
        }
      }
    } finally {
      this.running = false;
      const w = this.waiters;
      this.waiters = [];
      for (const resolve of w) resolve();
    }
  }
}
