/**
 * Windowing for the message list: only the items in and near the view are in the DOM; spacers
 * stand for the rest, sized from each item's measured height (or an estimate until it has been
 * on screen). The window is held by item keys, not indices, so a page prepended above or a
 * message appended below leaves the same items rendered; the scroll keeper (scroll.ts) then
 * keeps the first visible message where it was, which absorbs every spacer change.
 *
 * Own windowing rather than a library: the list already has a deterministic scroll keeper
 * (anchoring on the first visible message, following the bottom, revealing a target) that the
 * libraries each re-implement differently; this adds only the window and the spacers to it.
 */
import { startTransition, useCallback, useEffect, useMemo, useRef, useState, type RefObject } from "react";

/** Rendered beyond each edge of the view, in pixels. */
export const OVERSCAN_PX = 900;
/** The window moves only when the view comes this close to one of its edges. */
const SLACK_PX = 300;
/** An item's height until it has been measured. */
export const ESTIMATE_PX = 64;
/** At least this many items are rendered around a target (goToMessageId, a focus move). */
const AROUND = 20;
/** The window holds at least this many items (a first page and its separators, whatever their
 * heights), older ones first: ~35 DOM nodes each keeps the list under 2,000 nodes. */
export const MIN_ITEMS = 50;

/** A window at the newest item grows by at most this many items added after it at once. */
const LIVE_ITEMS = 8;
/** And at most this many (the overscan of short messages is cut), so the DOM stays small. */
export const MAX_ITEMS = 64;

/** cap cuts [start, end) to MAX_ITEMS items around the view [vs, ve). */
export function cap(r: { start: number; end: number }, vs: number, ve: number): { start: number; end: number } {
  if (r.end - r.start <= MAX_ITEMS) return r;
  const spare = Math.max(0, MAX_ITEMS - (ve - vs));
  const start = Math.max(r.start, vs - (spare >> 1));
  return { start, end: Math.min(r.end, start + Math.max(MAX_ITEMS, ve - vs)) };
}

/** widen grows [start, end) to MIN_ITEMS items, towards older items first. */
export function widen(r: { start: number; end: number }, n: number): { start: number; end: number } {
  const missing = MIN_ITEMS - (r.end - r.start);
  if (missing <= 0) return r;
  const start = Math.max(0, r.start - missing);
  return { start, end: Math.min(n, Math.max(r.end, start + MIN_ITEMS)) };
}

export interface WindowRange {
  start: number;
  end: number;
  /** Spacer heights above and below the rendered items. */
  top: number;
  bottom: number;
}

/** Where the window should be, decided by the list. */
export type WindowMode = { kind: "view" } | { kind: "bottom" } | { kind: "around"; key: string };

interface Held {
  startKey: string | undefined;
  endKey: string | undefined; // the last rendered key (inclusive)
  /** The window reached the newest item: items added after it are rendered too. */
  toEnd: boolean;
}

/** offsetsOf returns offsets[i] = the top of item i, offsets[n] = the total height. */
export function offsetsOf(keys: readonly string[], heights: ReadonlyMap<string, number>, estimate: number): Float64Array {
  const out = new Float64Array(keys.length + 1);
  for (let i = 0; i < keys.length; i++) out[i + 1] = out[i]! + (heights.get(keys[i]!) ?? estimate);
  return out;
}

/** The first index i in [0, n] with offsets[i] > y (binary search over the ascending prefix sums). */
export function indexAt(offsets: Float64Array, y: number): number {
  let lo = 0;
  let hi = offsets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid + 1]! > y) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** rangeFor is the window covering [top, bottom] (content pixels) plus the overscan. */
export function rangeFor(offsets: Float64Array, top: number, bottom: number, overscan = OVERSCAN_PX): { start: number; end: number } {
  const n = offsets.length - 1;
  if (n === 0) return { start: 0, end: 0 };
  const start = Math.min(indexAt(offsets, Math.max(0, top - overscan)), n - 1);
  const end = Math.max(start + 1, Math.min(n, indexAt(offsets, bottom + overscan) + 1));
  return { start, end };
}

export interface VirtualWindow {
  range: WindowRange;
  /** Records the heights of the rendered items (call in a layout effect); true if one changed. */
  measure(): boolean;
  /** Recomputes the window for the scroller's position and the mode; renders again if it moved. */
  update(mode: WindowMode, force?: boolean): void;
  /** Whether the item with this key is rendered now. */
  rendered(key: string): boolean;
}

/** The rendered range for what is held: the held keys (with the separators above the first), or
 * the newest items about two views' worth while nothing is held. */
