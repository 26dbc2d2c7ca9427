// Groups and membership against a real agentry chat: every change reaches the group listener
// once, with the Action message, the users, and the group after the change.
import { describe, expect, test } from "vitest";
import { Chat, type Action, type Group, type GroupMember, type User } from "../src/index";
import { useAgentry, type Entry, type Session } from "./harness";

const h = useAgentry();

/** The call's args, with users as uids and groups as "guid count joined scope". */
function shape(e: Entry): unknown[] {
  return e.args.map((a) => {
    if (a && typeof a === "object" && "getAction" in a) return `action ${(a as Action).getId() > 0 ? "#" : "0"} ${(a as Action).getAction()} ${(a as Action).getMessage()}`;
    if (a && typeof a === "object" && "getGuid" in a && "getMembersCount" in a) {
      const g = a as Group;
      return `${g.getGuid()} ${g.getMembersCount()} ${g.getHasJoined()} ${g.getScope() ?? "-"}`;
    }
    if (a && typeof a === "object" && "getUid" in a) return (a as User).getUid();
    return a;
  });
}

/** Every change was told once per listener: a message sent last to alice and dave arrives after
 * anything of the group a socket could still deliver (events come in order), so no wait is needed. */
async function toldOnce({ alice, dave, bob }: Clients): Promise<void> {
  await bob.c.sendMessage(new Chat.TextMessage("alice", "the end", "user"));
  await bob.c.sendMessage(new Chat.TextMessage("dave", "the end", "user"));
  await Promise.all([alice, dave].map((s) => s.rec.until((e) => e.name === "onTextMessageReceived")));
  const counts = (s: { rec: { named(n: string): Entry[] } }) =>
    ["onGroupMemberJoined", "onGroupMemberScopeChanged", "onGroupMemberKicked", "onGroupMemberBanned", "onGroupMemberUnbanned", "onMemberAddedToGroup", "onGroupMemberLeft", "onOwnershipChanged"].map(
      (n) => s.rec.named(n).length,
    );
  expect(counts(alice)).toEqual([2, 1, 1, 2, 1, 2, 2, 1]);
  expect(counts(dave)).toEqual([0, 0, 0, 1, 0, 2, 2, 1]); // carol was banned after dave was added
}

type Clients = Record<"alice" | "bob" | "carol" | "dave", Session>;

/** alice creates the club; bob and carol join; carol becomes a moderator. */
async function createJoinScope({ alice, bob, carol }: Clients): Promise<void> {
  const g = await alice.c.createGroup(new Chat.Group("club", "The Club", Chat.GROUP_TYPE.PUBLIC));
  expect([g.getGuid(), g.getName(), g.getOwner(), g.getMembersCount(), g.getHasJoined(), g.getScope()]).toEqual(["club", "The Club", "alice", 1, true, "admin"]);
  const created = await alice.rec.until((e) => e.name === "onGroupCreated");
  expect(shape(created)).toEqual(["club 1 true admin"]);

  // bob joins: alice and bob hear it, with the Action message and the count after the join
  const joined = await bob.c.joinGroup("club", "public");
  expect([joined.getHasJoined(), joined.getScope(), joined.getMembersCount()]).toEqual([true, "participant", 2]);
  expect(shape(await alice.rec.until((e) => e.name === "onGroupMemberJoined"))).toEqual(["action # joined bob joined", "bob", "club 2 true admin"]);
  expect(shape(await bob.rec.until((e) => e.name === "onGroupMemberJoined"))).toEqual(["action # joined bob joined", "bob", "club 2 true participant"]);

  await carol.c.joinGroup("club", "public");
  await alice.rec.count("onGroupMemberJoined", 2);

  // scope change
  await alice.c.updateGroupMemberScope("club", "carol", Chat.GROUP_MEMBER_SCOPE.MODERATOR);
  const sc = await carol.rec.until((e) => e.name === "onGroupMemberScopeChanged");
  expect(shape(sc)).toEqual(["action # scopeChanged alice scopeChanged carol", "carol", "moderator", "participant", "club 3 true moderator"]);
  await bob.rec.until((e) => e.name === "onGroupMemberScopeChanged");
}

