/**
 * Pure helpers of the message list: which conversation it shows, which live events belong to
 * it, the request builder it pages with, and how live changes fold into stored copies. No React
 * here, so each rule is unit-tested on its own.
 */
import { Chat } from "@agentry/chat-sdk";

/** The conversation a list shows. */
export interface ConversationRef {
  type: "user" | "group";
  /** The other user's uid, or the group's guid. */
  id: string;
  /** The service's conversation id (chat/model.ConversationID): events carry it. */
  conversationId: string;
  /** The thread's root message id; 0 for the main conversation. */
  parentId: number;
  /** Who or what the conversation is with, for the log's accessible name. */
  name: string;
}

/** conversationOf names the list's conversation; user wins when both are given. */
export function conversationOf(me: string, user?: Chat.User, group?: Chat.Group, parentMessageId?: number): ConversationRef | undefined {
  const parentId = parentMessageId && parentMessageId > 0 ? parentMessageId : 0;
  if (user) {
    const uid = user.getUid();
    const [a, b] = me < uid ? [me, uid] : [uid, me];
    return { type: "user", id: uid, conversationId: `user_${a}_user_${b}`, parentId, name: user.getName() };
  }
  if (group) {
    const guid = group.getGuid();
    return { type: "group", id: guid, conversationId: `group_${guid}`, parentId, name: group.getName() };
  }
  return undefined;
}

/** belongs says whether a message is of the conversation (thread replies included). */
export function belongs(m: Chat.BaseMessage, c: ConversationRef, me: string): boolean {
  const conv = m.getConversationId();
  if (conv) return conv === c.conversationId;
  // A message a composer built and the service answered always has a conversation id; this
  // fallback covers hand-made messages (tests, templates) by their receiver.
  const sender = m.getSender()?.getUid();
  if (c.type === "group") return m.getReceiverType() === "group" && m.getReceiverId() === c.id;
  return m.getReceiverType() === "user" && ((m.getReceiverId() === c.id && sender === me) || (sender === c.id && m.getReceiverId() === me));
}

export const isOutgoing = (m: Chat.BaseMessage, me: string): boolean => m.getSender()?.getUid() === me;

/** The builder's fields the list reads (MessagesRequestBuilder keeps them public). */
type BuilderFields = Pick<Chat.MessagesRequestBuilder, "limit" | "deleted" | "replies" | "types" | "categories" | "parentMessageId" | "messageId">;

/**
 * makeBuilder copies the caller's builder (never mutating the prop) and overrides what the
 * list owns: the conversation (UID/GUID), the thread, and the anchor. The default builder
 * leaves thread replies out of the main conversation (they show as reply counts).
 */
export function makeBuilder(given: Chat.MessagesRequestBuilder | undefined, c: ConversationRef): Chat.MessagesRequestBuilder {
  const b = new Chat.MessagesRequestBuilder();
  if (given) Object.assign(b, given, { types: [...given.types], categories: [...given.categories] });
  else if (!c.parentId) b.hideReplies(true);
  if (c.type === "user") b.setUID(c.id);
  else b.setGUID(c.id);
  b.setParentMessageId(c.parentId);
  b.setMessageId(0);
  return b;
}

/** builderKey identifies a builder's settings, so a builder made anew on every render of the
 * host (the common inline `new MessagesRequestBuilder()...`) does not reload the list. */
export function builderKey(b: Chat.MessagesRequestBuilder | undefined): string {
  if (!b) return "";
  const f: BuilderFields = b;
  return JSON.stringify([f.limit, f.deleted, f.replies, f.types, f.categories]);
}

/** mayHaveOlder: whether a page fetched with fetchPrevious may have more before it. */
export function mayHaveMore(page: readonly Chat.BaseMessage[], b: BuilderFields): boolean {
  if (page.length === 0) return false;
  // A short page is the end, unless tombstones were filtered out of it after paging.
  return page.length >= b.limit || !b.deleted;
}

/** The ends of a fetchAround page: the service takes limit/2 before the anchor and the rest
 * from it on, so a short side is the end of the conversation on that side. */
