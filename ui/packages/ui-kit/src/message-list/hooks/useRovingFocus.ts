/**
 * Roving focus: one message of the list is in the tab order (the one focused last, else the
 * newest shown), and arrow keys, Home and End move between messages. A message outside the
 * rendered window is brought in first, then focused (apply, from the list's layout effect).
 */
import { useCallback, useMemo, useState, type KeyboardEvent, type RefObject } from "react";
import type { ListItem } from "../items";
import type { VirtualWindow } from "../virtual";

export function useRovingFocus(o: {
  items: readonly ListItem[];
  content: RefObject<HTMLDivElement | null>;
  win: RefObject<VirtualWindow | undefined>;
  /** The newest message shown. */
  lastShownId: number | undefined;
  isLoaded(id: number): boolean;
}) {
  const [focusedId, setFocusedId] = useState<number>();
  const [focusKey, setFocusKey] = useState<string>();
  const { content, win } = o;
  const messageKeys = useMemo(() => o.items.filter((it) => it.kind === "message").map((it) => it.key), [o.items]);
  const onKeyDown = useCallback((e: KeyboardEvent<HTMLDivElement>) => {
    const t = e.target as HTMLElement;
    if (!t.matches("[data-message-id]") || !content.current) return;
    const i = messageKeys.indexOf(`m-${t.dataset["messageId"]}`);
    if (i < 0) return;
    const key = { ArrowUp: messageKeys[i - 1], ArrowDown: messageKeys[i + 1], Home: messageKeys[0], End: messageKeys[messageKeys.length - 1] }[e.key];
    if (!key) return;
    e.preventDefault();
    const next = content.current.querySelector<HTMLElement>(`:scope > [data-message-id="${key.slice(2)}"]`);
    if (next) next.focus();
    else {
      win.current?.update({ kind: "around", key }, true);
      setFocusKey(key);
    }
  }, [messageKeys, content, win]);
  return {
    /** The message in the tab order. */
    tabStop: focusedId !== undefined && o.isLoaded(focusedId) ? focusedId : o.lastShownId,
    onKeyDown,
    onFocusMessage: setFocusedId,
    /** Focuses the message a key moved to once it is rendered; true when it did. */
    apply(scroller: HTMLElement | null): boolean {
      const el = focusKey !== undefined ? scroller?.querySelector<HTMLElement>(`[data-message-id="${focusKey.slice(2)}"]`) : undefined;
      if (!el) return false;
      setFocusKey(undefined);
      el.focus();
      return true;
    },
  };
}
