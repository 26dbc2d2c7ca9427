// Two users exchanging messages live through the listeners: text, custom, media, edits,
// deletes, reactions, receipts, typing, threads, moderation, unread counts.
import { describe, expect, test } from "vitest";
import {
  Chat,
  CustomMessage,
  MediaMessage,
  TextMessage,
  type BaseMessage,
  type MessageReceipt,
  type ReactionEvent,
  type TypingIndicator,
} from "../src/index";
import { useAgentry } from "./harness";

const h = useAgentry();
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

describe("one-to-one", () => {
  test("text, custom and media messages arrive live on both sides, once", async () => {
    const alice = await h.client("alice");
    const bob = await h.client("bob", { name: "Bob Builder" });
    // Strict mode: the same listener id added twice (effect, cleanup, effect) is one listener.
    let strict = 0;
    bob.c.addMessageListener("strict", { onTextMessageReceived: () => strict++ });
    bob.c.removeMessageListener("strict");
    bob.c.addMessageListener("strict", { onTextMessageReceived: () => strict++ });
    bob.c.addMessageListener("strict", { onTextMessageReceived: () => strict++ });
    const sent = await alice.c.sendMessage(new TextMessage("bob", "Hello Bob", Chat.RECEIVER_TYPE.USER));
    expect([sent.getId() > 0, sent.getText(), sent.getSender()?.getUid(), sent.getConversationId()]).toEqual([true, "Hello Bob", "alice", "user_alice_user_bob"]);
    const got = (await bob.rec.until((e) => e.name === "onTextMessageReceived")).args[0] as TextMessage;
    expect([got.getId(), got.getText(), got.getSender()?.getName(), got.getReceiverId(), got.getReceiverType()]).toEqual([sent.getId(), "Hello Bob", "Alice", "bob", "user"]);
    // The sender's own sessions hear of it too (other devices stay in sync).
    await alice.rec.until((e) => e.name === "onTextMessageReceived" && (e.args[0] as BaseMessage).getId() === sent.getId());

    const reply = await bob.c.sendMessage(new TextMessage("alice", "Hi Alice", "user"));
    const r = (await alice.rec.until((e) => e.name === "onTextMessageReceived" && (e.args[0] as BaseMessage).getId() === reply.getId())).args[0] as TextMessage;
    expect(r.getSender()?.getName()).toBe("Bob Builder");

    const custom = new CustomMessage("bob", "user", "location", { lat: 48.85, lng: 2.35 });
    custom.setConversationText("a place");
    custom.setMetadata({ pinned: true });
    const sentCustom = await alice.c.sendCustomMessage(custom);
    const c = (await bob.rec.until((e) => e.name === "onCustomMessageReceived")).args[0] as CustomMessage;
    expect([c.getId(), c.getType(), c.getCustomData(), c.getConversationText(), c.getMetadata()]).toEqual([
      sentCustom.getId(),
      "location",
      { lat: 48.85, lng: 2.35 },
      "a place",
      { pinned: true },
    ]);

    const media = new MediaMessage("bob", new File([PNG], "dot.png", { type: "image/png" }), "image", "user");
    media.setCaption("a dot");
    const sentMedia = await alice.c.sendMediaMessage(media);
    const m = (await bob.rec.until((e) => e.name === "onMediaMessageReceived")).args[0] as MediaMessage;
    const a = m.getAttachment();
    expect([m.getId(), m.getType(), m.getCaption(), a?.getName(), a?.getMimeType(), a?.getSize()]).toEqual([sentMedia.getId(), "image", "a dot", "dot.png", "image/png", PNG.length]);
    expect(a?.getUrl().startsWith(`${h.proc.base}/chat/v1/media/`)).toBe(true);
    const blob = await bob.c.fetchMedia(a?.getUrl() ?? "");
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(PNG);
    // A quote reply with a file.
    const quoting = new MediaMessage("alice", new File([PNG], "again.png", { type: "image/png" }), "image", "user");
    quoting.setQuotedMessageId(sent.getId());
    const sentQuote = await bob.c.sendMediaMessage(quoting);
    expect([sentQuote.getQuotedMessageId(), sentQuote.getQuotedMessage()?.getId()]).toEqual([sent.getId(), sent.getId()]);

    // bob's own quote reply comes last on his socket: a text told twice would have come before it.
    await bob.rec.until((e) => e.name === "onMediaMessageReceived" && (e.args[0] as BaseMessage).getId() === sentQuote.getId());
    const ids = bob.rec.named("onTextMessageReceived").map((e) => (e.args[0] as BaseMessage).getId());
    expect(ids).toEqual([sent.getId(), reply.getId()]);
    expect(strict).toBe(2);
  });
});