/** carol kicks bob; alice bans carol, who cannot join then, and unbans her. */
async function kickBanUnban({ alice, bob, carol }: Clients): Promise<void> {
  // kick: the kicked user hears it too, with hasJoined false
  await carol.c.kickGroupMember("club", "bob");
  expect(shape(await bob.rec.until((e) => e.name === "onGroupMemberKicked"))).toEqual(["action # kicked carol kicked bob", "bob", "carol", "club 2 false -"]);
  expect(shape(await alice.rec.until((e) => e.name === "onGroupMemberKicked"))).toEqual(["action # kicked carol kicked bob", "bob", "carol", "club 2 true admin"]);

  // ban a member
  await alice.c.banGroupMember("club", "carol");
  expect(shape(await carol.rec.until((e) => e.name === "onGroupMemberBanned"))).toEqual(["action # banned alice banned carol", "carol", "alice", "club 1 false -"]);
  await expect(carol.c.joinGroup("club", "public")).rejects.toMatchObject({ code: "ERR_BANNED" });

  // unban: carol, no longer a member, only gets the targeted event (an Action without id)
  await alice.c.unbanGroupMember("club", "carol");
  expect(shape(await carol.rec.until((e) => e.name === "onGroupMemberUnbanned"))).toEqual(["action 0 unbanned alice unbanned carol", "carol", "alice", "club 1 false -"]);
  expect(shape(await alice.rec.until((e) => e.name === "onGroupMemberUnbanned"))).toEqual(["action # unbanned alice unbanned carol", "carol", "alice", "club 1 true admin"]);
}

/** alice adds dave and bob (and bans carol in the same call); bob leaves; dave becomes the owner and alice leaves. */
async function addLeaveOwnership({ alice, bob, carol, dave }: Clients): Promise<void> {
  // add members (and ban one in the same call)
  const results = await alice.c.addMembersToGroup("club", [new Chat.GroupMember("dave", "participant"), new Chat.GroupMember("bob"), new Chat.GroupMember("nobody")], ["carol"]);
  expect(results).toEqual({ dave: "success", bob: "success", nobody: "ERR_UID_NOT_FOUND", carol: "success" });
  const added = await dave.rec.until((e) => e.name === "onMemberAddedToGroup");
  expect(shape(added)).toEqual(["action # added alice added dave", "dave", "alice", "club 3 true participant"]);
  expect(((added.args[0] as Action).getActionFor() as Group).getGuid()).toBe("club");
  await alice.rec.count("onMemberAddedToGroup", 2);
  // carol was banned without being a member: only her targeted event tells her
  expect(shape(await carol.rec.until((e) => e.name === "onGroupMemberBanned", 10_000, 0))).toEqual(["action # banned alice banned carol", "carol", "alice", "club 1 false -"]);
  await carol.rec.count("onGroupMemberBanned", 2);
  expect(shape(carol.rec.named("onGroupMemberBanned")[1] as Entry)[0]).toBe("action 0 banned alice banned carol");

  // leave
  expect(await bob.c.leaveGroup("club")).toBe(true);
  expect(shape(await dave.rec.until((e) => e.name === "onGroupMemberLeft"))).toEqual(["action # left bob left", "bob", "club 2 true participant"]);
  expect(shape(await bob.rec.until((e) => e.name === "onGroupMemberLeft"))).toEqual(["action # left bob left", "bob", "club 2 false -"]);

  // ownership
  await alice.c.transferGroupOwnership("club", "dave");
  const own = await dave.rec.until((e) => e.name === "onOwnershipChanged");
  expect(shape(own)).toEqual(["action # ownershipTransferred alice made dave the owner", "dave", "club 2 true admin"]);
  expect(((own.args[2] as Group).getOwner())).toBe("dave");
  await alice.c.leaveGroup("club");
  await dave.rec.until((e) => e.name === "onGroupMemberLeft" && (e.args[1] as User).getUid() === "alice");
}

