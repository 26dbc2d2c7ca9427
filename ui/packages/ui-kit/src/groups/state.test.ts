import { Chat } from "@agentry/chat-sdk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  builderKey,
  cloneBuilder,
  groupsOf,
  groupsReducer,
  initialGroupsState,
  matchesFilter,
  membersText,
  requestBuilder,
  type GroupFilter,
  type GroupsAction,
  type GroupsState,
  type MemberChange,
} from "./state";

const ANY: GroupFilter = { keyword: "", joinedOnly: false, tags: [] };

function group(guid: string, over: { name?: string; count?: number; joined?: boolean; scope?: Chat.GroupMemberScope; type?: Chat.GroupType; tags?: string[] } = {}) {
  const g = new Chat.Group(guid, over.name ?? `Name ${guid}`, over.type ?? "public");
  g.setMembersCount(over.count ?? 1);
  g.setHasJoined(over.joined ?? false);
  if (over.scope) g.setScope(over.scope);
  if (over.tags) g.setTags(over.tags);
  return g;
}

const run = (actions: GroupsAction[], s: GroupsState = initialGroupsState) => actions.reduce(groupsReducer, s);
const loaded = (...guids: string[]) =>
  run([
    { type: "reload", generation: 1 },
    { type: "page", generation: 1, groups: guids.map((g) => group(g)), hasMore: true },
  ]);
const member = (s: GroupsState, change: MemberChange, uid: string, g: Chat.Group, extra: Partial<{ scope: string; filter: GroupFilter }> = {}) =>
  groupsReducer(s, { type: "member", change, uid, me: "me", group: g, filter: extra.filter ?? ANY, ...(extra.scope ? { scope: extra.scope } : {}) });

describe("membersText", () => {
  it.each([
    [0, "No members"],
    [-3, "No members"],
    [Number.NaN, "No members"],
    [1, "1 member"],
    [2, "2 members"],
    [30, "30 members"],
    [1234, "1,234 members"],
  ])("%s → %s", (n, want) => expect(membersText(n)).toBe(want));

  it("never says '0 member' or '1 members'", () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 100000 }), (n) => {
        const t = membersText(n);
        expect(t).not.toMatch(/^0 member\b|^1 members$/);
        expect(t === "No members" || /^[\d,]+ members?$/.test(t)).toBe(true);
      }),
    );
  });
});

describe("request builders", () => {
  it("clones: searching sets the keyword on a copy, never on the caller's builder", () => {
    const mine = new Chat.GroupsRequestBuilder().setLimit(10).joinedOnly(true).setTags(["a"]);
    const search = new Chat.GroupsRequestBuilder().setLimit(5);
    const b1 = requestBuilder(mine, undefined, "kit");
    const b2 = requestBuilder(mine, search, "bar");
    const b3 = requestBuilder(mine, undefined, "");
    expect([b1.limit, b1.searchKeyword, b1.joined, b1.tags]).toEqual([10, "kit", true, ["a"]]);
    expect([b2.limit, b2.searchKeyword, b2.joined]).toEqual([5, "bar", false]);
    expect([b3.searchKeyword, b3 === mine]).toEqual(["", false]);
    expect([mine.searchKeyword, search.searchKeyword, mine.tags]).toEqual(["", "", ["a"]]);
    b1.tags.push("x");
    expect(mine.tags).toEqual(["a"]);
    expect(b1).toBeInstanceOf(Chat.GroupsRequestBuilder);
  });

  it("defaults to 30 per page; the key follows the settings, not the instance", () => {
    expect(requestBuilder(undefined, undefined, "").limit).toBe(30);
    const a = new Chat.GroupsRequestBuilder().setLimit(7);
    expect(builderKey(a)).toBe(builderKey(cloneBuilder(a)));
    expect(builderKey(a)).not.toBe(builderKey(new Chat.GroupsRequestBuilder().setLimit(8)));
  });

  it("matchesFilter: keyword (case-insensitive), joinedOnly, tags", () => {
    const g = group("g", { name: "Kitchen Crew", joined: false, tags: ["food"] });
    expect(matchesFilter(g, ANY)).toBe(true);
    expect(matchesFilter(g, { ...ANY, keyword: "CREW" })).toBe(true);
    expect(matchesFilter(g, { ...ANY, keyword: "garden" })).toBe(false);
    expect(matchesFilter(g, { ...ANY, joinedOnly: true })).toBe(false);
    expect(matchesFilter(g, { ...ANY, tags: ["food", "x"] })).toBe(true);
    expect(matchesFilter(g, { ...ANY, tags: ["x"] })).toBe(false);
  });
});

