import { describe, expect, test } from "vitest";
import { conversationIdOf, conversationTarget, groupFromWire, messageFromWire, receiptFromWire, type Resolver } from "./mapping";
import { Action } from "./models/action";
import { AgenticMessage } from "./models/agentic";
import { Group } from "./models/group";
import { BaseMessage, CustomMessage, MediaMessage, TextMessage } from "./models/message";
import { User } from "./models/user";
import { wireMessage } from "./testing/fakes";
import type { WireMessage } from "./wire";

const r: Resolver = {
  user: (uid) => new User(uid, uid.toUpperCase()),
  group: (guid) => new Group(guid, `Group ${guid}`),
  origin: "http://chat.test",
};
const msg = (over: Record<string, unknown>) => messageFromWire(wireMessage(5, over) as unknown as WireMessage, r);

describe("messageFromWire", () => {
  test("text messages carry every field, times in seconds", () => {
    const m = msg({
      text: "hi",
      metadata: { k: 1 },
      parentId: 3,
      replyCount: 2,
      moderationStatus: "approved",
      sentAt: "2026-01-01T00:00:01.5Z",
      editedAt: "2026-01-01T00:00:02Z",
      editedBy: "alice",
      reactions: [{ reaction: "👍", count: 2, reactedByMe: true }],
      deliveredAt: "2026-01-01T00:00:03Z",
      readAt: "2026-01-01T00:00:04Z",
    });
    expect(m).toBeInstanceOf(TextMessage);
    const t = m as TextMessage;
    expect(t.getText()).toBe("hi");
    expect(t.getId()).toBe(5);
    expect(t.getSender()?.getName()).toBe("ALICE");
    expect(t.getReceiverId()).toBe("me");
    expect(t.getMetadata()).toEqual({ k: 1 });
    expect([t.getParentMessageId(), t.getReplyCount(), t.getModerationStatus()]).toEqual([3, 2, "approved"]);
    const base = Date.parse("2026-01-01T00:00:00Z") / 1000;
    expect([t.getSentAt() - base, (t.getEditedAt() ?? 0) - base, (t.getDeliveredAt() ?? 0) - base, (t.getReadAt() ?? 0) - base]).toEqual([1.5, 2, 3, 4]);
    expect(t.getReactions().map((c) => [c.getReaction(), c.getCount(), c.getReactedByMe()])).toEqual([["👍", 2, true]]);
  });

  test("media messages get an absolute attachment URL and their caption", () => {
    const m = msg({ type: "image", text: "look", attachment: { url: "/chat/v1/media/abc", name: "Cat.PNG", mimeType: "image/png", size: 10 } });
    expect(m).toBeInstanceOf(MediaMessage);
    const a = (m as MediaMessage).getAttachment();
    expect([a?.getUrl(), a?.getName(), a?.getMimeType(), a?.getSize(), a?.getExtension()]).toEqual(["http://chat.test/chat/v1/media/abc", "Cat.PNG", "image/png", 10, "png"]);
    expect((m as MediaMessage).getCaption()).toBe("look");
  });

  test("custom messages", () => {
    const m = msg({ category: "custom", type: "location", data: { lat: 1 }, text: "a place", metadata: { subType: "pin" } });
    expect(m).toBeInstanceOf(CustomMessage);
    const c = m as CustomMessage;
    expect([c.getType(), c.getCustomData(), c.getConversationText(), c.getSubType()]).toEqual(["location", { lat: 1 }, "a place", "pin"]);
  });

  test("membership actions name who did what to whom where", () => {
    const m = msg({
      conversationId: "group_g1",
      receiver: "g1",
      receiverType: "group",
      category: "action",
      type: "groupMember",
      text: "alice kicked bob",
      data: { action: "kicked", by: "alice", on: "bob", guid: "g1", scope: "participant" },
    });
    expect(m).toBeInstanceOf(Action);
    const a = m as Action;
    expect([a.getAction(), a.getActionBy()?.getUid(), a.getActionOn()?.getUid(), a.getActionFor()?.getGuid(), a.getMessage(), a.getNewScope()]).toEqual([
      "kicked",
      "alice",
      "bob",
      "g1",
      "alice kicked bob",
      "participant",
    ]);
  });
});