function heldRange(keys: readonly string[], index: ReadonlyMap<string, number>, held: Held, offsets: Float64Array, viewHeight: number): WindowRange {
  const n = keys.length;
  let start: number;
  let end: number;
  const s = held.startKey !== undefined ? index.get(held.startKey) : undefined;
  const e = held.endKey !== undefined ? index.get(held.endKey) : undefined;
  if (s !== undefined && e !== undefined && s <= e) {
    start = s;
    end = e + 1;
    // The separators right above the first held message come with it.
    while (start > 0 && !isMessageKey(keys[start - 1]!)) start--;
  } else {
    // Nothing held yet (or the held items are gone): the newest items, about two views' worth.
    start = widen({ start: Math.min(indexAt(offsets, Math.max(0, offsets[n]! - viewHeight - OVERSCAN_PX)), Math.max(0, n - 1)), end: n }, n).start;
    end = n;
  }
  // A window that reached the newest item takes in the few items added after it (live
  // messages), so a message arriving at the bottom appears (and is announced) without waiting
  // for a scroll; a page of newer messages waits for the view to come to it.
  if (held.toEnd && e !== undefined && n - (e + 1) <= LIVE_ITEMS) end = n;
  return { start, end, top: offsets[start] ?? 0, bottom: offsets[n]! - (offsets[end] ?? offsets[n]!) };
}

/** Records the heights of the rendered items in heights; the new estimate, and whether one changed. */
function measureItems(content: HTMLElement, r: WindowRange, keys: readonly string[], heights: Map<string, number>): { changed: boolean; estimate: number | undefined } {
  const found = new Map<string, HTMLElement>();
  for (const el of content.children) {
    if (!(el instanceof HTMLElement)) continue;
    const key = el.dataset["itemKey"] ?? (el.dataset["messageId"] ? `m-${el.dataset["messageId"]}` : undefined);
    if (key) found.set(key, el);
  }
  let changed = false;
  let sum = 0;
  let count = 0;
  for (let i = r.start; i < r.end && i < keys.length; i++) {
    const key = keys[i]!;
    const el = found.get(key);
    // An item that renders nothing takes no room.
    const h = el ? el.offsetHeight + marginsOf(el) : 0;
    if (el) {
      sum += h;
      count++;
    }
    if (heights.get(key) !== h) {
      heights.set(key, h);
      changed = true;
    }
  }
  return { changed, estimate: count > 0 ? Math.max(24, Math.round(sum / count)) : undefined };
}

/** Where the window should go for mode, from the current range; undefined: it stays. */
function nextRange(mode: WindowMode, force: boolean, cur: WindowRange, keys: readonly string[], offs: Float64Array, sc: HTMLElement, content: HTMLElement | null) {
  const n = keys.length;
  if (mode.kind === "around") {
    const i = keys.indexOf(mode.key);
    if (i < 0 || (!force && i >= cur.start + 2 && i < cur.end - 2)) return undefined;
    return widen({ start: Math.max(0, i - AROUND), end: Math.min(n, i + AROUND + 1) }, n);
  }
  if (mode.kind === "bottom") {
    const viewStart = indexAt(offs, offs[n]! - sc.clientHeight);
    return widen(cap({ start: rangeFor(offs, offs[n]! - sc.clientHeight, offs[n]!).start, end: n }, viewStart, n), n);
  }
  // The view in content coordinates: the rendered items sit below the top spacer, which
  // starts after the content's padding (the spacer's own offsetTop says where).
  const top = sc.scrollTop - contentTop(content);
  const bottom = top + sc.clientHeight;
  // Keep the window while it covers the view with some slack and is not much larger than
  // a window made now would be (a window grown by appends or a jump is cut back).
  const covered = offs[cur.start]! <= Math.max(0, top - SLACK_PX) && offs[cur.end]! >= Math.min(offs[n]!, bottom + SLACK_PX);
  const lean = cur.end - cur.start <= MIN_ITEMS || (cur.end - cur.start <= MAX_ITEMS && offs[cur.end]! - offs[cur.start]! <= bottom - top + 4 * OVERSCAN_PX);
  if (covered && lean && !force) return undefined;
  const view = rangeFor(offs, top, bottom, 0);
  return widen(cap(rangeFor(offs, top, bottom), view.start, view.end), n);
}

/** The items in view alone (a jump's first frame). */
function viewOnly(mode: WindowMode, keys: readonly string[], offs: Float64Array, sc: HTMLElement, content: HTMLElement | null) {
  const n = keys.length;
  if (mode.kind === "bottom") return { start: indexAt(offs, offs[n]! - sc.clientHeight), end: n };
  const base = contentTop(content);
  return rangeFor(offs, sc.scrollTop - base, sc.scrollTop - base + sc.clientHeight, 0);
}

