import { Chat } from "@agentry/chat-sdk";
import { afterEach, describe, expect, test, vi } from "vitest";
import { membersOf, subscribeMembers } from "./members";

vi.mock("@agentry/chat-sdk", async (importOriginal) => {
  const real = await importOriginal<typeof import("@agentry/chat-sdk")>();
  return { ...real, Chat: { ...real.Chat } };
});

afterEach(() => vi.restoreAllMocks());

describe("shared group members", () => {
  test("two followers share one list: one fetch per change, listener removed with the last", async () => {
    const listeners = new Map<string, Chat.GroupListener>();
    vi.spyOn(Chat, "addGroupListener").mockImplementation((id, l) => void listeners.set(id, l));
    vi.spyOn(Chat, "removeGroupListener").mockImplementation((id) => void listeners.delete(id));
    let fetches = 0;
    vi.spyOn(Chat.GroupMembersRequestBuilder.prototype, "build").mockImplementation(function (this: Chat.GroupMembersRequestBuilder) {
      return { fetchNext: async () => (++fetches, [new Chat.GroupMember("u" + fetches, "participant")]) } as unknown as Chat.GroupMembersRequest;
    });
    const a = vi.fn();
    const b = vi.fn();
    const stopA = subscribeMembers("g1", a);
    const stopB = subscribeMembers("g1", b);
    await vi.waitFor(() => expect(membersOf("g1")?.map((m) => m.getUid())).toEqual(["u1"]));
    expect(fetches).toBe(1);
    expect(listeners.size).toBe(1);
    // A member joins: one reload for both followers.
    const l = [...listeners.values()][0]!;
    const joined = (l as unknown as { onGroupMemberJoined: (...args: unknown[]) => void }).onGroupMemberJoined;
    joined({}, new Chat.User("x"), new Chat.Group("g1", "G", "public"));
    await vi.waitFor(() => expect(membersOf("g1")?.map((m) => m.getUid())).toEqual(["u2"]));
    expect(fetches).toBe(2);
    expect(a).toHaveBeenCalledTimes(2);
    expect(b).toHaveBeenCalledTimes(2);
    // Another group's event is not ours.
    joined({}, new Chat.User("x"), new Chat.Group("g2", "G", "public"));
    await new Promise((r) => setTimeout(r, 10));
    expect(fetches).toBe(2);
    stopA();
    expect(listeners.size).toBe(1);
    stopB();
    expect(listeners.size).toBe(0);
    expect(membersOf("g1")).toBeUndefined();
  });
});
