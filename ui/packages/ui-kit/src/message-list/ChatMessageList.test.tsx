import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { StrictMode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as SDK from "@agentry/chat-sdk";
import { ChatMessageEvents, MessageStatus } from "../events";
import { MessageListAlignment } from "../types";
import { ChatMessageList } from "./ChatMessageList";
import { fake, makeMessages } from "./fakeChat";

vi.mock("@agentry/chat-sdk", async (importOriginal) => {
  const real = await importOriginal<typeof import("@agentry/chat-sdk")>();
  const { installFakeChat } = await import("./fakeChat");
  return { ...real, Chat: installFakeChat(real) };
});

const { Chat } = SDK;
let mk: ReturnType<typeof makeMessages>;
const bob = () => new Chat.User("bob", "Bob");
const kitchen = () => new Chat.Group("kitchen", "Kitchen", "public");
const bubbles = (container: HTMLElement) => [...container.querySelectorAll(".chat-message-bubble")];
const texts = (container: HTMLElement) => [...container.querySelectorAll(".chat-text-bubble__text")].map((e) => e.textContent);

beforeEach(() => {
  fake().reset();
  fake().me = new Chat.User("alice", "Alice");
  mk = makeMessages(fake().real);
  URL.createObjectURL = vi.fn(() => "blob:fake");
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

/** Renders and waits until the first page is shown (or a state view replaced the loader). */
async function show(ui: React.ReactElement) {
  const r = render(ui);
  await waitFor(() => expect(r.container.querySelector(".chat-message-list__shimmer")).toBeNull());
  return r;
}

describe("ChatMessageList: loading", () => {
  it("loads the user conversation, overriding the builder's UID, and tells outgoing from incoming", async () => {
    fake().store = [mk.text(1, "bob", "alice", "Hi Alice"), mk.text(2, "alice", "bob", "Hi Bob"), mk.text(3, "carol", "alice", "other conversation")];
    const builder = new Chat.MessagesRequestBuilder().setUID("somebody-else").setLimit(20);
    const { container } = await show(<ChatMessageList user={bob()} messagesRequestBuilder={builder} />);
    expect(texts(container)).toEqual(["Hi Alice", "Hi Bob"]);
    expect(fake().pages[0]).toMatchObject({ kind: "previous", uid: "bob", parentId: 0 });
    expect(builder.uid).toBe("somebody-else"); // the prop is not mutated
    const [incoming, outgoing] = bubbles(container);
    expect(incoming!.classList.contains("chat-message-bubble-incoming")).toBe(true);
    expect(outgoing!.classList.contains("chat-message-bubble-outgoing")).toBe(true);
    const log = screen.getByRole("log", { name: "Messages with Bob" });
    expect(log.getAttribute("aria-live")).toBe("polite");
    expect(within(log).getAllByRole("article").map((a) => a.getAttribute("aria-label")?.split(",")[0])).toEqual(["Bob", "You"]);
  });

  it("keeps thread replies out of the main list and shows only the thread with parentMessageId", async () => {
    fake().store = [
      mk.text(1, "bob", "kitchen", "root", { group: true, replyCount: 2 }),
      mk.text(2, "alice", "kitchen", "reply 1", { group: true, parentId: 1 }),
      mk.text(3, "bob", "kitchen", "reply 2", { group: true, parentId: 1 }),
    ];
    const onThreadRepliesClick = vi.fn();
    const main = await show(<ChatMessageList group={kitchen()} onThreadRepliesClick={onThreadRepliesClick} />);
    expect(texts(main.container)).toEqual(["root"]);
    fireEvent.click(screen.getByRole("button", { name: "2 replies" }));
    expect(onThreadRepliesClick.mock.calls[0]![0].getId()).toBe(1);
    main.unmount();

    const thread = await show(<ChatMessageList group={kitchen()} parentMessageId={1} />);
    expect(texts(thread.container)).toEqual(["reply 1", "reply 2"]);
    expect(fake().pages.at(-1)).toMatchObject({ guid: "kitchen", parentId: 1 });
    expect(screen.getByRole("log", { name: "Replies in the thread" })).toBeTruthy();
  });

  it("pages older until there is nothing more (a page that does not fill the view)", async () => {
    fake().store = Array.from({ length: 45 }, (_, i) => mk.text(i + 1, i % 2 ? "alice" : "bob", i % 2 ? "bob" : "alice", `m${i + 1}`));
    const { container } = await show(<ChatMessageList user={bob()} messagesRequestBuilder={new Chat.MessagesRequestBuilder().setLimit(20)} />);
    await waitFor(() => expect(texts(container)).toHaveLength(45));
    expect(texts(container)[0]).toBe("m1");
    expect(fake().pages.map((p) => p.kind)).toEqual(["previous", "previous", "previous"]);
  });

  it("goToMessageId loads around the message and highlights it", async () => {
    fake().store = Array.from({ length: 80 }, (_, i) => mk.text(i + 1, "bob", "alice", `m${i + 1}`));
    const { container } = await show(<ChatMessageList user={bob()} goToMessageId="40" />);
    expect(fake().pages[0]).toMatchObject({ kind: "around", anchor: 40 });
    await waitFor(() => expect(container.querySelector(".chat-message-list__message--highlighted")?.getAttribute("data-message-id")).toBe("40"));
  });

  it("startFromUnreadMessages loads around the first unread message and marks where it starts", async () => {
    fake().store = Array.from({ length: 60 }, (_, i) => mk.text(i + 1, i === 35 ? "alice" : "bob", i === 35 ? "bob" : "alice", `m${i + 1}`));
    fake().conversations = [
      new Chat.Conversation({ conversationId: "user_alice_user_bob", conversationType: "user", conversationWith: bob(), unreadMessageCount: 25, lastReadMessageId: 35 }),
    ];
    const { container } = await show(<ChatMessageList user={bob()} startFromUnreadMessages />);
    expect(fake().pages[0]).toMatchObject({ kind: "around", anchor: 36 });
    const divider = screen.getByRole("separator", { name: "New messages" });
    // m36 is mine: the divider goes before the first unread message from Bob, m37.
    expect(divider.nextElementSibling?.getAttribute("data-message-id")).toBe("37");
    expect(container.querySelectorAll("[data-unread-divider]")).toHaveLength(1);
  });

  it("agent chat without loadLastAgentConversation starts empty; with it, loads the history", async () => {
    fake().store = [mk.text(1, "chef", "alice", "earlier answer")];
    const chef = new Chat.User("chef", "Chef");
    const a = await show(<ChatMessageList user={chef} isAgentChat />);
    expect(texts(a.container)).toEqual([]);
    expect(fake().pages).toEqual([]);
    a.unmount();
    const b = await show(<ChatMessageList user={chef} isAgentChat loadLastAgentConversation />);
    expect(texts(b.container)).toEqual(["earlier answer"]);
  });
});

describe("ChatMessageList: views", () => {
  it("shows the loading view, then the empty view (default and custom)", async () => {
    let open!: () => void;
    fake().gate = new Promise((r) => (open = r));
    const r = render(<ChatMessageList user={bob()} loadingView={<p>Loading…</p>} emptyView={<p>Say hi</p>} />);
    expect(await screen.findByText("Loading…")).toBeTruthy();
    await act(async () => open());
    expect(await screen.findByText("Say hi")).toBeTruthy();
    r.unmount();
    fake().gate = undefined;
    await show(<ChatMessageList user={bob()} />);
    expect(screen.getByText("No messages yet")).toBeTruthy();
  });

  it("shows the error view with a retry, calls onError with a ChatException, and recovers", async () => {
    fake().failures = [new Chat.ChatException("ERR_NETWORK", "down")];
    fake().store = [mk.text(1, "bob", "alice", "back again")];
    const onError = vi.fn();
    const { container } = await show(<ChatMessageList user={bob()} onError={onError} />);
    const view = container.querySelector(".chat-message-list__error-state-view")!;
    expect(view.getAttribute("role")).toBe("alert");
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![0]).toBeInstanceOf(Chat.ChatException);
    expect(onError.mock.calls[0]![0].code).toBe("ERR_NETWORK");
    fireEvent.click(within(view as HTMLElement).getByRole("button", { name: "Try again" }));
    expect(await screen.findByText("back again")).toBeTruthy();
  });

  it("hideError hides the default and custom error views; onError null is not called", async () => {
    fake().failures = [new Error("boom"), new Error("boom")];
    const a = await show(<ChatMessageList user={bob()} hideError errorView={<p>custom error</p>} onError={null} />);
    expect(a.container.querySelector(".chat-message-list__error-state-view")).toBeNull();
    expect(screen.queryByText("custom error")).toBeNull();
    a.unmount();
    await show(<ChatMessageList user={bob()} errorView={<p>custom error</p>} />);
    expect(screen.getByText("custom error")).toBeTruthy();
  });

  it("renders headerView and footerView around the list", async () => {
    fake().store = [mk.text(1, "bob", "alice", "hello")];
    const { container } = await show(<ChatMessageList user={bob()} headerView={<h2>Bob</h2>} footerView={<p>footer</p>} />);
    const root = container.querySelector(".chat-message-list")!;
    expect(root.firstElementChild!.textContent).toBe("Bob");
    expect(root.querySelector(".chat-message-list__footer")!.textContent).toBe("footer");
  });

  it("messageAlignment left and showScrollbar set the root's modifiers", async () => {
    fake().store = [mk.text(1, "alice", "bob", "mine")];
    const { container } = await show(<ChatMessageList user={bob()} messageAlignment={MessageListAlignment.left} showScrollbar />);
    const root = container.querySelector(".chat-message-list")!;
    expect(root.classList.contains("chat-message-list--align-left")).toBe(true);
    expect(root.classList.contains("chat-message-list--scrollbar")).toBe(true);
    // Left alignment names every sender, the reader included.
    expect(container.querySelector(".chat-message-bubble__sender-name")?.textContent).toBe("Alice");
  });
});

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

describe("ChatMessageList: dates", () => {
  const at = (y: number, mo: number, d: number, h = 10) => new Date(y, mo - 1, d, h, 5).getTime() / 1000;

  it("separates days with the calendar formats and formats the sent-at time", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date(2024, 4, 15, 12) }); // Wednesday 15 May 2024
    fake().store = [
      mk.text(1, "bob", "alice", "old", { sentAt: at(2024, 4, 1) }),
      mk.text(2, "bob", "alice", "last week", { sentAt: at(2024, 5, 12) }),
      mk.text(3, "bob", "alice", "yesterday", { sentAt: at(2024, 5, 14) }),
      mk.text(4, "bob", "alice", "today", { sentAt: at(2024, 5, 15, 9) }),
      mk.text(5, "bob", "alice", "today again", { sentAt: at(2024, 5, 15, 11) }),
    ];
    const a = await show(<ChatMessageList user={bob()} />);
    const seps = () => screen.getAllByRole("separator").map((s) => s.getAttribute("aria-label"));
    expect(seps()).toEqual(["01 Apr, 2024", "Sunday", "Yesterday", "Today"]);
    expect([...a.container.querySelectorAll(".chat-message-bubble__status-info-view .chat-date")].map((e) => e.textContent)).toEqual(["10:05 AM", "10:05 AM", "10:05 AM", "09:05 AM", "11:05 AM"]);
    a.unmount();
    const b = await show(
      <ChatMessageList user={bob()} separatorDateTimeFormat={{ today: "[Now-ish]", otherDays: "D/M/YY" }} messageSentAtDateTimeFormat={{ today: "HH:mm", yesterday: "[y] HH:mm" }} />,
    );
    expect(seps()).toEqual(["1/4/24", "Sunday", "Yesterday", "Now-ish"]);
    expect([...b.container.querySelectorAll(".chat-date")].map((e) => e.textContent).slice(2)).toEqual(["y 10:05", "09:05", "11:05"]);
    b.unmount();
    await show(<ChatMessageList user={bob()} hideDateSeparator />);
    expect(screen.queryAllByRole("separator")).toHaveLength(0);
  });
});

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

