import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { backoffDelay, DEFAULT_BACKOFF } from "./backoff";

describe("backoffDelay", () => {
  test("stays within [step/2, step] of a doubling step capped at maxMs", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const step = Math.min(DEFAULT_BACKOFF.maxMs, DEFAULT_BACKOFF.baseMs * 2 ** Math.min(attempt, 64));
        const d = backoffDelay(attempt, DEFAULT_BACKOFF, () => r);
        expect(d).toBeGreaterThanOrEqual(Math.floor(step / 2));
        expect(d).toBeLessThanOrEqual(step);
      }),
    );
  });

  test("grows exponentially, then stays at the cap", () => {
    const lo = (n: number) => backoffDelay(n, DEFAULT_BACKOFF, () => 0);
    const hi = (n: number) => backoffDelay(n, DEFAULT_BACKOFF, () => 0.999999);
    expect([lo(0), lo(1), lo(2), lo(3)]).toEqual([250, 500, 1000, 2000]);
    expect([hi(0), hi(1), hi(2)]).toEqual([500, 1000, 2000]);
    expect(hi(10)).toBe(30_000);
    expect(hi(1e6)).toBe(30_000);
  });

  test("jitter spreads clients that lost the same server", () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelay(5)));
    expect(delays.size).toBeGreaterThan(10);
  });
});
