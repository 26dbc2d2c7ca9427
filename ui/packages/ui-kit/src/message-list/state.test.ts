import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyState, listReducer, MAX_LOADED, messagesOf, type ListAction, type ListMessage } from "./state";

class Msg implements ListMessage {
  constructor(readonly id: number, readonly edited = 0, readonly deleted = 0, readonly text = "") {}
  getId() { return this.id; }
  getEditedAt() { return this.edited || undefined; }
  getDeletedAt() { return this.deleted || undefined; }
}

const apply = (actions: ListAction<Msg>[]) => actions.reduce(listReducer<Msg>, emptyState<Msg>());

describe("listReducer", () => {
  it("holds at most MAX_LOADED messages: paging back lets the newest go, paging forward the oldest", () => {
    const page = (from: number) => Array.from({ length: 100 }, (_, i) => new Msg(from + i));
    let s = apply([{ type: "reset", messages: page(10_001), hasOlder: true, hasNewer: false }]);
    for (let p = 1; p <= 20; p++) s = listReducer(s, { type: "older", messages: page(10_001 - 100 * p), hasOlder: true });
    expect(s.ids.length).toBe(MAX_LOADED);
    expect(s.byId.size).toBe(MAX_LOADED);
    expect([s.ids[0], s.ids.at(-1), s.hasNewer, s.hasOlder]).toEqual([8_001, 8_500, true, true]);
    for (let p = 0; p < 10; p++) s = listReducer(s, { type: "newer", messages: page(8_501 + 100 * p), hasNewer: p < 9 });
    expect(s.ids.length).toBe(MAX_LOADED);
    expect([s.ids[0], s.ids.at(-1), s.hasNewer, s.hasOlder]).toEqual([9_001, 9_500, false, true]);
    // Live messages overfill it a little before the oldest go.
    s = apply([{ type: "reset", messages: page(1), hasOlder: false, hasNewer: false }]);
    for (let i = 101; i <= 1_000; i++) s = listReducer(s, { type: "upsert", message: new Msg(i) });
    expect(s.ids.length).toBe(750);
    expect([s.ids[0], s.ids.at(-1), s.hasOlder, s.hasNewer]).toEqual([251, 1_000, true, false]);
  });

  it("keeps id order and drops duplicates from overlapping pages and live events", () => {
    const s = apply([
      { type: "reset", messages: [new Msg(5), new Msg(6)], hasOlder: true, hasNewer: false },
      { type: "upsert", message: new Msg(7) },
      { type: "older", messages: [new Msg(3), new Msg(4), new Msg(5)], hasOlder: false },
      { type: "upsert", message: new Msg(7) },
    ]);
    expect(s.ids).toEqual([3, 4, 5, 6, 7]);
    expect(s.hasOlder).toBe(false);
  });

  it("never lets an older copy replace an edit or a tombstone", () => {
    const s = apply([
      { type: "upsert", message: new Msg(1, 0, 0, "v1") },
      { type: "upsert", message: new Msg(1, 10, 0, "v2") },
      { type: "upsert", message: new Msg(1, 0, 0, "v1 again (a late page)") },
      { type: "upsert", message: new Msg(1, 10, 20, "deleted") },
      { type: "upsert", message: new Msg(1, 15, 0, "late edit event") },
    ]);
    expect(messagesOf(s).map((m) => m.text)).toEqual(["deleted"]);
  });

  it("returns the same state when nothing changes (no needless renders)", () => {
    const m = new Msg(1);
    const s = apply([{ type: "upsert", message: m }]);
    expect(listReducer(s, { type: "upsert", message: m })).toBe(s);
    expect(listReducer(s, { type: "remove", id: 99 })).toBe(s);
    expect(listReducer(s, { type: "updateAll", update: (x) => x })).toBe(s);
  });

  // Property: however pages and live events interleave and repeat, the list holds each id once,
  // in ascending order, and for each id the newest version that arrived.
  it("converges to the same list whatever the order and repetition of deliveries", () => {
    const msg = fc.record({ id: fc.integer({ min: 1, max: 40 }), edited: fc.integer({ min: 0, max: 3 }), deleted: fc.integer({ min: 0, max: 1 }) });
    const action = fc.oneof(
      msg.map((m) => ({ type: "upsert" as const, message: new Msg(m.id, m.edited, m.deleted) })),
      fc.array(msg, { maxLength: 8 }).map((ms) => ({ type: "older" as const, messages: ms.map((m) => new Msg(m.id, m.edited, m.deleted)), hasOlder: true })),
      fc.array(msg, { maxLength: 8 }).map((ms) => ({ type: "newer" as const, messages: ms.map((m) => new Msg(m.id, m.edited, m.deleted)), hasNewer: false })),
    );
    fc.assert(
      fc.property(fc.array(action, { maxLength: 30 }), fc.infiniteStream(fc.nat()), (actions, seeds) => {
        const shuffled = [...actions];
        for (let i = shuffled.length - 1; i > 0; i--) {
          const j = seeds.next().value % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
        }
        const a = apply(actions);
        const b = apply(shuffled);
        const view = (s: typeof a) => messagesOf(s).map((m) => [m.id, m.deleted, m.deleted ? 0 : m.edited].join(":"));
        expect(view(a)).toEqual(view(b));
        expect(a.ids).toEqual([...new Set(a.ids)].sort((x, y) => x - y));
      }),
      { numRuns: 300 },
    );
  });
});