describe("messageFromWire: agentic, unknown and clones", () => {
  test("agentic messages: assistant with tool calls awaiting actions, tool results, errors", () => {
    const assistant = msg({
      sender: "chef",
      category: "agentic",
      type: "assistant",
      text: "Here is a card",
      data: {
        runId: "run_1",
        agentId: "chef",
        messageId: "m1",
        toolCalls: [{ id: "c1", name: "show-recipe-card", arguments: '{"title":"Omelette"}', frontend: true, displayName: "Recipe card", executionText: "Showing…" }],
        awaitingActions: ["c1"],
        executor: "me",
      },
    }) as AgenticMessage;
    expect(assistant).toBeInstanceOf(AgenticMessage);
    expect([assistant.getText(), assistant.getRunId(), assistant.getAgentId(), assistant.getAgentMessageId(), assistant.getExecutor()]).toEqual([
      "Here is a card",
      "run_1",
      "chef",
      "m1",
      "me",
    ]);
    expect(assistant.getAwaitingActions()).toEqual(["c1"]);
    expect(assistant.getToolCalls()).toEqual([
      { id: "c1", name: "show-recipe-card", arguments: '{"title":"Omelette"}', frontend: true, displayName: "Recipe card", executionText: "Showing…" },
    ]);
    expect(assistant.getToolResult()).toBeUndefined();
    const result = msg({ category: "agentic", type: "tool_result", data: { runId: "run_1", toolCallId: "c1", name: "show-recipe-card", result: '{"shown":true}', frontend: true } }) as AgenticMessage;
    expect(result.getToolResult()).toEqual({ toolCallId: "c1", name: "show-recipe-card", result: '{"shown":true}', frontend: true });
    const failed = msg({ category: "agentic", type: "agent_error", text: "The agent is unreachable", data: { runId: "r", agentId: "chef", code: "AGENT_UNREACHABLE" } }) as AgenticMessage;
    expect([failed.getErrorCode(), failed.getText()]).toEqual(["AGENT_UNREACHABLE", "The agent is unreachable"]);
  });

  test("unknown categories stay BaseMessage; tombstones keep their class", () => {
    expect(msg({ category: "future", type: "thing" }).constructor).toBe(BaseMessage);
    const gone = msg({ text: undefined, deletedAt: "2026-01-01T00:00:09Z", deletedBy: "alice" });
    expect(gone).toBeInstanceOf(TextMessage);
    expect([gone.getDeletedBy(), (gone as TextMessage).getText()]).toEqual(["alice", ""]);
  });

  test("clone copies the class and the reactions, not the identity", () => {
    const m = msg({ reactions: [{ reaction: "x", count: 1 }] });
    const c = m.clone();
    expect(c).toBeInstanceOf(TextMessage);
    expect(c).not.toBe(m);
    c.setReactions([]);
    expect(m.getReactions()).toHaveLength(1);
  });
});

describe("conversations", () => {
  test("conversationIdOf orders the two uids as the service does", () => {
    expect(conversationIdOf("user", "bob", "alice")).toBe("user_alice_user_bob");
    expect(conversationIdOf("user", "alice", "bob")).toBe("user_alice_user_bob");
    expect(conversationIdOf("group", "alice", "g1")).toBe("group_g1");
  });

  test("conversationTarget names the party who is not the actor, even with _user_ in uids", () => {
    expect(conversationTarget("group_g_1", "x")).toEqual({ receiverId: "g_1", receiverType: "group" });
    expect(conversationTarget("user_alice_user_bob", "alice")).toEqual({ receiverId: "bob", receiverType: "user" });
    expect(conversationTarget("user_alice_user_bob", "bob")).toEqual({ receiverId: "alice", receiverType: "user" });
    const id = conversationIdOf("user", "a_user_b", "c_user_d");
    expect(conversationTarget(id, "a_user_b").receiverId).toBe("c_user_d");
    expect(conversationTarget(id, "c_user_d").receiverId).toBe("a_user_b");
  });

  test("receipts", () => {
    const rc = receiptFromWire({ conversationId: "user_alice_user_bob", uid: "bob", messageId: 9, at: "2026-01-01T00:00:00Z" }, "read", r);
    expect([rc.getMessageId(), rc.getSender().getUid(), rc.getReceiverId(), rc.getReceiptType(), rc.getReadAt(), rc.getDeliveredAt()]).toEqual([
      9,
      "bob",
      "alice",
      "read",
      Date.parse("2026-01-01T00:00:00Z") / 1000,
      undefined,
    ]);
  });

  test("groups", () => {
    const g = groupFromWire({ guid: "g", name: "G", type: "password", membersCount: 3, hasJoined: true, scope: "admin", tags: ["a"], owner: "o" });
    expect([g.getGuid(), g.getName(), g.getType(), g.getMembersCount(), g.getHasJoined(), g.getScope(), g.getTags(), g.getOwner()]).toEqual([
      "g",
      "G",
      "password",
      3,
      true,
      "admin",
      ["a"],
      "o",
    ]);
  });
});