/** The window is held by message keys: a separator's key (one per day) moves up when older
 * messages of its day are prepended, and would drag the window with it. */
function holdOf(next: { start: number; end: number }, keys: readonly string[]): Held {
  let a = next.start;
  while (a < next.end - 1 && !isMessageKey(keys[a]!)) a++;
  let z = next.end - 1;
  while (z > a && !isMessageKey(keys[z]!)) z--;
  return { startKey: keys[a], endKey: keys[z], toEnd: next.end === keys.length };
}

/**
 * useVirtualWindow windows `keys` inside `scroller`; the rendered items are the elements with
 * a data-item-key attribute under `content`.
 */
export function useVirtualWindow(o: {
  keys: readonly string[];
  scroller: RefObject<HTMLDivElement | null>;
  content: RefObject<HTMLDivElement | null>;
}): VirtualWindow {
  const heights = useRef(new Map<string, number>());
  const [version, setVersion] = useState(0); // bumps when heights change the offsets
  const [held, setHeld] = useState<Held>({ startKey: undefined, endKey: undefined, toEnd: true });
  const heldRef = useRef(held);
  heldRef.current = held;
  const index = useMemo(() => new Map(o.keys.map((k, i) => [k, i])), [o.keys]);
  // Heights of items the list let go are dropped with them, so the map stays as small as the list.
  useEffect(() => {
    for (const k of heights.current.keys()) if (!index.has(k)) heights.current.delete(k);
  }, [index]);
  const estimate = useRef(ESTIMATE_PX);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- version stands for the heights
  const offsets = useMemo(() => offsetsOf(o.keys, heights.current, estimate.current), [o.keys, version]);
  const range = heldRange(o.keys, index, held, offsets, o.scroller.current?.clientHeight || 800);
  const latest = useRef({ range, offsets, keys: o.keys });
  latest.current = { range, offsets, keys: o.keys };

  const measure = useCallback(() => {
    const c = o.content.current;
    if (!c) return false;
    const m = measureItems(c, latest.current.range, latest.current.keys, heights.current);
    if (m.estimate !== undefined) estimate.current = m.estimate;
    if (m.changed) setVersion((v) => v + 1);
    return m.changed;
  }, [o.content]);

  const expand = useRef(0);
  const update = useCallback(
    function update(mode: WindowMode, force = false) {
      const sc = o.scroller.current;
      const { keys, offsets: offs, range: cur } = latest.current;
      if (!sc || keys.length === 0) return;
      let next = nextRange(mode, force, cur, keys, offs, sc, o.content.current);
      if (!next || (next.start === cur.start && next.end === cur.end && heldRef.current.startKey !== undefined)) return;
      // A jump to items none of which are rendered (a fling, a scrollbar drag) mounts what is in
      // view first and the overscan a frame later, so no single frame mounts a whole window.
      if (mode.kind !== "around" && !force && heldRef.current.startKey !== undefined && (next.start >= cur.end || next.end <= cur.start)) {
        const view = viewOnly(mode, keys, offs, sc, o.content.current);
        if (view.end - view.start < next.end - next.start) {
          next = view;
          cancelAnimationFrame(expand.current);
          expand.current = requestAnimationFrame(() => update(mode, true));
        }
      }
      const h = holdOf(next, keys);
      heldRef.current = h;
      // Following the view is a transition: React renders the new bubbles in slices that yield
      // to the browser, so a fast scroll shows the spacer for a frame rather than stalling.
      // A target (goToMessageId, a keyboard move) is rendered at once.
      if (mode.kind === "around") setHeld(h);
      else startTransition(() => setHeld(h));
    },
    [o.scroller, o.content],
  );
  useEffect(() => () => cancelAnimationFrame(expand.current), []);

  const rendered = useCallback((key: string) => {
    const i = index.get(key);
    const r = latest.current.range;
    return i !== undefined && i >= r.start && i < r.end;
  }, [index]);

  return { range, measure, update, rendered };
}

/** Message items' keys (items.ts): "m-<id>"; separators and the unread divider are others. */
const isMessageKey = (k: string) => k.startsWith("m-");

function marginsOf(el: HTMLElement): number {
  const cs = getComputedStyle(el);
  return (parseFloat(cs.marginTop) || 0) + (parseFloat(cs.marginBottom) || 0);
}

/** Where the windowed items start inside the scroller's content (the top spacer's offset). */
function contentTop(content: HTMLElement | null): number {
  const spacer = content?.querySelector<HTMLElement>(":scope > .chat-message-list__spacer--top");
  return spacer ? spacer.offsetTop : 0;
}
