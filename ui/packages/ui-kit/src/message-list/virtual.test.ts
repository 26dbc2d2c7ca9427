import { describe, expect, it } from "vitest";
import { cap, indexAt, MAX_ITEMS, MIN_ITEMS, offsetsOf, rangeFor, widen } from "./virtual";

describe("windowing arithmetic", () => {
  const keys = Array.from({ length: 1000 }, (_, i) => `m-${i}`);
  // Measured items are 40 px, the rest use the estimate (64).
  const heights = new Map(keys.slice(0, 500).map((k) => [k, 40] as const));
  const offs = offsetsOf(keys, heights, 64);

  it("offsets are prefix sums of measured heights and the estimate", () => {
    expect(offs[0]).toBe(0);
    expect(offs[500]).toBe(500 * 40);
    expect(offs[1000]).toBe(500 * 40 + 500 * 64);
  });

  it("indexAt finds the item under a pixel (n past the end)", () => {
    expect(indexAt(offs, 0)).toBe(0);
    expect(indexAt(offs, 39.9)).toBe(0);
    expect(indexAt(offs, 40)).toBe(1);
    expect(indexAt(offs, 500 * 40 + 64 * 10 + 1)).toBe(510);
    expect(indexAt(offs, 1e9)).toBe(1000); // past the end: n
    expect(indexAt(offsetsOf([], heights, 64), 10)).toBe(0);
  });

  it("rangeFor covers the view plus the overscan on both sides", () => {
    const r = rangeFor(offs, 4000, 4800, 400); // items 100..120 in view
    expect(r).toEqual({ start: 90, end: 131 });
    expect(rangeFor(offs, 0, 800, 0)).toEqual({ start: 0, end: 21 });
    expect(rangeFor(offsetsOf([], heights, 64), 0, 800)).toEqual({ start: 0, end: 0 });
  });

  it("widen grows a window to MIN_ITEMS towards older items, cap cuts it to MAX_ITEMS around the view", () => {
    expect(widen({ start: 100, end: 110 }, 1000)).toEqual({ start: 100 - (MIN_ITEMS - 10), end: 110 });
    expect(widen({ start: 5, end: 10 }, 1000)).toEqual({ start: 0, end: MIN_ITEMS });
    expect(widen({ start: 0, end: 3 }, 3)).toEqual({ start: 0, end: 3 });
    const c = cap({ start: 0, end: 300 }, 140, 150);
    expect(c.end - c.start).toBe(MAX_ITEMS);
    expect(c.start <= 140 && c.end >= 150).toBe(true);
    // A view larger than the cap is kept whole.
    const big = cap({ start: 0, end: 300 }, 10, 200);
    expect(big).toEqual({ start: 10, end: 200 });
  });
});