describe("membership", () => {
  test("join, scope, kick, ban, unban, add, leave, ownership: each listener call once with its args", async () => {
    const [alice, bob, carol, dave] = await Promise.all([h.client("alice"), h.client("bob"), h.client("carol"), h.client("dave")]);
    const c = { alice, bob, carol, dave };
    await createJoinScope(c);
    await kickBanUnban(c);
    await addLeaveOwnership(c);
    await toldOnce(c);
    // update and delete
    const upd = new Chat.Group("club", "The New Club", "public");
    upd.setDescription("renamed");
    await dave.c.updateGroup(upd);
    expect(shape(await dave.rec.until((e) => e.name === "onGroupUpdated"))).toEqual(["club 1 true admin"]); // alice left: dave is alone
    expect(((dave.rec.named("onGroupUpdated")[0] as Entry).args[0] as Group).getName()).toBe("The New Club");
    await dave.c.deleteGroup("club");
    expect(shape(await dave.rec.until((e) => e.name === "onGroupDeleted"))).toEqual(["club 1 false -"]);
  });

  test("private and password groups", async () => {
    const owner = await h.client("powner");
    const other = await h.client("pother");
    await owner.c.createGroup(new Chat.Group("secret", "Secret", "private"));
    await expect(other.c.getGroup("secret")).rejects.toMatchObject({ code: "ERR_GUID_NOT_FOUND" });
    await expect(other.c.joinGroup("secret", "private")).rejects.toMatchObject({ code: expect.stringMatching(/ERR_GUID_NOT_FOUND|ERR_GROUP_JOIN_NOT_ALLOWED/) });
    await owner.c.addMembersToGroup("secret", [new Chat.GroupMember("pother")]);
    expect(shape(await other.rec.until((e) => e.name === "onMemberAddedToGroup"))).toEqual(["action # added powner added pother", "pother", "powner", "secret 2 true participant"]);
    await owner.c.kickGroupMember("secret", "pother");
    // pother can no longer see the private group: its count is the SDK's own
    expect(shape(await other.rec.until((e) => e.name === "onGroupMemberKicked"))).toEqual(["action # kicked powner kicked pother", "pother", "powner", "secret 1 false -"]);

    await owner.c.createGroup(new Chat.Group("locked", "Locked", "password", "s3cret"));
    await expect(other.c.joinGroup("locked", "password", "nope")).rejects.toMatchObject({ code: "ERR_WRONG_GROUP_PASSWORD" });
    expect((await other.c.joinGroup("locked", "password", "s3cret")).getHasJoined()).toBe(true);

    const members = await new Chat.GroupMembersRequestBuilder("locked").build(other.c).fetchNext();
    expect(members.map((m: GroupMember) => [m.getUid(), m.getScope(), m.getName()])).toEqual([
      ["pother", "participant", "Pother"],
      ["powner", "admin", "Powner"],
    ]);
    await owner.c.banGroupMember("locked", "pother");
    const banned = await new Chat.BannedMembersRequestBuilder("locked").build(owner.c).fetchNext();
    expect(banned.map((m) => m.getUid())).toEqual(["pother"]);
  });
});

describe("GroupsRequestBuilder", () => {
  test("30 per page by default, search, joinedOnly, tags", async () => {
    const maker = await h.client("maker");
    const reader = await h.client("reader");
    for (let i = 0; i < 65; i++) {
      const g = new Chat.Group(`paged-${String(i).padStart(2, "0")}`, `Paged ${i}`, "public");
      if (i % 10 === 0) g.setTags(["tens"]);
      await maker.c.createGroup(g);
    }
    await reader.c.joinGroup("paged-07", "public");
    await reader.c.joinGroup("paged-42", "public");

    const req = new Chat.GroupsRequestBuilder().setSearchKeyword("paged").build(reader.c);
    const p1 = await req.fetchNext();
    const p2 = await req.fetchNext();
    const p3 = await req.fetchNext();
    expect([p1.length, p2.length, p3.length]).toEqual([30, 30, 5]);
    expect(await req.fetchNext()).toEqual([]);
    const guids = [...p1, ...p2, ...p3].map((g) => g.getGuid());
    expect(new Set(guids).size).toBe(65);
    expect(guids).toEqual([...guids].sort());
    expect(p1.find((g) => g.getGuid() === "paged-07")?.getHasJoined()).toBe(true);
    expect(p1.find((g) => g.getGuid() === "paged-08")?.getHasJoined()).toBe(false);

    expect((await new Chat.GroupsRequestBuilder().build(reader.c).fetchNext()).length).toBe(30);
    const joined = await new Chat.GroupsRequestBuilder().joinedOnly(true).build(reader.c).fetchNext();
    expect(joined.map((g) => g.getGuid())).toEqual(["paged-07", "paged-42"]);
    const tagged = await new Chat.GroupsRequestBuilder().setTags(["tens"]).withTags(true).setLimit(100).build(reader.c).fetchNext();
    expect(tagged.map((g) => [g.getGuid(), g.getTags()])).toEqual(Array.from({ length: 7 }, (_, i) => [`paged-${i}0`, ["tens"]]));
    const search = await new Chat.GroupsRequestBuilder().setSearchKeyword("Paged 6").build(reader.c).fetchNext();
    expect(search.map((g) => g.getName()).sort()).toEqual(["Paged 6", "Paged 60", "Paged 61", "Paged 62", "Paged 63", "Paged 64"]);
  });
});
