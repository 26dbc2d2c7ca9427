import { isObject, type WireEvent } from "./wire";

/** A set that forgets its oldest members beyond a size. */
export class BoundedSet<T> {
  private readonly items = new Set<T>();
  constructor(private readonly max: number) {}

  has(v: T): boolean { return this.items.has(v); }
  add(v: T): void {
    if (this.items.has(v)) return;
    this.items.add(v);
    if (this.items.size > this.max) {
      const oldest = this.items.values().next();
      if (!oldest.done) this.items.delete(oldest.value);
    }
  }
  clear(): void { this.items.clear(); }
  get size(): number { return this.items.size; }
}

/**
 * EventFilter drops what was already processed. Delivery is at-least-once: a resume from an
 * older position replays events, so an event whose pos is not above the last processed one is
 * dropped; and a message already delivered (by id) is not delivered again, whatever its pos
 * (e.g. after a reset to a lower position). Ephemeral frames (pos 0) always pass and never
 * move the offset.
 */
export class EventFilter {
  /** The pos of the last processed event; undefined before the first ready. */
  lastPos: number | undefined;
  private readonly messageIds: BoundedSet<number>;

  constructor(maxIds = 10_000) { this.messageIds = new BoundedSet(maxIds); }

  /** accept says whether ev is new, and records it as processed. */
  accept(ev: WireEvent): boolean {
    if (ev.pos > 0) {
      if (this.lastPos !== undefined && ev.pos <= this.lastPos) return false;
      this.lastPos = ev.pos;
    }
    if (ev.type === "message.created" && isObject(ev.data) && typeof ev.data["id"] === "number") {
      const id = ev.data["id"];
      if (this.messageIds.has(id)) return false;
      this.messageIds.add(id);
    }
    return true;
  }

  /** The server answered reset: continue from pos (even when lower than before). */
  reset(pos: number): void { this.lastPos = pos; }

  clear(): void {
    this.lastPos = undefined;
    this.messageIds.clear();
  }
}