describe("one-to-one: edits, deletes and reactions", () => {
  test("edits, deletes and reactions arrive live", async () => {
    const alice = await h.client("alice");
    const bob = await h.client("bob");
    const m = await alice.c.sendMessage(new TextMessage("bob", "typo", "user"));
    m.setText("fixed");
    const edited = await alice.c.editMessage(m);
    expect([(edited as TextMessage).getText(), edited.getEditedBy(), (edited.getEditedAt() ?? 0) > 0]).toEqual(["fixed", "alice", true]);
    const e = (await bob.rec.until((x) => x.name === "onMessageEdited")).args[0] as TextMessage;
    expect([e.getId(), e.getText(), e.getEditedAt()]).toEqual([m.getId(), "fixed", edited.getEditedAt()]);

    const reacted = await bob.c.addReaction(m.getId(), "🎉");
    expect(reacted.getReactions().map((r) => [r.getReaction(), r.getCount(), r.getReactedByMe()])).toEqual([["🎉", 1, true]]);
    const ra = (await alice.rec.until((x) => x.name === "onMessageReactionAdded")).args[0] as ReactionEvent;
    expect([ra.getMessageId(), ra.getReaction().getReaction(), ra.getReaction().getUid(), ra.getReaction().getReactedBy()?.getName(), ra.getReceiverId()]).toEqual([
      m.getId(),
      "🎉",
      "bob",
      "Bob Builder",
      "alice",
    ]);
    const updated = Chat.updateMessageWithReactionInfo(m, ra, "added", "alice");
    expect(updated.getReactions().map((r) => [r.getCount(), r.getReactedByMe()])).toEqual([[1, false]]);
    const who = await new Chat.ReactionsRequestBuilder().setMessageId(m.getId()).build(alice.c).fetchNext();
    expect(who.map((r) => [r.getUid(), r.getReaction()])).toEqual([["bob", "🎉"]]);
    await bob.c.removeReaction(m.getId(), "🎉");
    await alice.rec.until((x) => x.name === "onMessageReactionRemoved");

    const gone = await alice.c.deleteMessage(m.getId());
    expect([gone.getDeletedBy(), (gone as TextMessage).getText()]).toEqual(["alice", ""]);
    const d = (await bob.rec.until((x) => x.name === "onMessageDeleted")).args[0] as BaseMessage;
    expect([d.getId(), d.getDeletedAt() !== undefined]).toEqual([m.getId(), true]);
    await expect(alice.c.editMessage(m)).rejects.toMatchObject({ code: "ERR_MESSAGE_DELETED" });
  });
});

