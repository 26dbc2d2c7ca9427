/**
 * What the list renders, in order: date separators, the "New messages" divider and the
 * messages, with whether each message starts a run of one sender (a run shows the sender's
 * name and avatar once). Pure, so the layout rules are unit-tested without a DOM.
 */
import type { Chat } from "@agentry/chat-sdk";

export type ListItem =
  | { kind: "date"; key: string; date: Date }
  | { kind: "unread"; key: string }
  | { kind: "message"; key: string; message: Chat.BaseMessage; firstOfRun: boolean };

export interface ItemOptions {
  hideDateSeparator: boolean;
  hideGroupActionMessages: boolean;
  /** The first unread message (startFromUnreadMessages): the divider goes before it. */
  firstUnreadId?: number | undefined;
}

/** A run of one sender breaks after this much silence (seconds). */
const RUN_GAP = 5 * 60;

const dayKey = (d: Date) => `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;

export const isAction = (m: Chat.BaseMessage) => m.getCategory() === "action";

export function buildItems(messages: readonly Chat.BaseMessage[], o: ItemOptions): ListItem[] {
  const out: ListItem[] = [];
  let lastDay = "";
  let prev: Chat.BaseMessage | undefined;
  for (const m of messages) {
    if (o.hideGroupActionMessages && isAction(m)) continue;
    const date = new Date(m.getSentAt() * 1000);
    const day = dayKey(date);
    const newDay = day !== lastDay;
    if (newDay && !o.hideDateSeparator) out.push({ kind: "date", key: `date-${day}`, date });
    lastDay = day;
    const unread = o.firstUnreadId !== undefined && m.getId() === o.firstUnreadId;
    if (unread) out.push({ kind: "unread", key: "unread" });
    const firstOfRun =
      newDay ||
      unread ||
      !prev ||
      isAction(prev) ||
      prev.getSender()?.getUid() !== m.getSender()?.getUid() ||
      m.getSentAt() - prev.getSentAt() > RUN_GAP;
    out.push({ kind: "message", key: `m-${m.getId()}`, message: m, firstOfRun });
    prev = m;
  }
  return out;
}
