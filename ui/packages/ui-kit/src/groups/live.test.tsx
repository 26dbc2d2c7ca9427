// The specification's state table (group membership, as the groups list maintains it), driven
// through the real SDK: the fake service's socket sends the membership action messages the chat
// service stores, the SDK fetches the group after the change and calls the group listener.
import { Chat } from "@agentry/chat-sdk";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChatGroups } from "./ChatGroups";
import { connect, FakeIntersectionObserver, FakeService, type FakeSocket } from "./testing";

let svc: FakeService;
let ws: FakeSocket;

beforeEach(async () => {
  vi.stubGlobal("IntersectionObserver", FakeIntersectionObserver);
  svc = new FakeService().add(
    { guid: "j", name: "Joined", membersCount: 3, hasJoined: true, scope: "participant" },
    { guid: "n", name: "Not joined", membersCount: 3 },
    { guid: "x", name: "Extra", membersCount: 1 },
  );
  ws = await connect(svc);
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const flags = (g: Chat.Group) => `${g.getHasJoined() ? "joined" : "not joined"} ${g.getScope() ?? "-"}`;

/** guid → "flags · subtitle", in display order. */
function rows(): string[] {
  return [...document.querySelectorAll(".chat-groups__list-item")].map(
    (li) => `${li.getAttribute("data-guid")}: ${li.querySelector("[data-testid=flags]")?.textContent} · ${li.querySelector(".chat-groups__subtitle")?.textContent}`,
  );
}

async function mount(props: { joinedOnly?: boolean } = {}) {
  const builder = props.joinedOnly ? new Chat.GroupsRequestBuilder().joinedOnly(true) : undefined;
  render(<ChatGroups groupsRequestBuilder={builder} trailingView={(g) => <span data-testid="flags">{flags(g)}</span>} />);
  await waitFor(() => expect(screen.queryAllByRole("option").length).toBeGreaterThan(0));
}

describe("ChatGroups before the socket is ready", () => {
  it("a change made between the list's load and the socket's first ready frame shows once it is ready", async () => {
    ws = await connect(svc, "me", { ready: false });
    await mount();
    expect(rows()).toContain("n: not joined - · 3 members");
    // Joined from another session before this socket was ready: no event will ever say so.
    svc.set("n", { hasJoined: true, scope: "participant", membersCount: 4 });
    ws.ready("me");
    await waitFor(() => expect(rows()).toContain("n: joined participant · 4 members"));
  });
});

describe("ChatGroups: the state table, from the SDK's group listener", () => {
  it("not joined → member-joined (current user) → hasJoined, member count", async () => {
    await mount();
    svc.set("n", { hasJoined: true, scope: "participant", membersCount: 4 });
    ws.member({ action: "joined", by: "me", on: "me", guid: "n", scope: "participant" });
    await waitFor(() => expect(rows()).toContain("n: joined participant · 4 members"));
  });

  it("joined → member-left (current user) → not joined, member count", async () => {
    await mount();
    svc.set("j", { hasJoined: false, scope: undefined, membersCount: 2 });
    ws.member({ action: "left", by: "me", on: "me", guid: "j" });
    await waitFor(() => expect(rows()).toContain("j: not joined - · 2 members"));
  });

  it("joined → member-kicked (current user) → not joined, member count", async () => {
    await mount();
    svc.set("j", { hasJoined: false, scope: undefined, membersCount: 1 });
    ws.member({ action: "kicked", by: "admin", on: "me", guid: "j" });
    await waitFor(() => expect(rows()).toContain("j: not joined - · 1 member"));
  });

  it("listed → member-banned (current user) → removed from the list", async () => {
    await mount();
    svc.set("j", { hasJoined: false, membersCount: 2 });
    ws.member({ action: "banned", by: "admin", on: "me", guid: "j" });
    await waitFor(() => expect(rows().map((r) => r.split(":")[0])).toEqual(["n", "x"]));
  });

  it("member-banned of someone else → only the count", async () => {
    await mount();
    svc.set("j", { membersCount: 2 });
    ws.member({ action: "banned", by: "admin", on: "bob", guid: "j" });
    await waitFor(() => expect(rows()).toContain("j: joined participant · 2 members"));
    expect(rows()).toHaveLength(3);
  });
});

describe("ChatGroups: the state table, additions, scope and others", () => {
  it("not in list → member-added (current user) → the group appears at the top, with its count", async () => {
    await mount();
    svc.add({ guid: "p", name: "Private", type: "private", membersCount: 5, hasJoined: true, scope: "participant" });
    ws.member({ action: "added", by: "admin", on: "me", guid: "p", scope: "participant" });
    await waitFor(() => expect(rows()[0]).toBe("p: joined participant · 5 members"));
    expect(document.querySelector(".chat-groups__list-item-private .chat-list-item__status-icon")).not.toBeNull();
  });

  it("any → scope-changed (current user) → scope, member count", async () => {
    await mount();
    svc.set("j", { scope: "moderator", membersCount: 3 });
    ws.member({ action: "scopeChanged", by: "admin", on: "me", guid: "j", scope: "moderator", oldScope: "participant" });
    await waitFor(() => expect(rows()).toContain("j: joined moderator · 3 members"));
  });

  it("others joining, leaving, being added or kicked → only the member count", async () => {
    await mount();
    // The service's copy says the viewer joined (it did not): the list takes the count only.
    svc.set("n", { membersCount: 9, hasJoined: true, scope: "admin" });
    ws.member({ action: "joined", by: "bob", on: "bob", guid: "n" });
    await waitFor(() => expect(rows()).toContain("n: not joined - · 9 members"));
    svc.set("n", { membersCount: 8 });
    ws.member({ action: "left", by: "bob", on: "bob", guid: "n" });
    await waitFor(() => expect(rows()).toContain("n: not joined - · 8 members"));
    svc.set("j", { membersCount: 4, hasJoined: false });
    ws.member({ action: "added", by: "admin", on: "carol", guid: "j" });
    await waitFor(() => expect(rows()).toContain("j: joined participant · 4 members"));
    svc.set("j", { membersCount: 3 });
    ws.member({ action: "kicked", by: "admin", on: "carol", guid: "j" });
    await waitFor(() => expect(rows()).toContain("j: joined participant · 3 members"));
    expect(rows().map((r) => r.split(":")[0])).toEqual(["j", "n", "x"]);
  });

  it("a list of joined groups: joining elsewhere inserts the group; leaving keeps it, not joined", async () => {
    await mount({ joinedOnly: true });
    expect(rows().map((r) => r.split(":")[0])).toEqual(["j"]);
    svc.set("n", { hasJoined: true, scope: "participant", membersCount: 4 });
    ws.member({ action: "joined", by: "me", on: "me", guid: "n", scope: "participant" });
    await waitFor(() => expect(rows()).toEqual(["n: joined participant · 4 members", "j: joined participant · 3 members"]));
  });

  it("the SDK's group created and deleted", async () => {
    await mount();
    svc.add({ guid: "a", name: "Created", membersCount: 1, hasJoined: true, scope: "admin" });
    ws.event("group.created", { guid: "a", name: "Created", type: "public", owner: "me", membersCount: 1 }, { conversationId: "group_a" });
    await waitFor(() => expect(rows()[0]).toBe("a: joined admin · 1 member"));
    ws.event("group.deleted", { guid: "n", by: "admin" }, { targetUid: "me" });
    await waitFor(() => expect(rows().map((r) => r.split(":")[0])).toEqual(["a", "j", "x"]));
  });
});
