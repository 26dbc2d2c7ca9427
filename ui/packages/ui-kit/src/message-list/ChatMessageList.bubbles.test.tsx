// ChatMessageList bubbles over the fake Chat (jsdom): senders, receipts, text, templates, media, actions.
import { act, cleanup, screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import * as SDK from "@agentry/chat-sdk";
import { ChatMessageList } from "./ChatMessageList";
import { fake } from "./fakeChat";
import { bob, kitchen, mk, show, useFakeList } from "./testing/listHarness";

vi.mock("@agentry/chat-sdk", async (io) => (await import("./fakeChat")).mockChatSDK(io));

const { Chat } = SDK;
useFakeList();

describe("ChatMessageList: bubbles", () => {
  it("shows sender names and avatars for incoming group messages, once per run; hideAvatar hides avatars", async () => {
    fake().store = [
      mk.text(1, "bob", "kitchen", "one", { group: true }),
      mk.text(2, "bob", "kitchen", "two", { group: true }),
      mk.text(3, "alice", "kitchen", "mine", { group: true }),
    ];
    const a = await show(<ChatMessageList group={kitchen()} />);
    expect([...a.container.querySelectorAll(".chat-message-bubble__sender-name")].map((e) => e.textContent)).toEqual(["Bob"]);
    expect(a.container.querySelectorAll(".chat-avatar")).toHaveLength(1);
    a.unmount();
    const b = await show(<ChatMessageList group={kitchen()} hideAvatar />);
    expect(b.container.querySelectorAll(".chat-avatar")).toHaveLength(0);
  });

  it("shows an agent's name and avatar on its replies in an agent chat, once per run; not on the user's", async () => {
    fake().store = [mk.text(1, "alice", "bob", "question"), mk.text(2, "bob", "alice", "answer"), mk.text(3, "bob", "alice", "more")];
    const a = await show(<ChatMessageList user={bob()} isAgentChat loadLastAgentConversation />);
    expect([...a.container.querySelectorAll(".chat-message-bubble__sender-name")].map((e) => e.textContent)).toEqual(["Bob"]);
    expect(a.container.querySelectorAll(".chat-message-bubble-incoming .chat-avatar")).toHaveLength(1);
    expect(a.container.querySelectorAll(".chat-message-bubble-outgoing .chat-avatar")).toHaveLength(0);
    a.unmount();
    const b = await show(<ChatMessageList user={bob()} />);
    expect(b.container.querySelectorAll(".chat-message-bubble__sender-name")).toHaveLength(0);
  });

  it("shows receipts of outgoing messages from getDeliveredAt/getReadAt and live receipts; hideReceipts hides them", async () => {
    fake().store = [mk.text(1, "alice", "bob", "read", { deliveredAt: 1, readAt: 2 }), mk.text(2, "alice", "bob", "delivered", { deliveredAt: 3 }), mk.text(3, "alice", "bob", "sent"), mk.text(4, "bob", "alice", "theirs")];
    const a = await show(<ChatMessageList user={bob()} />);
    const names = () => [...a.container.querySelectorAll(".chat-receipt")].map((e) => e.getAttribute("aria-label"));
    expect(names()).toEqual(["Read", "Delivered", "Sent"]);
    act(() =>
      fake().emit("onMessagesRead", new Chat.MessageReceipt({ messageId: 3, sender: bob(), receiverId: "alice", receiverType: "user", receiptType: "read", conversationId: "user_alice_user_bob", timestamp: 9 })),
    );
    expect(names()).toEqual(["Read", "Read", "Read"]);
    a.unmount();
    const b = await show(<ChatMessageList user={bob()} hideReceipts />);
    expect(b.container.querySelectorAll(".chat-receipt")).toHaveLength(0);
  });

  it("formats text with the default formatters (links, line breaks) and never as HTML", async () => {
    fake().store = [mk.text(1, "bob", "alice", "see https://example.com/a.\n<b>bold</b>")];
    const { container } = await show(<ChatMessageList user={bob()} />);
    const p = container.querySelector(".chat-text-bubble__text")!;
    expect(p.querySelector("a")!.getAttribute("href")).toBe("https://example.com/a");
    expect(p.querySelector("a")!.getAttribute("rel")).toContain("noopener");
    expect(p.querySelectorAll("br")).toHaveLength(1);
    expect(p.querySelector("b")).toBeNull();
    expect(p.textContent).toBe("see https://example.com/a.<b>bold</b>");
  });

  it("highlights mentions (@uid and <@uid:uid>), not e-mail addresses", async () => {
    fake().store = [mk.text(1, "bob", "alice", "@chef and <@uid:carol>, mail bob@example.com")];
    const { container } = await show(<ChatMessageList user={bob()} />);
    const p = container.querySelector(".chat-text-bubble__text")!;
    const mentions = [...p.querySelectorAll(".chat-text-bubble__mention")].map((e) => [e.getAttribute("data-uid"), e.textContent]);
    expect(mentions).toEqual([["chef", "@chef"], ["carol", "@carol"]]);
    expect(p.textContent).toBe("@chef and @carol, mail bob@example.com");
  });

  it("applies textFormatters in order, replacing the defaults", async () => {
    fake().store = [mk.text(1, "bob", "alice", "hello https://x.org")];
    const upper = { id: "upper", format: (nodes: React.ReactNode[]) => nodes.map((n) => (typeof n === "string" ? n.toUpperCase() : n)) };
    const exclaim = { id: "exclaim", format: (nodes: React.ReactNode[]) => [...nodes, "!"] };
    const { container } = await show(<ChatMessageList user={bob()} textFormatters={[upper, exclaim]} />);
    const p = container.querySelector(".chat-text-bubble__text")!;
    expect(p.textContent).toBe("HELLO HTTPS://X.ORG!");
    expect(p.querySelector("a")).toBeNull();
  });
});

describe("ChatMessageList: templates, media, actions and tombstones", () => {
  it("templates replace the content, header, footer or the whole bubble by type and category", async () => {
    fake().store = [mk.custom(1, "bob", "alice", "poll", { question: "Lunch?" }), mk.text(2, "bob", "alice", "plain"), mk.text(3, "bob", "kitchen", "g", { group: true })];
    const templates = [
      { type: "poll", category: "custom", contentView: (m: SDK.BaseMessage) => <p>Poll: {String((m as SDK.CustomMessage).getCustomData()["question"])}</p>, footerView: () => <p>poll footer</p> },
      { type: "text", category: "message", headerView: () => <span>custom header</span> },
    ];
    const { container } = await show(<ChatMessageList user={bob()} templates={templates} />);
    expect(screen.getByText("Poll: Lunch?")).toBeTruthy();
    expect(screen.getByText("poll footer")).toBeTruthy();
    expect(container.querySelectorAll(".chat-message-bubble__header-view")).toHaveLength(1);
    cleanup();
    const whole = [{ type: "text", category: "message", bubbleView: (m: SDK.BaseMessage) => <div className="mine">{(m as SDK.TextMessage).getText()}!</div> }];
    const b = await show(<ChatMessageList user={bob()} templates={whole} />);
    expect(b.container.querySelector(".mine")!.textContent).toBe("plain!");
    expect(b.container.querySelector('[data-message-id="2"] .chat-message-bubble')).toBeNull();
    cleanup();
    // A footer for some messages only: the others keep their reactions row.
    const reacted = (id: number, text: string) => {
      const m = mk.text(id, "bob", "alice", text);
      m.setReactions([new Chat.ReactionCount("👍", 1, false)]);
      return m;
    };
    fake().store = [reacted(1, "with card"), reacted(2, "plain")];
    const some = [{ type: "text", category: "message", footerView: (m: SDK.BaseMessage) => ((m as SDK.TextMessage).getText() === "with card" ? <p>card</p> : null) }];
    const f = await show(<ChatMessageList user={bob()} templates={some} />);
    expect(f.container.querySelector('[data-message-id="1"] .chat-message-bubble__footer-view')!.textContent).toBe("card");
    expect(f.container.querySelector('[data-message-id="1"] .chat-reactions')).toBeNull();
    expect(f.container.querySelector('[data-message-id="2"] .chat-message-bubble__footer-view')).toBeNull();
    expect(f.container.querySelector('[data-message-id="2"] .chat-reactions')).not.toBeNull();
  });

  it("renders media through Chat.fetchMedia and revokes the object URL on unmount", async () => {
    fake().store = [mk.image(1, "bob", "alice", "http://svc/chat/v1/media/abc")];
    const { container, unmount } = await show(<ChatMessageList user={bob()} />);
    await waitFor(() => expect(container.querySelector("img.chat-image-bubble__image")?.getAttribute("src")).toBe("blob:fake"));
    expect(fake().mediaFetched).toContain("http://svc/chat/v1/media/abc");
    unmount();
    expect(URL.revokeObjectURL).toHaveBeenCalledWith("blob:fake");
  });

  it("shows group action messages unless hideGroupActionMessages", async () => {
    fake().store = [mk.action(1, "kitchen", "added", "bob", "carol"), mk.text(2, "bob", "kitchen", "welcome", { group: true })];
    const a = await show(<ChatMessageList group={kitchen()} />);
    expect(screen.getByText("Bob added Carol")).toBeTruthy();
    a.unmount();
    await show(<ChatMessageList group={kitchen()} hideGroupActionMessages />);
    expect(screen.queryByText("Bob added Carol")).toBeNull();
  });

  it("shows tombstones and the moderation view (unless hideModerationView)", async () => {
    const deleted = mk.text(1, "bob", "alice", "");
    deleted.setDeletedAt(1_700_000_100);
    const pending = mk.text(2, "alice", "bob", "held back");
    pending.setModerationStatus("pending");
    fake().store = [deleted, pending];
    const a = await show(<ChatMessageList user={bob()} />);
    expect(a.container.querySelector(".chat-message-bubble .chat-delete-bubble")!.textContent).toBe("This message was deleted");
    expect(screen.getByText(/Awaiting moderation/)).toBeTruthy();
    a.unmount();
    await show(<ChatMessageList user={bob()} hideModerationView />);
    expect(screen.queryByText(/Awaiting moderation/)).toBeNull();
  });
});
