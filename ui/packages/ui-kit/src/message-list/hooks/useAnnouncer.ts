/**
 * The screen-reader announcer: messages that arrive while the reader is up the list are not
 * rendered (not in the window), so the log does not announce them; a polite status region does.
 * A second "New message from Bob" must change the region's text to be read again: the count
 * alternates a trailing no-break space.
 */
import { useCallback, useState } from "react";
import type { Chat } from "@agentry/chat-sdk";

export function useAnnouncer(): { text: string; announce(m: Chat.BaseMessage): void } {
  const [a, setA] = useState({ text: "", n: 0 });
  const announce = useCallback((m: Chat.BaseMessage) => {
    if (m.getCategory() === "action") return;
    const text = `New message from ${m.getSender()?.getName() ?? "someone"}`;
    setA((x) => ({ text, n: x.n + 1 }));
  }, []);
  return { text: a.text === "" ? "" : a.text + (a.n % 2 === 0 ? "\u00a0" : ""), announce };
}