describe("one-to-one: receipts and typing", () => {
  test("receipts, unread counts and mark unread", async () => {
    const carol = await h.client("carol");
    const dan = await h.client("dan");
    const m1 = await carol.c.sendMessage(new TextMessage("dan", "one", "user"));
    const m2 = await carol.c.sendMessage(new TextMessage("dan", "two", "user"));
    expect(await dan.c.getUnreadMessageCountForUser("carol")).toEqual({ carol: 2 });
    expect(await dan.c.getUnreadMessageCountForAllUsers()).toEqual({ carol: 2 });

    await dan.c.markAsDelivered(m2);
    const delivered = (await carol.rec.until((x) => x.name === "onMessagesDelivered")).args[0] as MessageReceipt;
    expect([delivered.getMessageId(), delivered.getSender().getUid(), delivered.getReceiverId(), delivered.getReceiptType(), (delivered.getDeliveredAt() ?? 0) > 0]).toEqual([
      m2.getId(),
      "dan",
      "carol",
      "delivered",
      true,
    ]);
    await dan.c.markAsRead(m1);
    const read = (await carol.rec.until((x) => x.name === "onMessagesRead")).args[0] as MessageReceipt;
    expect([read.getMessageId(), read.getSender().getUid(), read.getReceiptType()]).toEqual([m1.getId(), "dan", "read"]);
    expect(await dan.c.getUnreadMessageCountForUser("carol")).toEqual({ carol: 1 });

    const info = await carol.c.getMessageReceipts(m1.getId());
    expect(info.map((r) => [r.getSender().getUid(), r.getReceiptType(), (r.getReadAt() ?? 0) > 0])).toEqual([["dan", "read", true]]);
    const info2 = await carol.c.getMessageReceipts(m2.getId());
    expect(info2.map((r) => [r.getReceiptType(), r.getReadAt()])).toEqual([["delivered", undefined]]);

    await dan.c.markAsUnread(m1.getId());
    const unread = (await dan.rec.until((x) => x.name === "onMessageMarkedUnread")).args[0] as MessageReceipt;
    expect([unread.getMessageId(), unread.getReceiptType()]).toEqual([m1.getId() - 1, "unread"]);
    expect(await dan.c.getUnreadMessageCountForUser("carol")).toEqual({ carol: 2 });
    expect(carol.rec.named("onMessageMarkedUnread")).toEqual([]); // told only to the reader
  });

  test("typing indicators, through the socket and through REST", async () => {
    const alice = await h.client("alice");
    const bob = await h.client("bob");
    await alice.c.sendMessage(new TextMessage("bob", "so…", "user")); // the conversation exists
    alice.c.startTyping(new Chat.TypingIndicator("bob", "user"));
    const t = (await bob.rec.until((x) => x.name === "onTypingStarted")).args[0] as TypingIndicator;
    expect([t.getSender()?.getUid(), t.getReceiverId(), t.getReceiverType(), t.getConversationId()]).toEqual(["alice", "bob", "user", "user_alice_user_bob"]);
    alice.c.endTyping(new Chat.TypingIndicator("bob", "user"));
    await bob.rec.until((x) => x.name === "onTypingEnded");
    // Without a socket the SDK uses POST /typing/start.
    alice.c.disconnect();
    alice.c.startTyping(new Chat.TypingIndicator("bob", "user"));
    await bob.rec.count("onTypingStarted", 2);
    alice.c.connect();
  });
});

describe("a send whose answer is lost", () => {
  test("is sent again with its muid and stored once (text and media)", async () => {
    let drop = 0;
    // The request reaches the service, then the connection fails before the answer arrives.
    const lossy = async (url: string, init?: RequestInit): Promise<Response> => {
      const res = await fetch(url, init);
      if (init?.method === "POST" && /\/messages(\/media)?$/.test(url) && drop > 0) {
        drop--;
        await res.body?.cancel();
        throw new TypeError("fetch failed: the connection was reset");
      }
      return res;
    };
    const dora = await h.client("dora", { settings: { fetch: lossy } });
    const eve = await h.client("eve");
    drop = 1;
    const m = new TextMessage("eve", "Only once, please", "user");
    const sent = await dora.c.sendMessage(m);
    expect(sent.getMuid()).toBe(m.getMuid());
    expect(m.getMuid()).toMatch(/.{8,}/);
    drop = 1;
    const media = new MediaMessage("eve", new Blob([PNG], { type: "image/png" }), "image", "user");
    const sentMedia = await dora.c.sendMediaMessage(media);
    expect(sentMedia.getMuid()).toBe(media.getMuid());
    const page = await new Chat.MessagesRequestBuilder().setUID("dora").setLimit(50).build(eve.c).fetchPrevious();
    expect(page.map((x) => x.getId())).toEqual([sent.getId(), sentMedia.getId()]);
  });
});

