import { Chat } from "@agentry/chat-sdk";
import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChatMessageEvents, ChatUIEvents } from "../../events";
import { resetAIEnabledCache } from "../ai/useAIEnabled";
import type { ChatMessageListProps } from "../props";
import { bob, me, text } from "../testing/fixtures";
import { MessageOptions } from "./MessageOptions";

vi.mock("@agentry/chat-sdk", async (io) => (await import("../fakeChat")).spyableChatSDK(io));

const onThreadRepliesClick = vi.fn();

function setup(message: Chat.BaseMessage, props: ChatMessageListProps = {}) {
  const onTranslated = vi.fn();
  const onEdit = vi.fn();
  const onError = vi.fn();
  const r = render(
    <div className="chat">
      <div className="chat-message-list">
        <MessageOptions message={message} isOutgoing={message.getSender()?.getUid() === me.getUid()} props={{ onThreadRepliesClick, ...props }}
          loggedInUser={me} onTranslated={onTranslated} onEdit={onEdit} onError={onError} />
      </div>
    </div>,
  );
  return { ...r, onTranslated, onEdit, onError, user: userEvent.setup() };
}

const quickNames = () => within(screen.getByRole("group", { name: "Message options" })).getAllByRole("button").filter((b) => !b.hasAttribute("aria-haspopup") || b.dataset["option"]).map((b) => b.getAttribute("aria-label"));

beforeEach(() => {
  resetAIEnabledCache();
  vi.spyOn(Chat, "isAIEnabled").mockResolvedValue(false);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe("MessageOptions", () => {
  it("shows the first quickOptionsCount (default 3) as buttons and the rest in the overflow menu", async () => {
    const { user } = setup(text("Hello", { sender: me }));
    expect(quickNames()).toEqual(["React", "Reply", "Reply in thread"]);
    const more = screen.getByRole("button", { name: "More options" });
    expect(more.getAttribute("aria-haspopup")).toBe("menu");
    expect(more.getAttribute("aria-expanded")).toBe("false");
    await user.click(more);
    const menu = screen.getByRole("menu", { name: "Message options" });
    expect(within(menu).getAllByRole("menuitem").map((i) => i.textContent)).toEqual(["Copy", "Edit", "Message info", "Delete"]);
    expect(more.getAttribute("aria-expanded")).toBe("true");
    expect(more.getAttribute("aria-controls")).toBe(menu.id);
  });

  it("quickOptionsCount moves options out of the overflow; no menu when nothing is left", () => {
    setup(text("Hello", { sender: bob }), { quickOptionsCount: 10, hideTranslateMessageOption: true });
    expect(quickNames()).toEqual(["React", "Reply", "Reply in thread", "Copy", "Report"]);
    expect(screen.queryByRole("button", { name: "More options" })).toBeNull();
  });

  it("the overflow menu works from the keyboard: arrows, Home, End, Escape returns focus, Enter chooses", async () => {
    const { user, onEdit } = setup(text("Hello", { sender: me }));
    const more = screen.getByRole("button", { name: "More options" });
    more.focus();
    await user.keyboard("{Enter}");
    const items = screen.getAllByRole("menuitem");
    expect(document.activeElement).toBe(items[0]);
    await user.keyboard("{ArrowDown}");
    expect(document.activeElement).toBe(items[1]);
    await user.keyboard("{End}");
    expect(document.activeElement).toBe(items[3]);
    await user.keyboard("{ArrowDown}");
    expect(document.activeElement).toBe(items[0]);
    await user.keyboard("{ArrowUp}{Home}");
    expect(document.activeElement).toBe(items[0]);
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("menu")).toBeNull();
    expect(document.activeElement).toBe(more);
    await user.keyboard("{ArrowDown}");
    expect(screen.getByRole("menu")).toBeTruthy();
    await user.keyboard("{ArrowDown}{Enter}");
    expect(onEdit).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole("menu")).toBeNull();
    expect(document.activeElement).toBe(more);
  });
});

