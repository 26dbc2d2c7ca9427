/**
 * The list's scrolling: the scroll keeper (../scroll.ts) and what each position means — the
 * rendered window follows the view, the bottom clears the new-message count, the top and
 * bottom load the next pages, what is on screen is marked read while the window has focus
 * (and again when the reader comes back to it), and the sticky date and unread jump follow the top.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import type { MessageListModel } from "../useMessageList";
import { useScrollKeeper, type ScrollInfo } from "../scroll";
import type { VirtualWindow } from "../virtual";
import { useStickyDate } from "./useStickyDate";

const canMarkRead = () => document.visibilityState === "visible" && document.hasFocus();

export function useListScroll(o: {
  model: MessageListModel;
  ready: boolean;
  win: RefObject<VirtualWindow | undefined>;
  /** Nothing new is pending: the reader reached the bottom of the present, or a load starts there. */
  clearNew(): void;
}) {
  const model = useRef(o.model);
  model.current = o.model;
  const opts = useRef(o);
  opts.current = o;
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const [atBottom, setAtBottom] = useState(true);
  const [topId, setTopId] = useState<number>(); // the first message in view
  // The first unread message was in view during this load: no more "Jump to first unread".
  const [unreadSeen, setUnreadSeen] = useState(false);
  const sticky = useStickyDate();
  const onStickyInfo = sticky.onScrollInfo;
  const onInfo = useCallback((info: ScrollInfo) => {
    const m = model.current;
    // The rendered window follows the view (the bottom while the list follows it).
    opts.current.win.current?.update(info.atBottom && !m.state.hasNewer ? { kind: "bottom" } : { kind: "view" });
    setAtBottom(info.atBottom);
    if (info.atBottom && !m.state.hasNewer) opts.current.clearNew();
    onStickyInfo(info);
    setTopId(info.topId);
    const first = m.firstUnreadId;
    if (first !== undefined && info.topId !== undefined && info.topId <= first) setUnreadSeen(true);
    if (info.nearTop) m.loadOlder();
    if (info.nearBottom) m.loadNewer();
    if (info.bottomId !== undefined && canMarkRead()) m.markReadUpTo(info.bottomId);
  }, [onStickyInfo]);
  const keeper = useScrollKeeper({ scroller, content, active: o.ready, follow: () => !model.current.state.hasNewer, onInfo });

  // A new load starts at the bottom with nothing pending.
  useEffect(() => {
    if (o.model.status !== "loading") return;
    opts.current.clearNew();
    setUnreadSeen(false);
  }, [o.model.status]);
  // Coming back to the window marks what is on screen read.
  useEffect(() => {
    const again = () => keeper.onScroll();
    window.addEventListener("focus", again);
    document.addEventListener("visibilitychange", again);
    return () => {
      window.removeEventListener("focus", again);
      document.removeEventListener("visibilitychange", again);
    };
  }, [keeper]);
  return { scroller, content, keeper, atBottom, topId, unreadSeen, sticky };
}