describe("groupsReducer", () => {
  it("pages append in order, once per guid; a stale generation changes nothing", () => {
    let s = loaded("a", "b");
    s = groupsReducer(s, { type: "page", generation: 1, groups: [group("b"), group("c")], hasMore: false });
    expect(s.order).toEqual(["a", "b", "c"]);
    expect(s.hasMore).toBe(false);
    const stale = groupsReducer(s, { type: "page", generation: 0, groups: [group("z")], hasMore: true });
    expect(stale).toBe(s);
    expect(groupsReducer(s, { type: "failed", generation: 0, error: new Chat.ChatException("ERR_NETWORK", "x") })).toBe(s);
  });

  it("an empty page ends the list; a failure keeps what is listed", () => {
    let s = groupsReducer(loaded("a"), { type: "page", generation: 1, groups: [], hasMore: true });
    expect(s.hasMore).toBe(false);
    s = groupsReducer(loaded("a"), { type: "failed", generation: 1, error: new Chat.ChatException("ERR_NETWORK", "down") });
    expect([s.order, s.error?.code, s.loading, s.fetching]).toEqual([["a"], "ERR_NETWORK", false, false]);
    expect(groupsReducer(s, { type: "fetching", generation: 1 }).error).toBeUndefined();
  });

  it("created: at the top when it matches the filter; deleted: gone, and an older page does not bring it back", () => {
    let s = loaded("b", "c");
    s = groupsReducer(s, { type: "created", group: group("a", { name: "Alpha" }), filter: ANY });
    expect(s.order).toEqual(["a", "b", "c"]);
    s = groupsReducer(s, { type: "created", group: group("x", { name: "Other" }), filter: { ...ANY, keyword: "alp" } });
    expect(s.order).toEqual(["a", "b", "c"]);
    s = groupsReducer(s, { type: "removed", guid: "c" });
    s = groupsReducer(s, { type: "page", generation: 1, groups: [group("c"), group("d")], hasMore: false });
    expect(s.order).toEqual(["a", "b", "d"]);
  });
});

describe("groupsReducer: updates and membership", () => {
  it("updated: name and type follow, membership flags stay", () => {
    let s = run([{ type: "reload", generation: 1 }, { type: "page", generation: 1, groups: [group("a", { joined: true, count: 4 })], hasMore: false }]);
    const u = group("a", { name: "Renamed", type: "private", joined: false, count: 9 });
    s = groupsReducer(s, { type: "updated", group: u });
    const g = s.byGuid.get("a")!;
    expect([g.getName(), g.getType(), g.getHasJoined(), g.getMembersCount()]).toEqual(["Renamed", "private", true, 4]);
  });

  describe("the state table (current user 'me')", () => {
    const base = () =>
      run([
        { type: "reload", generation: 1 },
        {
          type: "page",
          generation: 1,
          groups: [group("j", { joined: true, scope: "participant", count: 3 }), group("n", { joined: false, count: 3 })],
          hasMore: false,
        },
      ]);
    const flags = (s: GroupsState, guid: string) => {
      const g = s.byGuid.get(guid);
      return g ? [g.getHasJoined(), g.getScope(), g.getMembersCount()] : "absent";
    };

    it("joined → hasJoined true + count", () => {
      expect(flags(member(base(), "joined", "me", group("n", { joined: true, scope: "participant", count: 4 })), "n")).toEqual([true, "participant", 4]);
    });
    it("left → hasJoined false + count", () => {
      expect(flags(member(base(), "left", "me", group("j", { count: 2 })), "j")).toEqual([false, undefined, 2]);
    });
    it("kicked → hasJoined false + count", () => {
      expect(flags(member(base(), "kicked", "me", group("j", { count: 2 })), "j")).toEqual([false, undefined, 2]);
    });
    it("banned → removed from the list", () => {
      const s = member(base(), "banned", "me", group("j", { count: 2 }));
      expect(s.order).toEqual(["n"]);
      expect(s.removed.has("j")).toBe(true);
    });
    it("added → the group is inserted at the top (when it matches the filter) + count", () => {
      const s = member(base(), "added", "me", group("p", { type: "private", joined: true, count: 5 }));
      expect(s.order).toEqual(["p", "j", "n"]);
      expect(flags(s, "p")).toEqual([true, undefined, 5]);
      expect(member(base(), "added", "me", group("p", { name: "Zeta" }), { filter: { ...ANY, keyword: "alpha" } }).order).toEqual(["j", "n"]);
      expect(flags(member(base(), "added", "me", group("n", { joined: true, scope: "moderator", count: 7 })), "n")).toEqual([true, "moderator", 7]);
    });
    it("scope changed → scope + count", () => {
      expect(flags(member(base(), "scopeChanged", "me", group("j", { count: 8 }), { scope: "admin" }), "j")).toEqual([true, "admin", 8]);
    });
    it("someone else's change → only the count (banned too)", () => {
      for (const change of ["joined", "left", "kicked", "banned", "added", "scopeChanged"] as const) {
        const s = member(base(), change, "bob", group("j", { joined: false, scope: "admin", count: 11 }), { scope: "admin" });
        expect([change, flags(s, "j"), s.order]).toEqual([change, [true, "participant", 11], ["j", "n"]]);
      }
      // not listed: nothing happens
      expect(member(base(), "added", "bob", group("zz")).order).toEqual(["j", "n"]);
    });
    it("joined a group that is not listed: inserted only in a list of joined groups", () => {
      expect(member(base(), "joined", "me", group("q", { joined: true })).order).toEqual(["j", "n"]);
      expect(member(base(), "joined", "me", group("q", { joined: true }), { filter: { ...ANY, joinedOnly: true } }).order).toEqual(["q", "j", "n"]);
    });
    it("unbanned changes nothing listed", () => {
      const s = base();
      expect(groupsOf(member(s, "unbanned", "me", group("j", { count: 3 })))).toEqual(groupsOf(s));
    });
    it("never changes the group objects it was given or holds", () => {
      const s = base();
      const before = s.byGuid.get("j")!;
      const given = group("j", { count: 9 });
      member(s, "left", "me", given);
      expect([before.getHasJoined(), before.getMembersCount(), given.getMembersCount()]).toEqual([true, 3, 9]);
    });
  });
});

