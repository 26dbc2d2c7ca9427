/** Who is typing in the conversation now, by uid. */
import { useCallback, useMemo, useState } from "react";
import type { Chat } from "@agentry/chat-sdk";

export type Typing = ReturnType<typeof useTyping>;

export function useTyping() {
  const [byUid, setByUid] = useState<ReadonlyMap<string, Chat.User>>(new Map());
  return {
    typing: useMemo(() => [...byUid.values()], [byUid]),
    start: useCallback((who: Chat.User) => setByUid((m) => new Map([...m, [who.getUid(), who]])), []),
    stop: useCallback((uid: string | undefined) => {
      if (uid) setByUid((t) => (t.has(uid) ? new Map([...t].filter(([k]) => k !== uid)) : t));
    }, []),
    clear: useCallback(() => setByUid(new Map()), []),
  };
}
