// ChatMessageList live over the fake Chat (jsdom): listeners, the composer's events, threads, sound.
import { act, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import * as SDK from "@agentry/chat-sdk";
import { ChatMessageEvents, MessageStatus } from "../events";
import { ChatMessageList } from "./ChatMessageList";
import { fake } from "./fakeChat";
import { bob, kitchen, mk, show, texts, useFakeList } from "./testing/listHarness";

vi.mock("@agentry/chat-sdk", async (io) => (await import("./fakeChat")).mockChatSDK(io));

const { Chat } = SDK;
useFakeList();

describe("ChatMessageList: live", () => {
  const conv = "user_alice_user_bob";

  it("appends new messages of this conversation only, once, from listeners and the composer", async () => {
    fake().store = [mk.text(1, "bob", "alice", "first")];
    const { container } = await show(<ChatMessageList user={bob()} />);
    act(() => {
      fake().emit("onTextMessageReceived", mk.text(2, "bob", "alice", "live"));
      fake().emit("onTextMessageReceived", mk.text(3, "carol", "alice", "not here"));
      fake().emit("onTextMessageReceived", mk.text(2, "bob", "alice", "live"));
    });
    const sent = mk.text(4, "alice", "bob", "from the composer");
    act(() => ChatMessageEvents.ccMessageSent.next({ message: sent, status: MessageStatus.success }));
    act(() => fake().emit("onTextMessageReceived", sent.clone()));
    expect(texts(container)).toEqual(["first", "live", "from the composer"]);
    // Incoming messages count as delivered: the newest of the page, then each live one.
    expect(fake().markedDelivered).toEqual([1, 2]);
  });

  it("keeps a message that arrives while the page loads and is not in it (no silent gap)", async () => {
    fake().store = [mk.text(1, "bob", "alice", "first")];
    let release = () => {};
    fake().gate = new Promise<void>((r) => (release = r));
    const { container } = render(<ChatMessageList user={bob()} />);
    await waitFor(() => expect(fake().pages.length).toBe(1));
    // Stored after the page was read (the fake reads the store after the gate: keep it out).
    act(() => fake().emit("onTextMessageReceived", mk.text(2, "bob", "alice", "arrived during the load")));
    await act(async () => release());
    await waitFor(() => expect(texts(container)).toEqual(["first", "arrived during the load"]));
  });

  it("merges a page and live events that overlap (reducer integration)", async () => {
    fake().store = Array.from({ length: 40 }, (_, i) => mk.text(i + 1, "bob", "alice", `m${i + 1}`));
    let open!: () => void;
    fake().gate = new Promise((r) => (open = r));
    const { container } = render(<ChatMessageList user={bob()} messagesRequestBuilder={new Chat.MessagesRequestBuilder().setLimit(30)} />);
    await waitFor(() => expect(fake().pages).toHaveLength(1));
    await act(async () => open());
    await waitFor(() => expect(texts(container).length).toBeGreaterThan(0));
    act(() => fake().emit("onTextMessageReceived", fake().store[39]!.clone() as SDK.TextMessage)); // already on the page
    act(() => fake().emit("onTextMessageReceived", mk.text(41, "bob", "alice", "m41")));
    await waitFor(() => expect(texts(container)).toHaveLength(41));
    expect(texts(container)).toEqual(Array.from({ length: 41 }, (_, i) => `m${i + 1}`));
  });

  it("applies edits (keeping reactions), deletes as tombstones, reactions and typing", async () => {
    const m = mk.text(1, "bob", "alice", "original");
    m.setReactions([new Chat.ReactionCount("👍", 2, false)]);
    fake().store = [m];
    const { container } = await show(<ChatMessageList user={bob()} />);
    const edited = mk.text(1, "bob", "alice", "edited text");
    edited.setEditedAt(1_800_000_000);
    act(() => fake().emit("onMessageEdited", edited));
    expect(texts(container)).toEqual(["edited text"]);
    expect(container.querySelector(".chat-message-bubble__edited")).toBeTruthy();

    const r = new Chat.Reaction(1, "🎉", "bob", 5, bob());
    act(() => fake().emit("onMessageReactionAdded", new Chat.ReactionEvent(r, conv, "alice", "user")));
    // The stored copy carries the reactions the Reactions feature renders.
    const typing = new Chat.TypingIndicator("alice", "user");
    typing.setSender(bob());
    typing.setConversationId(conv);
    act(() => fake().emit("onTypingStarted", typing));
    expect(container.querySelector(".chat-message-list__typing")!.textContent).toBe("Bob is typing…");
    const carol = new Chat.TypingIndicator("alice", "user");
    carol.setSender(new Chat.User("carol", "Carol"));
    carol.setConversationId("user_alice_user_carol");
    act(() => fake().emit("onTypingStarted", carol)); // another conversation
    expect(container.querySelector(".chat-message-list__typing")!.textContent).toBe("Bob is typing…");
    act(() => fake().emit("onTypingEnded", typing));
    expect(container.querySelector(".chat-message-list__typing")!.textContent).toBe("");

    const tomb = mk.text(1, "bob", "alice", "");
    tomb.setDeletedAt(1_800_000_100);
    act(() => fake().emit("onMessageDeleted", tomb));
    expect(container.querySelector(".chat-delete-bubble")).toBeTruthy();
    expect(texts(container)).toEqual([]);
  });
});

describe("ChatMessageList: live threads, group actions and sound", () => {
  it("counts live thread replies on their root in the main list", async () => {
    fake().store = [mk.text(1, "bob", "kitchen", "root", { group: true })];
    await show(<ChatMessageList group={kitchen()} />);
    act(() => fake().emit("onTextMessageReceived", mk.text(2, "bob", "kitchen", "reply", { group: true, parentId: 1 })));
    act(() => fake().emit("onTextMessageReceived", mk.text(2, "bob", "kitchen", "reply", { group: true, parentId: 1 })));
    expect(screen.getByRole("button", { name: "1 reply" })).toBeTruthy();
    expect(screen.queryByText("reply")).toBeNull();
  });

  it("a deleted thread reply no longer counts on its root (once, whatever repeats)", async () => {
    fake().store = [mk.text(1, "bob", "kitchen", "root", { group: true, replyCount: 2 })];
    const { container } = await show(<ChatMessageList group={kitchen()} />);
    const tomb = mk.text(2, "bob", "kitchen", "", { group: true, parentId: 1 });
    tomb.setDeletedAt(1_800_000_100);
    act(() => fake().emit("onMessageDeleted", tomb));
    act(() => fake().emit("onMessageDeleted", tomb));
    expect(screen.getByRole("button", { name: "1 reply" })).toBeTruthy();
    expect(container.querySelector(".chat-delete-bubble")).toBeNull();
    const last = mk.text(3, "bob", "kitchen", "", { group: true, parentId: 1 });
    last.setDeletedAt(1_800_000_200);
    act(() => fake().emit("onMessageDeleted", last));
    expect(screen.queryByRole("button", { name: /repl/ })).toBeNull();
    expect(texts(container)).toEqual(["root"]);
  });

  it("appends group actions from the group listener", async () => {
    await show(<ChatMessageList group={kitchen()} />);
    const a = mk.action(7, "kitchen", "joined", "dave", "dave");
    act(() => [...fake().group.values()].forEach((l) => l.onGroupMemberJoined?.(a, new Chat.User("dave"), kitchen())));
    expect(screen.getByText("Dave joined")).toBeTruthy();
  });

  it("plays a sound for incoming messages only when enabled", async () => {
    const play = vi.fn(() => Promise.reject(new Error("autoplay blocked")));
    const Audio = vi.fn(function (this: { play: typeof play }) {
      this.play = play;
    });
    vi.stubGlobal("Audio", Audio);
    try {
      const a = await show(<ChatMessageList user={bob()} />);
      act(() => fake().emit("onTextMessageReceived", mk.text(1, "bob", "alice", "quiet")));
      expect(play).not.toHaveBeenCalled();
      a.unmount();
      await show(<ChatMessageList user={bob()} disableSoundForMessages={false} customSoundForMessages="/ding.mp3" />);
      act(() => fake().emit("onTextMessageReceived", mk.text(2, "bob", "alice", "loud")));
      act(() => fake().emit("onTextMessageReceived", mk.text(3, "alice", "bob", "mine")));
      expect(play).toHaveBeenCalledTimes(1);
      expect(Audio).toHaveBeenCalledWith("/ding.mp3");
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
