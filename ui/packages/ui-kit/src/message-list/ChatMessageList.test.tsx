// ChatMessageList over the fake Chat (jsdom): loading, the state views, dates, cleanup. Bubbles:
// ChatMessageList.bubbles.test.tsx; live events: ChatMessageList.live.test.tsx.
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { StrictMode } from "react";
import { describe, expect, it, vi } from "vitest";
import * as SDK from "@agentry/chat-sdk";
import { ChatMessageEvents } from "../events";
import { MessageListAlignment } from "../types";
import { ChatMessageList } from "./ChatMessageList";
import { fake } from "./fakeChat";
import { bob, bubbles, kitchen, mk, show, texts, useFakeList } from "./testing/listHarness";

vi.mock("@agentry/chat-sdk", async (io) => (await import("./fakeChat")).mockChatSDK(io));

const { Chat } = SDK;
useFakeList();

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
