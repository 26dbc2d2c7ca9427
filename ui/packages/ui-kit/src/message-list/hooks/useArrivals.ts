/**
 * What the list does with a new live message (the sink's ListHooks): the reader's own and, with
 * scrollToBottomOnNewMessages, every one is followed to the bottom; others arriving while the
 * reader is up the list count for the "N new messages" button and are announced. Sound plays
 * for incoming messages unless disableSoundForMessages.
 */
import { useCallback, useRef, useState, type RefObject } from "react";
import type { Chat } from "@agentry/chat-sdk";
import type { ChatMessageListProps } from "../props";
import type { ScrollKeeper } from "../scroll";
import { playSound } from "../sound";
import type { ListHooks } from "./useLiveSink";

export function useArrivals(o: {
  props: ChatMessageListProps;
  keeper: RefObject<ScrollKeeper | undefined>;
  /** The reader's own message while the newest pages are not loaded: load them. */
  reloadLatest(): void;
  announce(m: Chat.BaseMessage): void;
}) {
  const [newCount, setNewCount] = useState(0);
  const opts = useRef(o);
  opts.current = o;
  const sound = (p: ChatMessageListProps) => p.disableSoundForMessages === false && playSound(p.customSoundForMessages);
  const hooks = useRef<ListHooks>({
    appended(m, mine) {
      const { props: p, keeper, announce } = opts.current;
      if (mine || p.scrollToBottomOnNewMessages) keeper.current?.stickNext();
      else if (keeper.current && !keeper.current.isAtBottom()) {
        setNewCount((n) => n + 1);
        announce(m);
      }
      if (!mine && m.getCategory() !== "action") sound(p);
    },
    // Far up (the newest pages were let go): not loaded at all, so counted and announced here.
    missed(m, mine) {
      if (mine) opts.current.reloadLatest(); // the reader's own message: show the present
      else {
        setNewCount((n) => n + 1);
        opts.current.announce(m);
      }
      if (!mine) sound(opts.current.props);
    },
  });
  return { hooks, newCount, clearNew: useCallback(() => setNewCount(0), []) };
}