describe("groups and threads", () => {
  test("group messages, thread replies and moderation", async () => {
    const owner = await h.client("gowner");
    const member = await h.client("gmember");
    await owner.c.createGroup(new Chat.Group("chatroom", "Chat room", "public"));
    await member.c.joinGroup("chatroom", "public");
    const root = await owner.c.sendMessage(new TextMessage("chatroom", "Thread root", "group"));
    const got = (await member.rec.until((x) => x.name === "onTextMessageReceived" && (x.args[0] as BaseMessage).getId() === root.getId())).args[0] as TextMessage;
    expect([got.getReceiverId(), got.getReceiverType(), got.getConversationId()]).toEqual(["chatroom", "group", "group_chatroom"]);

    const r = new TextMessage("chatroom", "A reply", "group");
    r.setParentMessageId(root.getId());
    const reply = await member.c.sendMessage(r);
    const live = (await owner.rec.until((x) => x.name === "onTextMessageReceived" && (x.args[0] as BaseMessage).getId() === reply.getId())).args[0] as TextMessage;
    expect(live.getParentMessageId()).toBe(root.getId());
    expect((await owner.c.getMessageDetails(root.getId())).getReplyCount()).toBe(1);
    const thread = await new Chat.MessagesRequestBuilder().setGUID("chatroom").setParentMessageId(root.getId()).build(owner.c).fetchPrevious();
    expect(thread.map((m) => m.getId())).toEqual([reply.getId()]);
    const main = await new Chat.MessagesRequestBuilder().setGUID("chatroom").hideReplies(true).setCategories(["message"]).build(owner.c).fetchPrevious();
    expect(main.map((m) => m.getId())).toEqual([root.getId()]);

    member.c.startTyping(new Chat.TypingIndicator("chatroom", "group"));
    const t = (await owner.rec.until((x) => x.name === "onTypingStarted")).args[0] as TypingIndicator;
    expect([t.getReceiverId(), t.getReceiverType(), t.getSender()?.getUid()]).toEqual(["chatroom", "group", "gmember"]);

    await member.c.markAsRead(root);
    const all = (await owner.rec.until((x) => x.name === "onMessagesReadByAll")).args[0] as MessageReceipt;
    expect([all.getMessageId(), all.getReceiverId(), all.getReceiptType()]).toEqual([root.getId(), "chatroom", "readByAll"]);

    await member.c.flagMessage(root.getId(), { reason: "spam", remark: "test" });
    const flags = await h.proc.call<{ items: Array<{ messageId: number; reason: string }> }>("GET", "/moderation/flags");
    expect(flags.items.map((f) => [f.messageId, f.reason])).toContainEqual([root.getId(), "spam"]);

    await h.proc.call("PUT", "/moderation/rules", { rules: [{ kind: "word", pattern: "heck", action: "pending" }] });
    const held = await member.c.sendMessage(new TextMessage("chatroom", "what the heck", "group"));
    expect(held.getModerationStatus()).toBe("pending");
    await h.proc.call("PUT", `/moderation/messages/${held.getId()}`, { status: "approved" });
    const moderated = (await owner.rec.until((x) => x.name === "onMessageModerated")).args[0] as BaseMessage;
    expect([moderated.getId(), moderated.getModerationStatus()]).toEqual([held.getId(), "approved"]);
    expect(owner.rec.named("onTextMessageReceived").some((e) => (e.args[0] as BaseMessage).getId() === held.getId())).toBe(false);
    await h.proc.call("PUT", "/moderation/rules", { rules: [] });
    // Only the approved message counts as unread: the thread reply is read in its thread and
    // the member's "joined" action message is not something to read.
    expect(await owner.c.getUnreadMessageCountForGroup("chatroom")).toEqual({ chatroom: 1 });
  });
});
