// Message history through MessagesRequestBuilder against a real agentry chat.
import { describe, expect, test } from "vitest";
import { Chat, TextMessage, type BaseMessage } from "../src/index";
import { useAgentry } from "./harness";

const h = useAgentry();
const texts = (ms: BaseMessage[]) => ms.map((m) => (m as TextMessage).getText());
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `m${from + i}`);

describe("history", () => {
  test("fetchPrevious pages older (scroll-up) until the start; fetchNext brings what came since", async () => {
    const alice = await h.client("alice");
    const bob = await h.client("bob");
    for (let i = 1; i <= 75; i++) await alice.c.sendMessage(new TextMessage("bob", `m${i}`, "user"));

    const req = new Chat.MessagesRequestBuilder().setUID("alice").setLimit(30).build(bob.c);
    const p1 = await req.fetchPrevious();
    const p2 = await req.fetchPrevious();
    const p3 = await req.fetchPrevious();
    expect([texts(p1), texts(p2), texts(p3)]).toEqual([range(46, 75), range(16, 45), range(1, 15)]);
    expect(await req.fetchPrevious()).toEqual([]);
    expect(p1.every((m) => m.getSender()?.getName() === "Alice")).toBe(true);

    expect(await req.fetchNext()).toEqual([]);
    await alice.c.sendMessage(new TextMessage("bob", "m76", "user"));
    await bob.c.sendMessage(new TextMessage("alice", "m77", "user"));
    expect(texts(await req.fetchNext())).toEqual(["m76", "m77"]);

    // An anchor: older from it (included), newer after it, or around it.
    const anchor = p2[10] as BaseMessage; // m26
    const around = new Chat.MessagesRequestBuilder().setUID("alice").setLimit(10).setMessageId(anchor.getId()).build(bob.c);
    expect(texts(await around.fetchAround())).toEqual(range(21, 30));
    expect(texts(await around.fetchPrevious())).toEqual(range(11, 20));
    expect(texts(await around.fetchNext())).toEqual(range(31, 40));
    const before = new Chat.MessagesRequestBuilder().setUID("alice").setLimit(5).setMessageId(anchor.getId()).build(bob.c);
    expect(texts(await before.fetchPrevious())).toEqual(range(22, 26));
    const after = new Chat.MessagesRequestBuilder().setUID("alice").setLimit(5).setMessageId(anchor.getId()).build(bob.c);
    expect(texts(await after.fetchNext())).toEqual(range(27, 31));

    // Deleted messages: tombstones by default, left out on request.
    for (const m of p3.slice(0, 10)) await alice.c.deleteMessage(m.getId());
    const all = new Chat.MessagesRequestBuilder().setUID("alice").setLimit(5).setMessageId(p3[11]?.getId() ?? 0).build(bob.c);
    expect((await all.fetchPrevious()).map((m) => m.getDeletedAt() !== undefined)).toEqual([true, true, true, false, false]);
    const live = new Chat.MessagesRequestBuilder().setUID("alice").setLimit(5).setMessageId(p3[11]?.getId() ?? 0).hideDeletedMessages(true).build(bob.c);
    expect(texts(await live.fetchPrevious())).toEqual(["m11", "m12"]);
    expect(await live.fetchPrevious()).toEqual([]);
  });

  test("group history with types and categories", async () => {
    const owner = await h.client("hist-owner");
    const member = await h.client("hist-member");
    await owner.c.createGroup(new Chat.Group("hist", "History", "public"));
    await member.c.joinGroup("hist", "public");
    await owner.c.sendMessage(new TextMessage("hist", "hello", "group"));
    await member.c.sendCustomMessage(new Chat.CustomMessage("hist", "group", "poll", { q: "?" }));
    const everything = await new Chat.MessagesRequestBuilder().setGUID("hist").build(member.c).fetchPrevious();
    expect(everything.map((m) => `${m.getCategory()}/${m.getType()}`)).toEqual(["action/groupMember", "message/text", "custom/poll"]);
    expect(everything[0]).toBeInstanceOf(Chat.Action);
    expect((everything[0] as InstanceType<typeof Chat.Action>).getActionOn()?.getUid()).toBe("hist-member");
    const customs = await new Chat.MessagesRequestBuilder().setGUID("hist").setCategories(["custom"]).build(member.c).fetchPrevious();
    expect(customs.map((m) => m.getType())).toEqual(["poll"]);
    const textOnly = await new Chat.MessagesRequestBuilder().setGUID("hist").setTypes(["text"]).build(member.c).fetchPrevious();
    expect(texts(textOnly)).toEqual(["hello"]);
    await expect(new Chat.MessagesRequestBuilder().setGUID("nope").build(member.c).fetchPrevious()).rejects.toMatchObject({ code: "ERR_GUID_NOT_FOUND" });
  });
});
