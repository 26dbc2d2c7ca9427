import { describe, expect, test } from "vitest";
import { ChatClient } from "../client";
import { ChatException } from "../exception";
import { directoryRoutes, fakeFetch, loginRoute, route, wireMessage, type Call } from "../testing/fakes";
import { GroupsRequestBuilder } from "./groups";
import { MessagesRequestBuilder } from "./messages";
import { ReactionsRequestBuilder } from "./reactions";

async function client(...handlers: Parameters<typeof fakeFetch>) {
  const f = fakeFetch(loginRoute, ...handlers, ...directoryRoutes());
  const c = new ChatClient();
  await c.init("app", { host: "http://chat.test", fetch: f.fetch, autoConnect: false });
  await c.login("me", "key");
  return { c, calls: f.calls };
}

/** A conversation of n messages (ids 1..n) answering like the service: id order, before/after/around. */
function history(n: number, deleted: Set<number> = new Set()) {
  const ids = Array.from({ length: n }, (_, i) => i + 1);
  return route("GET", "/users/alice/messages", (call: Call) => {
    const q = call.url.searchParams;
    const limit = Number(q.get("limit") ?? 30);
    const before = Number(q.get("before") ?? 0);
    const after = Number(q.get("after") ?? 0);
    const around = Number(q.get("around") ?? 0);
    let page: number[];
    if (after) page = ids.filter((i) => i > after).slice(0, limit);
    else if (around) {
      const older = ids.filter((i) => i < around).slice(-Math.floor(limit / 2));
      page = [...older, ...ids.filter((i) => i >= around).slice(0, limit - older.length)];
    } else page = ids.filter((i) => !before || i < before).slice(-limit);
    return { items: page.map((id) => wireMessage(id, deleted.has(id) ? { text: undefined, deletedAt: "2026-01-01T00:00:00Z" } : {})) };
  });
}

const ids = (ms: Array<{ getId(): number }>) => ms.map((m) => m.getId());
const query = (calls: Call[], path: string) =>
  calls.filter((c) => c.url.pathname === `/chat/v1${path}`).map((c) => Object.fromEntries([...c.url.searchParams.entries()].filter(([k]) => k !== "limit")));

describe("MessagesRequest", () => {
  test("fetchPrevious pages older by the oldest id seen, then answers [] without asking", async () => {
    const { c, calls } = await client(history(75));
    const req = new MessagesRequestBuilder().setUID("alice").setLimit(30).build(c);
    expect(ids(await req.fetchPrevious())).toEqual(Array.from({ length: 30 }, (_, i) => 46 + i));
    expect(ids(await req.fetchPrevious())).toEqual(Array.from({ length: 30 }, (_, i) => 16 + i));
    expect(ids(await req.fetchPrevious())).toEqual(Array.from({ length: 15 }, (_, i) => 1 + i));
    expect(await req.fetchPrevious()).toEqual([]);
    expect(query(calls, "/users/alice/messages")).toEqual([{}, { before: "46" }, { before: "16" }]);
  });

  test("fetchNext pages newer by the newest id seen", async () => {
    const { c, calls } = await client(history(40));
    const req = new MessagesRequestBuilder().setUID("alice").setLimit(10).setMessageId(12).build(c);
    expect(ids(await req.fetchNext())).toEqual([13, 14, 15, 16, 17, 18, 19, 20, 21, 22]);
    expect(ids(await req.fetchNext())).toEqual([23, 24, 25, 26, 27, 28, 29, 30, 31, 32]);
    expect(ids(await req.fetchPrevious())).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(query(calls, "/users/alice/messages")).toEqual([{ after: "12" }, { after: "22" }, { before: "13" }]);
  });

  test("fetchAround, then both directions continue from its ends", async () => {
    const { c } = await client(history(100));
    const req = new MessagesRequestBuilder().setUID("alice").setLimit(10).setMessageId(50).build(c);
    expect(ids(await req.fetchAround())).toEqual([45, 46, 47, 48, 49, 50, 51, 52, 53, 54]);
    expect(ids(await req.fetchPrevious())[9]).toBe(44);
    expect(ids(await req.fetchNext())[0]).toBe(55);
  });

  test("hideDeletedMessages skips tombstones, fetching on when a page was all tombstones", async () => {
    const deleted = new Set([6, 7, 8, 9, 10, 4]);
    const { c } = await client(history(10, deleted));
    const req = new MessagesRequestBuilder().setUID("alice").setLimit(5).hideDeletedMessages(true).build(c);
    expect(ids(await req.fetchPrevious())).toEqual([1, 2, 3, 5]);
    expect(await req.fetchPrevious()).toEqual([]);
  });

  test("filters, threads and concurrent calls", async () => {
    const { c, calls } = await client(history(100));
    const req = new MessagesRequestBuilder()
      .setGUID("ignored")
      .setUID("alice")
      .setLimit(500)
      .setParentMessageId(7)
      .hideReplies(true)
      .setTypes(["text", "image"])
      .setCategories(["message"])
      .build(c);
    const [a, b] = await Promise.all([req.fetchPrevious(), req.fetchPrevious()]);
    expect(ids(a)[0]).toBe(1);
    expect(b).toEqual([]); // the second waited for the first and found the start
    const q = calls.find((x) => x.url.pathname.endsWith("/messages"))?.url.searchParams;
    expect([q?.get("limit"), q?.get("parentId"), q?.get("hideReplies"), q?.getAll("types"), q?.getAll("categories")]).toEqual([
      "100",
      "7",
      "true",
      ["text", "image"],
      ["message"],
    ]);
    expect(() => new MessagesRequestBuilder().build(c)).toThrow(/exactly one/);
  });
});

