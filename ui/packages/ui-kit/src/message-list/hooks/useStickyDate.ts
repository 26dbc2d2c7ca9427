/** The date pinned over the list: the top message's while its own separator is out of view
 * (not at the very top); it fades once scrolling stops, so it does not sit over the first message. */
import { useCallback, useEffect, useRef, useState } from "react";
import type { ScrollInfo } from "../scroll";

/** How long the pinned date stays after the last scroll. */
const STICKY_IDLE_MS = 1500;

export function useStickyDate() {
  // The message whose date is pinned, if any.
  const [stickyId, setStickyId] = useState<number>();
  const [idle, setIdle] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  const lastTop = useRef(0);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const onScrollInfo = useCallback((info: ScrollInfo) => {
    setStickyId(info.atTop || info.topDateShown ? undefined : info.topId);
    if (Math.abs(info.scrollTop - lastTop.current) > 1) {
      lastTop.current = info.scrollTop;
      setIdle(false);
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => setIdle(true), STICKY_IDLE_MS);
    }
  }, []);
  return { stickyId, idle, onScrollInfo };
}
