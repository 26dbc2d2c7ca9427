/**
 * Scroll keeping for the message list. The browser's own scroll anchoring is off
 * (overflow-anchor: none in the CSS) because it is not deterministic enough for a chat:
 * instead, after every change of the content (a render, an image that loaded, a page prepended)
 * the view either stays at the bottom — while the reader is there — or keeps the first
 * visible message at the same distance from the top. The reader's own scrolling always wins:
 * a position recorded before the reader scrolled is never restored.
 */
import { useCallback, useEffect, useMemo, useRef, type RefObject } from "react";

export interface ScrollInfo {
  /** Within a few pixels of the bottom: new messages are followed. */
  atBottom: boolean;
  atTop: boolean;
  /** Close enough to an end to load the next page there (also when nothing overflows). */
  nearTop: boolean;
  nearBottom: boolean;
  /** The first and last messages at least partly in view. */
  topId: number | undefined;
  /** The day separator of the top message is (partly) in view: a pinned date would repeat it. */
  topDateShown: boolean;
  /** The scroller's scrollTop (a change is the reader scrolling, or the list growing above). */
  scrollTop: number;
  bottomId: number | undefined;
}

interface Anchor {
  id: number;
  /** The message's top relative to the viewport's top. */
  offset: number;
}

const STICK_PX = 16;
const PAGE_PX = 240;

const idOf = (el: HTMLElement) => Number(el.dataset["messageId"]);

/** The message elements in document order (they are direct children of the content). */
function messageEls(s: HTMLElement): HTMLElement[] {
  return Array.from(s.querySelectorAll<HTMLElement>("[data-message-id]"));
}

/** Binary search: the index of the first element for which below(el) holds (elements are in
 * layout order, so below is false, then true). */
function first(els: HTMLElement[], below: (el: HTMLElement) => boolean): number {
  let lo = 0;
  let hi = els.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (below(els[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export interface ScrollKeeper {
  /** Call on the scroller's scroll event. */
  onScroll(): void;
  /** Call after the content changed (layout effect); also run by the resize observer. */
  keep(): void;
  /** Follow the bottom from now on and go there. */
  toBottom(): void;
  /** Follow the bottom on the next keep (a message the reader should see arrived). */
  stickNext(): void;
  /** Put an element in view (center, or near the top) and keep it there. */
  reveal(el: HTMLElement, align: "center" | "start"): void;
  isAtBottom(): boolean;
}

/**
 * useScrollKeeper keeps the scroller's position; `scroller` and `content` are its refs, and
 * `active` says they are mounted. follow() says whether the bottom may be followed (not while
 * newer pages are still to load). onInfo gets the position after every scroll and keep.
 */
export function useScrollKeeper(o: {
  scroller: RefObject<HTMLDivElement | null>;
  content: RefObject<HTMLDivElement | null>;
  active: boolean;
  follow(): boolean;
  onInfo(info: ScrollInfo): void;
}): ScrollKeeper {
  // el: the scroller the record is of. A new scroller (the list mounted again after a reload)
  // starts at the bottom, whatever the old one's position was.
  const pos = useRef<{ el: HTMLElement | null; top: number; stick: boolean; anchor: Anchor | undefined }>({ el: null, top: 0, stick: true, anchor: undefined });
  const opts = useRef(o);
  opts.current = o;

  const capture = useCallback((stick?: boolean) => {
    const s = opts.current.scroller.current;
    if (!s) return;
    const { info, anchor } = positionOf(s);
    pos.current = { el: s, top: s.scrollTop, stick: stick ?? info.atBottom, anchor };
    opts.current.onInfo(info);
  }, []);

  const keep = useCallback(() => {
    const s = opts.current.scroller.current;
    if (!s) return;
    if (pos.current.el !== s) pos.current = { el: s, top: s.scrollTop, stick: true, anchor: undefined };
    const p = pos.current;
    // The reader scrolled since the last record (its scroll event is still queued): their
    // position is the one to keep.
    if (Math.abs(s.scrollTop - p.top) > 1) return capture();
    if (p.stick && opts.current.follow()) {
      s.scrollTop = s.scrollHeight;
      return capture(true);
    }
    const el = p.anchor && s.querySelector<HTMLElement>(`[data-message-id="${p.anchor.id}"]`);
    if (el && p.anchor) {
      const delta = el.offsetTop - s.scrollTop - p.anchor.offset;
      if (delta !== 0) s.scrollTop += delta;
    }
    capture();
  }, [capture]);

  const keeper = useMemo<ScrollKeeper>(
    () => ({
      onScroll: () => capture(),
      keep,
      toBottom() {
        const s = opts.current.scroller.current;
        pos.current.stick = true;
        if (s) {
          s.scrollTop = s.scrollHeight;
          capture(true);
        }
      },
      stickNext() {
        pos.current.stick = true;
      },
      reveal(el, align) {
        const s = opts.current.scroller.current;
        if (!s) return;
        // "start" leaves room above for the sticky date and a little of what was read before.
        s.scrollTop = align === "center" ? el.offsetTop - (s.clientHeight - el.offsetHeight) / 2 : el.offsetTop - Math.max(56, s.clientHeight / 5);
        capture();
      },
      isAtBottom: () => pos.current.stick,
    }),
    [capture, keep],
  );

  useKeepOnResize(o.active, o.scroller, o.content, keep);
  return keeper;
}

/** Content that changes size on its own (images, the agent's streaming answer) and a scroller
 * that changes size (window, footer) keep the position too. */
function useKeepOnResize(active: boolean, scroller: RefObject<HTMLElement | null>, content: RefObject<HTMLElement | null>, keep: () => void): void {
  useEffect(() => {
    const s = scroller.current;
    const c = content.current;
    if (!active || !s || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(() => keep());
    ro.observe(s);
    if (c) ro.observe(c);
    return () => ro.disconnect();
  }, [active, scroller, content, keep]);
}

/** The scroller's position: what the list is told, and the first visible message as the anchor to keep. */
function positionOf(s: HTMLElement): { info: ScrollInfo; anchor: Anchor | undefined } {
  const gap = s.scrollHeight - s.clientHeight - s.scrollTop;
  const els = messageEls(s);
  const viewTop = s.scrollTop;
  const viewBottom = viewTop + s.clientHeight;
  // The first message whose bottom is in view, and the last one whose top is.
  const top = els[first(els, (el) => el.offsetTop + el.offsetHeight > viewTop)];
  const bottom = els[first(els, (el) => el.offsetTop >= viewBottom) - 1];
  const info: ScrollInfo = {
    atBottom: gap <= STICK_PX,
    atTop: s.scrollTop <= 1,
    nearTop: s.scrollTop <= PAGE_PX,
    nearBottom: gap <= PAGE_PX,
    topId: top ? idOf(top) : undefined,
    topDateShown: !!top && dateShown(top, viewTop),
    scrollTop: s.scrollTop,
    bottomId: bottom ? idOf(bottom) : undefined,
  };
  return { info, anchor: top ? { id: idOf(top), offset: top.offsetTop - s.scrollTop } : undefined };
}

/** Whether the day separator before el (its day's heading) reaches below viewTop. */
function dateShown(el: HTMLElement, viewTop: number): boolean {
  for (let e = el.previousElementSibling; e; e = e.previousElementSibling) {
    if (!(e instanceof HTMLElement) || !e.classList.contains("chat-message-list__date-separator")) continue;
    return e.offsetTop + e.offsetHeight > viewTop;
  }
  return false;
}
