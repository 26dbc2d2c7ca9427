import { describe, expect, it } from "vitest";
import { Chat } from "@agentry/chat-sdk";
import { applyReceipt, aroundEnds, belongs, conversationOf, makeBuilder, mayHaveMore, mergeLive } from "./conversation";

const msg = (id: number, from: string, to: string, group = false) => {
  const m = new Chat.TextMessage(to, `m${id}`, group ? "group" : "user");
  m.setId(id);
  m.setSender(new Chat.User(from));
  m.setConversationId(group ? `group_${to}` : `user_${[from, to].sort().join("_user_")}`);
  return m;
};
const receipt = (messageId: number, by: string, type: Chat.ReceiptType, conv: string) =>
  new Chat.MessageReceipt({ messageId, sender: new Chat.User(by), receiverId: "x", receiverType: "user", receiptType: type, conversationId: conv, timestamp: 50 });

describe("conversation helpers", () => {
  it("names the service's conversation id (sorted uids, group_ prefix); user wins over group", () => {
    expect(conversationOf("zed", new Chat.User("amy"))?.conversationId).toBe("user_amy_user_zed");
    expect(conversationOf("amy", new Chat.User("zed"))?.conversationId).toBe("user_amy_user_zed");
    expect(conversationOf("amy", undefined, new Chat.Group("g1", "G"), 7)).toMatchObject({ conversationId: "group_g1", parentId: 7, type: "group" });
    expect(conversationOf("amy", new Chat.User("bob"), new Chat.Group("g1", "G"))?.type).toBe("user");
  });

  it("matches messages by conversation id, or by receiver when a message has none", () => {
    const c = conversationOf("amy", new Chat.User("bob"))!;
    expect(belongs(msg(1, "bob", "amy"), c, "amy")).toBe(true);
    expect(belongs(msg(1, "carl", "amy"), c, "amy")).toBe(false);
    const bare = new Chat.TextMessage("bob", "x", "user");
    bare.setSender(new Chat.User("amy"));
    expect(belongs(bare, c, "amy")).toBe(true);
  });

  it("copies the caller's builder and overrides the conversation, thread and anchor", () => {
    const given = new Chat.MessagesRequestBuilder().setGUID("other").setLimit(12).setTypes(["text"]).setMessageId(99);
    const b = makeBuilder(given, conversationOf("amy", new Chat.User("bob"), undefined, 4)!);
    expect([b.uid, b.guid, b.limit, b.types, b.parentMessageId, b.messageId]).toEqual(["bob", undefined, 12, ["text"], 4, 0]);
    expect(given.guid).toBe("other");
    expect(makeBuilder(undefined, conversationOf("amy", new Chat.User("bob"))!).replies).toBe(false);
  });

  it("knows the ends of pages", () => {
    const b = new Chat.MessagesRequestBuilder().setLimit(4);
    expect(mayHaveMore([msg(1, "a", "b"), msg(2, "a", "b"), msg(3, "a", "b"), msg(4, "a", "b")], b)).toBe(true);
    expect(mayHaveMore([msg(1, "a", "b")], b)).toBe(false);
    expect(mayHaveMore([msg(1, "a", "b")], b.hideDeletedMessages(true))).toBe(true);
    const c = new Chat.MessagesRequestBuilder().setLimit(4);
    expect(aroundEnds([msg(4, "a", "b"), msg(5, "a", "b"), msg(6, "a", "b")], 5, c)).toEqual({ hasOlder: false, hasNewer: false });
    expect(aroundEnds([msg(3, "a", "b"), msg(4, "a", "b"), msg(5, "a", "b"), msg(6, "a", "b")], 5, c)).toEqual({ hasOlder: true, hasNewer: true });
  });

  it("keeps the viewer's reactions, receipts and reply count through an edit, and never goes back", () => {
    const old = msg(1, "bob", "amy");
    old.setReactions([new Chat.ReactionCount("👍", 1, true)]);
    old.setReadAt(10);
    old.setReplyCount(3);
    const edited = msg(1, "bob", "amy");
    edited.setEditedAt(20);
    const merged = mergeLive(old, edited);
    expect([merged.getReactions().length, merged.getReadAt(), merged.getReplyCount(), merged.getEditedAt()]).toEqual([1, 10, 3, 20]);
    expect(mergeLive(merged, old)).toBe(merged);
  });

  it("applies receipts: theirs mark mine in one-to-one; only 'to all' marks mine in groups", () => {
    const mine = msg(3, "amy", "bob");
    expect(applyReceipt(mine, receipt(5, "bob", "read", "user_amy_user_bob"), "amy", false).getReadAt()).toBe(50);
    expect(applyReceipt(mine, receipt(2, "bob", "read", "user_amy_user_bob"), "amy", false)).toBe(mine);
    const g = msg(3, "amy", "team", true);
    expect(applyReceipt(g, receipt(5, "bob", "read", "group_team"), "amy", true)).toBe(g);
    const all = applyReceipt(g, receipt(5, "amy", "readByAll", "group_team"), "amy", true);
    expect([all.getDeliveredAt(), all.getReadAt()]).toEqual([50, 50]);
    const theirs = msg(2, "bob", "amy");
    expect(applyReceipt(theirs, receipt(5, "amy", "read", "user_amy_user_bob"), "amy", false).getReadAt()).toBe(50);
    expect(applyReceipt(theirs, receipt(5, "bob", "read", "user_amy_user_bob"), "amy", false)).toBe(theirs);
  });
});