describe("ChatMessageList: cleanup", () => {
  const observers = () => [ChatMessageEvents.ccMessageSent, ChatMessageEvents.ccMessageEdited, ChatMessageEvents.ccMessageDeleted].map((s) => s.observers);

  it("removes every listener and subscription on unmount", async () => {
    const before = observers();
    const { unmount } = await show(<ChatMessageList user={bob()} />);
    expect(fake().message.size).toBe(1);
    expect(fake().group.size).toBe(1);
    expect(fake().connection.size).toBe(1);
    expect(observers()).toEqual(before.map((n) => n + 1));
    unmount();
    expect(fake().message.size + fake().group.size + fake().connection.size).toBe(0);
    expect(observers()).toEqual(before);
  });

  it("leaves one listener per list in strict mode, and two lists do not share one", async () => {
    const before = observers();
    const { unmount } = await show(
      <StrictMode>
        <ChatMessageList user={bob()} />
        <ChatMessageList group={kitchen()} />
      </StrictMode>,
    );
    expect(fake().message.size).toBe(2);
    expect(observers()).toEqual(before.map((n) => n + 2));
    unmount();
    expect(fake().message.size).toBe(0);
    expect(observers()).toEqual(before);
  });
});

describe("ChatMessageList: before the socket is ready", () => {
  it("loads again the first time the socket is ready, and not on later reconnects", async () => {
    await show(<ChatMessageList user={bob()} />);
    const loads = () => fake().pages.filter((p) => p.kind === "previous").length;
    const first = loads();
    // The fake session's socket was not ready at mount: the first ready reloads what a change in
    // between may have made stale; a reconnect after that resumes (replay) and loads nothing.
    await act(async () => fake().connection.forEach((l) => l.onConnected?.()));
    await waitFor(() => expect(loads()).toBe(first + 1));
    await act(async () => fake().connection.forEach((l) => l.onConnected?.()));
    await new Promise((r) => setTimeout(r, 50));
    expect(loads()).toBe(first + 1);
  });
});