describe("MessageOptions: reply, delete and report", () => {
  it("reply raises ccReplyToMessage; reply in thread calls onThreadRepliesClick", async () => {
    const m = text("Hello", { sender: bob });
    const { user } = setup(m);
    const seen: unknown[] = [];
    const sub = ChatMessageEvents.ccReplyToMessage.subscribe((e) => seen.push(e.message));
    await user.click(screen.getByRole("button", { name: "Reply" }));
    sub.unsubscribe();
    expect(seen).toEqual([m]);
    await user.click(screen.getByRole("button", { name: "Reply in thread" }));
    expect(onThreadRepliesClick).toHaveBeenCalledWith(m);
  });

  it("delete asks first (a modal dialog with trapped focus), then deletes and raises ccMessageDeleted", async () => {
    const m = text("Bye", { sender: me });
    const tomb = text("", { sender: me, deleted: true });
    const del = vi.spyOn(Chat, "deleteMessage").mockResolvedValue(tomb);
    const { user } = setup(m, { quickOptionsCount: 0 });
    const more = screen.getByRole("button", { name: "More options" });
    await user.click(more);
    await user.click(screen.getByRole("menuitem", { name: "Delete" }));
    const dialog = screen.getByRole("dialog", { name: "Delete message" });
    expect(dialog.getAttribute("aria-modal")).toBe("true");
    expect(document.activeElement).toBe(within(dialog).getByRole("button", { name: "Cancel" }));
    // Tab cycles inside: Cancel → Delete → Close → Cancel.
    await user.tab();
    await user.tab();
    expect(document.activeElement).toBe(within(dialog).getByRole("button", { name: "Close" }));
    await user.tab();
    expect(document.activeElement).toBe(within(dialog).getByRole("button", { name: "Cancel" }));
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.activeElement).toBe(more);
    expect(del).not.toHaveBeenCalled();

    const deleted: unknown[] = [];
    const sub = ChatMessageEvents.ccMessageDeleted.subscribe((x) => deleted.push(x));
    await user.click(more);
    await user.click(screen.getByRole("menuitem", { name: "Delete" }));
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    sub.unsubscribe();
    expect(del).toHaveBeenCalledWith(m.getId());
    expect(deleted).toEqual([tomb]);
  });

  it("report: reason and remark, or reason only with hideFlagRemarkField", async () => {
    const flag = vi.spyOn(Chat, "flagMessage").mockResolvedValue();
    const m = text("Buy now", { sender: bob });
    const { user, unmount } = setup(m, { quickOptionsCount: 0, hideTranslateMessageOption: true });
    await user.click(screen.getByRole("button", { name: "More options" }));
    await user.click(screen.getByRole("menuitem", { name: "Report" }));
    const dialog = screen.getByRole("dialog", { name: "Report message" });
    await user.selectOptions(within(dialog).getByLabelText("Reason"), "spam");
    await user.type(within(dialog).getByLabelText("Remark (optional)"), "ads again");
    await user.click(within(dialog).getByRole("button", { name: "Report" }));
    await waitFor(() => expect(flag).toHaveBeenCalledWith(m.getId(), { reason: "spam", remark: "ads again" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    unmount();

    const s = setup(m, { quickOptionsCount: 0, hideFlagRemarkField: true });
    await s.user.click(screen.getByRole("button", { name: "More options" }));
    await s.user.click(screen.getByRole("menuitem", { name: "Report" }));
    const d2 = screen.getByRole("dialog", { name: "Report message" });
    expect(within(d2).queryByLabelText("Remark (optional)")).toBeNull();
    await s.user.selectOptions(within(d2).getByLabelText("Reason"), "harassment");
    await s.user.click(within(d2).getByRole("button", { name: "Report" }));
    await waitFor(() => expect(flag).toHaveBeenLastCalledWith(m.getId(), { reason: "harassment" }));
  });
});

describe("MessageOptions: translate, info and reactions", () => {
  it("translate (AI on) asks for the browser's language and hands the text to onTranslated", async () => {
    vi.spyOn(Chat, "isAIEnabled").mockResolvedValue(true);
    vi.spyOn(navigator, "language", "get").mockReturnValue("de-DE");
    const tr = vi.spyOn(Chat, "translateMessage").mockResolvedValue("Hallo?");
    const m = text("Hello?", { sender: bob });
    const { user, onTranslated } = setup(m, { quickOptionsCount: 0 });
    await user.click(screen.getByRole("button", { name: "More options" }));
    await user.click(await screen.findByRole("menuitem", { name: "Translate" }));
    await waitFor(() => expect(onTranslated).toHaveBeenCalledWith(m.getId(), "Hallo?"));
    expect(tr).toHaveBeenCalledWith(m.getId(), "German (Germany)");
  });

  it("message info lists receipts with messageInfoDateTimeFormat", async () => {
    const at = new Date(2024, 0, 15, 9, 30).getTime() / 1000;
    const receipt = new Chat.MessageReceipt({ messageId: 10, sender: bob, receiverId: "bob", receiverType: "user", receiptType: "read", conversationId: "c", deliveredAt: at, readAt: at + 60 });
    vi.spyOn(Chat, "getMessageReceipts").mockResolvedValue([receipt]);
    const { user } = setup(text("Hello", { sender: me }), { quickOptionsCount: 0, messageInfoDateTimeFormat: { otherDays: "DD/MM/YYYY HH:mm" } });
    await user.click(screen.getByRole("button", { name: "More options" }));
    await user.click(screen.getByRole("menuitem", { name: "Message info" }));
    const list = await screen.findByRole("list", { name: "Receipts" });
    expect(list.textContent).toContain("Bob");
    expect(list.textContent).toContain("Delivered 15/01/2024 09:30");
    expect(list.textContent).toContain("Read 15/01/2024 09:31");
  });

  it("react opens an emoji picker (a menu); picking adds the reaction", async () => {
    const add = vi.spyOn(Chat, "addReaction").mockResolvedValue(text("x"));
    const m = text("Hello", { sender: bob });
    const { user } = setup(m);
    const react = screen.getByRole("button", { name: "React" });
    await user.click(react);
    const picker = screen.getByRole("menu", { name: "Add a reaction" });
    expect(document.activeElement).toBe(within(picker).getAllByRole("menuitem")[0]);
    await user.keyboard("{ArrowRight}{Enter}");
    expect(add).toHaveBeenCalledWith(m.getId(), "❤️");
    expect(screen.queryByRole("menu")).toBeNull();
    expect(document.activeElement).toBe(react);
  });

  it("More reactions opens the full picker: search, arrows, Enter reacts; Escape goes back to the button", async () => {
    const add = vi.spyOn(Chat, "addReaction").mockResolvedValue(text("x"));
    const m = text("Hello", { sender: bob });
    const { user } = setup(m);
    const react = screen.getByRole("button", { name: "React" });
    await user.click(react);
    await user.click(within(screen.getByRole("menu", { name: "Add a reaction" })).getByRole("menuitem", { name: "More reactions" }));
    const grid = screen.getByRole("dialog", { name: "Pick a reaction" });
    expect(document.activeElement).toBe(within(grid).getByRole("searchbox", { name: "Search emoji" }));
    await user.keyboard("rocket");
    expect(within(grid).getAllByRole("button").map((b) => b.getAttribute("aria-label"))).toEqual(["React with rocket"]);
    await user.keyboard("{ArrowDown}{Enter}");
    expect(add).toHaveBeenCalledWith(m.getId(), "🚀");
    expect(screen.queryByRole("dialog")).toBeNull();
    await user.click(react);
    await user.click(within(screen.getByRole("menu", { name: "Add a reaction" })).getByRole("menuitem", { name: "More reactions" }));
    await user.keyboard("no such emoji");
    expect(screen.getByText("No emoji named “no such emoji”")).toBeTruthy();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.activeElement).toBe(react);
  });
});

describe("MessageOptions: trace, copy, unread and errors", () => {
  it("an agent's answer shows the trace of its run in Message info, for admins only (showTraceIds)", async () => {
    const receipts = vi.spyOn(Chat, "getMessageReceipts");
    const answer = new Chat.AgenticMessage("alice", "user", "assistant");
    answer.setId(77);
    answer.setSender(bob);
    answer.setText("Use olive oil.");
    answer.setData({ runId: "r1", agentId: "chef", traceId: "4bf92f3577b34da6a3ce929d0e0e4736" });
    const plain = setup(answer);
    expect(plain.container.querySelector('[data-option="info"]')).toBeNull();
    plain.unmount();
    const { user } = setup(answer, { showTraceIds: true, quickOptionsCount: 20 });
    await user.click(screen.getByRole("button", { name: "Message info" }));
    const dialog = screen.getByRole("dialog", { name: "Message info" });
    expect(within(dialog).getByText("4bf92f3577b34da6a3ce929d0e0e4736")).toBeTruthy();
    expect(receipts).not.toHaveBeenCalled(); // not the admin's message: no receipts to read
  });

  it("copy, message privately and mark as unread", async () => {
    const unread = vi.spyOn(Chat, "markAsUnread").mockResolvedValue();
    const m = text("Hi all", { sender: bob, receiverId: "kitchen", receiverType: "group" });
    const { user } = setup(m, { quickOptionsCount: 20, showMarkAsUnreadOption: true });
    // After userEvent.setup(), which installs a clipboard of its own.
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    await user.click(screen.getByRole("button", { name: "Copy" }));
    expect(writeText).toHaveBeenCalledWith("Hi all");
    expect(await screen.findByText("Copied")).toBeTruthy();
    const opened: unknown[] = [];
    const sub = ChatUIEvents.ccOpenChat.subscribe((e) => opened.push(e));
    await user.click(screen.getByRole("button", { name: "Message privately" }));
    sub.unsubscribe();
    expect(opened).toEqual([{ user: bob }]);
    await user.click(screen.getByRole("button", { name: "Mark as unread" }));
    expect(unread).toHaveBeenCalledWith(m);
  });

  it("errors go to onError", async () => {
    const boom = new Chat.ChatException("ERR_NETWORK", "down");
    vi.spyOn(Chat, "markAsUnread").mockRejectedValue(boom);
    const { user, onError } = setup(text("Hi", { sender: bob }), { quickOptionsCount: 20, showMarkAsUnreadOption: true });
    await user.click(screen.getByRole("button", { name: "Mark as unread" }));
    await waitFor(() => expect(onError).toHaveBeenCalledWith(boom));
  });

  it("renders nothing for a deleted message", async () => {
    const { container } = setup(text("x", { deleted: true }));
    await act(async () => undefined);
    expect(container.querySelector(".chat-message-options")).toBeNull();
  });
});
