/** Reconnect delays: exponential with "equal jitter", so clients that lost the same server do
 * not come back in lockstep, yet none waits less than half its step. */
export interface BackoffOptions {
  /** The first step (attempt 0), in ms. */
  readonly baseMs: number;
  /** No delay exceeds this. */
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 };

/** backoffDelay is the wait before reconnect attempt n (0-based): a random value in
 * [step/2, step] where step = min(maxMs, baseMs·2ⁿ). random returns values in [0, 1). */
export function backoffDelay(attempt: number, opts: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const n = Math.max(0, Math.floor(attempt));
  // 2**n overflows to Infinity for large n; min() keeps it at maxMs.
  const step = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(n, 64));
  return Math.round(step / 2 + random() * (step / 2));
}
