/**
 * goToMessageId, the first unread message and jumps (a quoted message): put the target in view
 * once per load (apply, from the list's layout effect), bringing it into the rendered window
 * first; a goto target is highlighted for a moment.
 */
import { useEffect, useRef, useState, type RefObject } from "react";
import type { ScrollKeeper } from "../scroll";
import type { VirtualWindow } from "../virtual";
import type { ScrollTarget } from "./useLoad";

const HIGHLIGHT_MS = 2500;

export function useScrollTarget(o: {
  target: ScrollTarget | undefined;
  ready: boolean;
  scroller: RefObject<HTMLDivElement | null>;
  keeper: ScrollKeeper;
  win: VirtualWindow;
  keys: readonly string[];
}): { highlightId: number | undefined; apply(): boolean } {
  const applied = useRef(-1);
  const [highlightId, setHighlightId] = useState<number>();
  useEffect(() => {
    if (highlightId === undefined) return;
    const timer = setTimeout(() => setHighlightId(undefined), HIGHLIGHT_MS);
    return () => clearTimeout(timer);
  }, [highlightId]);
  return {
    highlightId,
    apply() {
      const { target: t, keys } = o;
      const s = o.scroller.current;
      if (!o.ready || !s || !t || applied.current === t.seq) return false;
      const el =
        (t.kind === "unread" ? s.querySelector<HTMLElement>("[data-unread-divider]") : null) ??
        s.querySelector<HTMLElement>(`[data-message-id="${t.id}"]`);
      if (el) {
        applied.current = t.seq;
        o.keeper.reveal(el, t.kind === "goto" ? "center" : "start");
        if (t.kind === "goto") setHighlightId(t.id);
        return true;
      }
      // Not rendered yet: move the window to it; the next render reveals it.
      if (keys.includes(`m-${t.id}`)) o.win.update({ kind: "around", key: t.kind === "unread" && keys.includes("unread") ? "unread" : `m-${t.id}` }, true);
      return false;
    },
  };
}
