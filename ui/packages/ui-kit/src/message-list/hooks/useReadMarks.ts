/** Receipts the list sends: delivered for what it receives, read for what the reader saw. */
import { useCallback } from "react";
import { Chat } from "@agentry/chat-sdk";
import { ChatMessageEvents } from "../../events";
import { isOutgoing } from "../conversation";
import type { ListRefs } from "./refs";

export type ReadMarks = ReturnType<typeof useReadMarks>;

export function useReadMarks({ latest, scope, dispatch }: ListRefs) {
  // Incoming messages the list received count as delivered (a watermark: the newest is enough).
  const deliver = useCallback((m: Chat.BaseMessage | undefined) => {
    if (!m || m.getDeliveredAt() !== undefined || m.getCategory() === "action" || !m.getId()) return;
    Chat.markAsDelivered(m).catch((err: unknown) => latest.current.report(err));
  }, [latest]);

  // Marks read up to the newest incoming message at or before upTo (the newest one visible).
  const markReadUpTo = useCallback((upTo: number) => {
    const { state: s, me: user } = latest.current;
    if (!user) return;
    const uid = user.getUid();
    const sc = scope.current;
    let m: Chat.BaseMessage | undefined;
    for (let i = s.ids.length - 1; i >= 0; i--) {
      const id = s.ids[i]!;
      if (id > upTo) continue;
      if (id <= sc.lastMarked) break;
      const x = s.byId.get(id)!;
      if (!isOutgoing(x, uid) && x.getCategory() !== "action" && !x.getDeletedAt()) {
        m = x;
        break;
      }
    }
    if (!m) return;
    sc.lastMarked = m.getId();
    if (m.getReadAt() !== undefined) return; // read before (another session, an earlier visit)
    const at = Date.now() / 1000;
    const upToId = m.getId();
    dispatch({
      type: "updateAll",
      update: (x) => {
        if (x.getId() > upToId || x.getReadAt() !== undefined || isOutgoing(x, uid)) return x;
        const c = x.clone();
        c.setReadAt(at);
        return c;
      },
    });
    Chat.markAsRead(m).catch((err: unknown) => latest.current.report(err));
    ChatMessageEvents.ccMessageRead.next(m);
  }, [latest, scope, dispatch]);

  return { deliver, markReadUpTo };
}