// Property: merging pages and live events never lists a guid twice, keeps order and map in step,
// agrees with a naive model, and ignores stale generations.
describe("groupsReducer (property)", () => {
  const guid = fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h");
  const op = fc.oneof(
    fc.record({ k: fc.constant("page" as const), gs: fc.array(guid, { maxLength: 5 }), stale: fc.boolean() }),
    fc.record({ k: fc.constant("created" as const), g: guid }),
    fc.record({ k: fc.constant("removed" as const), g: guid }),
    fc.record({
      k: fc.constant("member" as const),
      g: guid,
      change: fc.constantFrom<MemberChange>("joined", "left", "kicked", "banned", "added", "scopeChanged", "unbanned"),
      mine: fc.boolean(),
      count: fc.nat(50),
    }),
  );

  it("dedupes by guid and matches the model", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let s = groupsReducer(initialGroupsState, { type: "reload", generation: 2 });
        let order: string[] = [];
        const removed = new Set<string>();
        const counts = new Map<string, number>();
        for (const o of ops) {
          if (o.k === "page") {
            const next = groupsReducer(s, { type: "page", generation: o.stale ? 1 : 2, groups: o.gs.map((g) => group(g)), hasMore: true });
            if (o.stale) {
              expect(next).toBe(s);
              continue;
            }
            s = next;
            for (const g of o.gs) {
              if (!order.includes(g) && !removed.has(g)) {
                order.push(g);
                counts.set(g, 1);
              }
            }
          } else if (o.k === "created") {
            s = groupsReducer(s, { type: "created", group: group(o.g, { count: 2 }), filter: ANY });
            if (!order.includes(o.g)) order = [o.g, ...order];
            counts.set(o.g, 2);
            removed.delete(o.g);
          } else if (o.k === "removed") {
            s = groupsReducer(s, { type: "removed", guid: o.g });
            order = order.filter((g) => g !== o.g);
            removed.add(o.g);
          } else {
            s = member(s, o.change, o.mine ? "me" : "bob", group(o.g, { count: o.count, joined: true }));
            const listed = order.includes(o.g);
            if (o.mine && o.change === "banned") {
              order = order.filter((g) => g !== o.g);
              removed.add(o.g);
            } else if (o.mine && o.change === "added" && !listed) {
              order = [o.g, ...order];
              removed.delete(o.g);
              counts.set(o.g, o.count);
            } else if (listed && o.change !== "unbanned") {
              counts.set(o.g, o.count);
            }
          }
          expect(s.order).toEqual(order);
          expect(new Set(s.order).size).toBe(s.order.length);
          expect([...s.byGuid.keys()].sort()).toEqual([...s.order].sort());
          for (const g of s.order) expect(s.byGuid.get(g)!.getMembersCount()).toBe(counts.get(g));
          for (const g of removed) expect(s.byGuid.has(g)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});