describe("GroupsRequest", () => {
  test("30 per page by default, cursor paging, [] at the end", async () => {
    const all = Array.from({ length: 65 }, (_, i) => ({ guid: `g${String(i).padStart(2, "0")}`, name: `G${i}`, type: "public", membersCount: 1 }));
    const { c, calls } = await client(
      route("GET", "/groups", (call) => {
        const q = call.url.searchParams;
        const start = Number(q.get("cursor") ?? 0);
        const limit = Number(q.get("limit"));
        const items = all.slice(start, start + limit);
        return start + limit < all.length ? { items, next: String(start + limit) } : { items };
      }),
    );
    const req = new GroupsRequestBuilder().setSearchKeyword("g").joinedOnly(true).setTags(["a", "b"]).withTags(true).build(c);
    expect((await req.fetchNext()).length).toBe(30);
    expect((await req.fetchNext()).map((g) => g.getGuid())[0]).toBe("g30");
    expect((await req.fetchNext()).length).toBe(5);
    expect(await req.fetchNext()).toEqual([]);
    const groupCalls = calls.filter((x) => x.url.pathname === "/chat/v1/groups");
    expect(groupCalls).toHaveLength(3);
    const q = groupCalls[0]?.url.searchParams;
    expect([q?.get("limit"), q?.get("searchKeyword"), q?.get("joinedOnly"), q?.getAll("tags"), q?.get("withTags"), q?.get("cursor")]).toEqual([
      "30",
      "g",
      "true",
      ["a", "b"],
      "true",
      null,
    ]);
    expect(groupCalls[1]?.url.searchParams.get("cursor")).toBe("30");
  });
});

describe("a request's failures", () => {
  test("whatever goes wrong reaches the caller as a ChatException, and the next call still runs", async () => {
    let broken = true;
    const { c } = await client(
      route("GET", "/groups", () => (broken ? { items: [null] } : { items: [{ guid: "g1", name: "G1", type: "public", membersCount: 1 }] })),
      route("GET", "/users/alice/messages", () => ({ items: [null] })),
    );
    const groups = new GroupsRequestBuilder().build(c);
    const err = await groups.fetchNext().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChatException);
    expect((err as ChatException).code).toBe("ERR_INTERNAL");
    broken = false;
    const again = new GroupsRequestBuilder().build(c);
    expect((await again.fetchNext()).map((g) => g.getGuid())).toEqual(["g1"]);
    const messages = new MessagesRequestBuilder().setUID("alice").build(c);
    const merr = await messages.fetchPrevious().catch((e: unknown) => e);
    expect(merr).toBeInstanceOf(ChatException);
    expect((merr as ChatException).code).toBe("ERR_INTERNAL");
  });
});

describe("ReactionsRequest", () => {
  test("pages who reacted, with their users", async () => {
    const { c } = await client(
      route("GET", "/messages/9/reactions", (call) =>
        call.url.searchParams.get("cursor")
          ? { items: [{ messageId: 9, uid: "bob", reaction: "👍", reactedAt: "2026-01-01T00:00:00Z" }] }
          : { items: [{ messageId: 9, uid: "alice", reaction: "👍", reactedAt: "2026-01-01T00:00:00Z" }], next: "x" },
      ),
    );
    const req = new ReactionsRequestBuilder().setMessageId(9).setReaction("👍").setLimit(1).build(c);
    const first = await req.fetchNext();
    expect(first.map((r) => [r.getUid(), r.getReaction(), r.getReactedBy()?.getName()])).toEqual([["alice", "👍", "Name of alice"]]);
    expect((await req.fetchNext()).map((r) => r.getUid())).toEqual(["bob"]);
    expect(await req.fetchNext()).toEqual([]);
  });
});
