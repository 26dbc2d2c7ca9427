import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { BoundedSet, EventFilter } from "./dedupe";
import type { WireEvent } from "./wire";

const created = (pos: number, id: number): WireEvent => ({ pos, type: "message.created", data: { id } });
const edited = (pos: number, id: number): WireEvent => ({ pos, type: "message.edited", data: { id } });

describe("EventFilter", () => {
  test("drops events at or below the last processed pos, keeps ephemeral frames", () => {
    const f = new EventFilter();
    f.lastPos = 10;
    expect(f.accept(created(10, 1))).toBe(false);
    expect(f.accept(created(11, 1))).toBe(true);
    expect(f.accept(created(11, 1))).toBe(false);
    expect(f.accept({ pos: 0, type: "typing.started", data: {} })).toBe(true);
    expect(f.accept({ pos: 0, type: "typing.started", data: {} })).toBe(true);
    expect(f.lastPos).toBe(11);
  });

  test("delivers a message once by id, edits of it every time", () => {
    const f = new EventFilter();
    expect(f.accept(created(1, 7))).toBe(true);
    expect(f.accept(edited(2, 7))).toBe(true);
    expect(f.accept(created(3, 7))).toBe(false); // same message again, under a new pos (after a reset)
    expect(f.accept(edited(4, 7))).toBe(true);
    expect(f.lastPos).toBe(4);
  });

  test("continues from a reset position, even a lower one", () => {
    const f = new EventFilter();
    f.accept(created(50, 1));
    f.reset(20);
    expect(f.accept(created(21, 2))).toBe(true);
    expect(f.accept(created(22, 1))).toBe(false); // delivered before the reset
  });

  // The server's log: events with increasing pos; a message id appears in one created event,
  // except after a restore (the same message under a new pos). Deliveries replay suffixes of
  // the log from any position at or before the last one sent (a resume from an older pos than
  // processed), interleaved with ephemeral frames. The filter must hand each logged event on
  // once, in log order, and each message's created event once.
  test("property: replays and duplicates never reach the listeners twice, nothing is lost", () => {
    const log = fc
      .array(fc.record({ gap: fc.integer({ min: 1, max: 3 }), kind: fc.constantFrom("created", "edited", "reaction"), id: fc.integer({ min: 1, max: 15 }) }), {
        maxLength: 60,
      })
      .map((items) => {
        let pos = 0;
        return items.map(({ gap, kind, id }): WireEvent => {
          pos += gap;
          return kind === "created" ? created(pos, id) : kind === "edited" ? edited(pos, id) : { pos, type: "reaction.added", data: { messageId: id } };
        });
      });
    fc.assert(
      fc.property(log, fc.array(fc.nat(), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 8 }), (events, rewinds, typings) => {
        // Delivery: the log in order, but every so often the connection drops and the server
        // replays from an earlier index.
        const delivered: WireEvent[] = [];
        let i = 0;
        let r = 0;
        while (i < events.length) {
          delivered.push(events[i] as WireEvent);
          i++;
          if (r < rewinds.length && i % 5 === 0) i = Math.max(0, i - 1 - ((rewinds[r++] as number) % 6));
          if (typings.includes(i)) delivered.push({ pos: 0, type: "typing.started", data: {} });
        }
        const f = new EventFilter();
        const out = delivered.filter((e) => f.accept(e));
        const logged = out.filter((e) => e.pos > 0);
        // Expected: each log event once, in order, minus created events of an id seen before.
        const seen = new Set<unknown>();
        const want = events.filter((e) => {
          if (e.type !== "message.created") return true;
          const id = (e.data as { id: number }).id;
          if (seen.has(id)) return false;
          seen.add(id);
          return true;
        });
        expect(logged).toEqual(want);
        expect(out.length - logged.length).toBe(delivered.filter((e) => e.pos === 0).length);
      }),
    );
  });
});

describe("BoundedSet", () => {
  test("forgets the oldest beyond its size", () => {
    const s = new BoundedSet<number>(3);
    for (const n of [1, 2, 3, 4]) s.add(n);
    expect([s.has(1), s.has(2), s.has(4), s.size]).toEqual([false, true, true, 3]);
  });
});