export function aroundEnds(page: readonly Chat.BaseMessage[], anchor: number, b: BuilderFields): { hasOlder: boolean; hasNewer: boolean } {
  if (!b.deleted) return { hasOlder: page.length > 0, hasNewer: true };
  const before = page.filter((m) => m.getId() < anchor).length;
  const from = page.length - before;
  const half = Math.floor(b.limit / 2);
  return { hasOlder: before >= half, hasNewer: from >= b.limit - before };
}

/**
 * mergeLive folds a live copy (edited, deleted, moderated) into the stored one. Events are not
 * per viewer, so they may lack what only the viewer's copy has (reactions, receipts, the reply
 * count): those are kept. An older copy never replaces a newer one.
 */
export function mergeLive(old: Chat.BaseMessage, incoming: Chat.BaseMessage): Chat.BaseMessage {
  if (old === incoming) return old;
  const version = (m: Chat.BaseMessage) => [m.getDeletedAt() ?? 0, m.getEditedAt() ?? 0] as const;
  const [od, oe] = version(old);
  const [nd, ne] = version(incoming);
  if (nd < od || (nd === od && ne < oe)) return old;
  const c = incoming.clone();
  if (c.getReactions().length === 0 && old.getReactions().length > 0 && !c.getDeletedAt()) c.setReactions(old.getReactions());
  if (c.getDeliveredAt() === undefined && old.getDeliveredAt() !== undefined) c.setDeliveredAt(old.getDeliveredAt());
  if (c.getReadAt() === undefined && old.getReadAt() !== undefined) c.setReadAt(old.getReadAt());
  if (old.getReplyCount() > c.getReplyCount()) c.setReplyCount(old.getReplyCount());
  if (!c.getSender() && old.getSender()) c.setSender(old.getSender()!);
  return c;
}

/**
 * applyReceipt moves a message's delivered/read times by a receipt of its conversation.
 * One-to-one: the other user's receipts mark my messages, mine (another session) theirs.
 * Groups: only the "to all" receipts mark my messages (one member's receipt says nothing about
 * the others); my own receipts mark theirs. Watermarks: everything up to the id counts.
 */
export function applyReceipt(m: Chat.BaseMessage, r: Chat.MessageReceipt, me: string, isGroup: boolean): Chat.BaseMessage {
  const id = m.getId();
  if (id === 0 || id > r.getMessageId() || m.getDeletedAt()) return m;
  const type = r.getReceiptType();
  const toAll = type === "deliveredToAll" || type === "readByAll";
  const mine = isOutgoing(m, me);
  const bySelf = r.getSender().getUid() === me;
  if (mine ? !(toAll || (!isGroup && !bySelf)) : toAll || !bySelf) return m;
  const read = type === "read" || type === "readByAll";
  const at = r.getTimestamp() ?? Date.now() / 1000;
  const needDelivered = m.getDeliveredAt() === undefined;
  const needRead = read && m.getReadAt() === undefined;
  if (!needDelivered && !needRead) return m;
  const c = m.clone();
  if (needDelivered) c.setDeliveredAt(at);
  if (needRead) c.setReadAt(at);
  return c;
}

/** withReplyCount returns a copy of a thread root with its reply count moved by delta. */
export function withReplyCount(m: Chat.BaseMessage, delta: number): Chat.BaseMessage {
  const c = m.clone();
  c.setReplyCount(Math.max(0, m.getReplyCount() + delta));
  return c;
}

/**
 * unreadWatermark finds the conversation's read watermark and unread count in the user's
 * conversation list (the service keeps them there; GET /conversations).
 */
export async function unreadWatermark(c: ConversationRef): Promise<{ lastRead: number; unread: number } | undefined> {
  const req = new Chat.ConversationsRequestBuilder().setConversationType(c.type).setLimit(100).build();
  for (let i = 0; i < 50; i++) {
    const page = await req.fetchNext();
    if (page.length === 0) return undefined;
    const hit = page.find((x) => x.getConversationId() === c.conversationId);
    if (hit) return { lastRead: hit.getLastReadMessageId(), unread: hit.getUnreadMessageCount() };
  }
  return undefined;
}
