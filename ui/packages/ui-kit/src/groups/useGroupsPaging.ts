/**
 * Paging the groups list: the bottom sentinel coming into view, and after each page while the
 * list does not fill its viewport (the sentinel then never leaves the view, so it never fires again).
 */
import { useCallback, useEffect, useLayoutEffect, useRef, type RefObject } from "react";
import type { GroupsState } from "./state";

/** How close to the bottom (px) the next page starts loading. */
const PRELOAD_PX = 200;

export function useGroupsPaging(scroller: RefObject<HTMLDivElement | null>, state: GroupsState, listShown: boolean, loadMore: () => void): RefObject<HTMLDivElement | null> {
  const sentinel = useRef<HTMLDivElement>(null);
  const loadMoreRef = useRef(loadMore);
  loadMoreRef.current = loadMore;
  const checkFill = useCallback(() => {
    const el = scroller.current;
    if (!el || el.clientHeight === 0) return; // not laid out (hidden, or jsdom)
    if (el.scrollHeight - el.scrollTop - el.clientHeight <= PRELOAD_PX) loadMoreRef.current();
  }, [scroller]);
  useEffect(() => {
    const root = scroller.current;
    const target = sentinel.current;
    if (!root || !target) return;
    const cleanups: (() => void)[] = [];
    if (typeof IntersectionObserver !== "undefined") {
      const io = new IntersectionObserver((entries) => {
        if (entries.some((en) => en.isIntersecting)) loadMoreRef.current();
      }, { root, rootMargin: `0px 0px ${PRELOAD_PX}px 0px` });
      io.observe(target);
      cleanups.push(() => io.disconnect());
    }
    if (typeof ResizeObserver !== "undefined") {
      const ro = new ResizeObserver(() => checkFill());
      ro.observe(root);
      cleanups.push(() => ro.disconnect());
    }
    return () => cleanups.forEach((c) => c());
  }, [listShown, checkFill, scroller]);
  useLayoutEffect(() => {
    if (!state.fetching && state.hasMore && !state.error && !state.loading) checkFill();
  }, [state.fetching, state.hasMore, state.error, state.loading, state.order.length, checkFill]);
  return sentinel;
}
