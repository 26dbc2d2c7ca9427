/**
 * The groups listbox's keyboard and focus: a roving tab stop (the focused row, else the active
 * group, else the first); arrows, Home, End, Page Up/Down move; Enter activates; Space checks
 * when selecting (else activates). Focus stays in the list when its row goes away.
 */
import { useCallback, useEffect, useRef, useState, type FocusEvent, type KeyboardEvent, type RefObject } from "react";
import type { Chat } from "@agentry/chat-sdk";
import type { GroupsState } from "./state";

const MOVES: Record<string, (i: number, n: number) => number> = {
  ArrowDown: (i) => i + 1,
  ArrowUp: (i) => i - 1,
  Home: () => 0,
  End: (_i, n) => n - 1,
  PageDown: (i) => i + 10,
  PageUp: (i) => i - 10,
};

const guidOf = (el: EventTarget) => (el as HTMLElement).closest<HTMLElement>("[role=option]")?.parentElement?.dataset["guid"];

export function useGroupsFocus(o: {
  state: GroupsState;
  activeGuid: string | undefined;
  scroller: RefObject<HTMLDivElement | null>;
  selecting: boolean;
  toggle(g: Chat.Group): void;
  onItemClick(g: Chat.Group): void;
}) {
  const { state, scroller } = o;
  const rows = useRef(new Map<string, HTMLElement>());
  const setRef = useCallback((guid: string, el: HTMLElement | null) => {
    if (el) rows.current.set(guid, el);
    else rows.current.delete(guid);
  }, []);
  const [focusGuid, setFocusGuid] = useState<string | null>(null);
  const lastIndex = useRef(0);
  const [listFocused, setListFocused] = useState(false);
  const { activeGuid } = o;
  const tabStop = focusGuid && state.byGuid.has(focusGuid) ? focusGuid : activeGuid && state.byGuid.has(activeGuid) ? activeGuid : (state.order[0] ?? null);
  const focusRow = useCallback((guid: string) => {
    setFocusGuid(guid);
    rows.current.get(guid)?.focus();
  }, []);
  const opts = useRef(o);
  opts.current = o;
  const activate = useCallback((group: Chat.Group) => {
    setFocusGuid(group.getGuid());
    opts.current.onItemClick(group);
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    const guid = guidOf(e.target);
    if (!guid) return;
    const order = state.order;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      const g = state.byGuid.get(guid);
      if (g && e.key === " " && o.selecting) o.toggle(g);
      else if (g) activate(g);
      return;
    }
    const move = MOVES[e.key];
    if (!move) return;
    e.preventDefault();
    const target = order[Math.max(0, Math.min(order.length - 1, move(order.indexOf(guid), order.length)))];
    if (target) focusRow(target);
  };
  // Focus inside the list (rows or the actions bar), and keeping it when its row goes away.
  const onFocus = (e: FocusEvent<HTMLElement>) => {
    setListFocused(true);
    const guid = guidOf(e.target);
    if (guid) {
      setFocusGuid(guid);
      lastIndex.current = state.order.indexOf(guid);
    }
  };
  const onBlur = (e: FocusEvent<HTMLElement>) => {
    if (!scroller.current?.contains(e.relatedTarget as Node | null)) setListFocused(false);
  };
  useEffect(() => {
    if (!focusGuid || state.byGuid.has(focusGuid) || state.order.length === 0) return;
    const active = typeof document === "undefined" ? null : document.activeElement;
    if (active && active !== document.body) return; // the user is elsewhere
    if (!listFocused) return;
    const next = state.order[Math.min(lastIndex.current, state.order.length - 1)];
    if (next) focusRow(next);
  }, [state.order, state.byGuid, focusGuid, listFocused, focusRow]);
  return { rows, setRef, tabStop, listFocused, focusRow, activate, onKeyDown, onFocus, onBlur };
}
