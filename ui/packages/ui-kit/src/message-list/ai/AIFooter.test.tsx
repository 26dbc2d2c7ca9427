import { Chat } from "@agentry/chat-sdk";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatMessageListProps } from "../props";
import { bob, me, text } from "../testing/fixtures";
import { AIFooter, wantsSmartReplies } from "./AIFooter";
import { resetAIEnabledCache } from "./useAIEnabled";

vi.mock("@agentry/chat-sdk", async (io) => (await import("../fakeChat")).spyableChatSDK(io));

let smart: ReturnType<typeof vi.fn>;
beforeEach(() => {
  vi.useFakeTimers();
  resetAIEnabledCache();
  vi.spyOn(Chat, "isAIEnabled").mockResolvedValue(true);
  smart = vi.fn().mockResolvedValue(["Around seven.", "Not sure yet."]);
  vi.spyOn(Chat, "getSmartReplies").mockImplementation(smart as unknown as typeof Chat.getSmartReplies);
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function footer(props: ChatMessageListProps, lastMessage?: Chat.BaseMessage, isEmpty = false) {
  return <div className="chat-message-list"><AIFooter props={props} user={bob} loggedInUser={me} lastMessage={lastMessage} isEmpty={isEmpty} onError={() => undefined} /></div>;
}
const flush = () => act(async () => { await Promise.resolve(); await Promise.resolve(); });

describe("wantsSmartReplies", () => {
  it("someone else's message with a keyword, case-insensitively", () => {
    const kw = ["what", "?"];
    expect(wantsSmartReplies(text("WHAT time?", { sender: bob }), "alice", kw)).toBe(true);
    expect(wantsSmartReplies(text("Dinner at seven", { sender: bob }), "alice", kw)).toBe(false);
    expect(wantsSmartReplies(text("What time?", { sender: me }), "alice", kw)).toBe(false);
    expect(wantsSmartReplies(text("What?", { sender: bob, deleted: true }), "alice", kw)).toBe(false);
    expect(wantsSmartReplies(text("dinner soon", { sender: bob }), "alice", ["Dinner"])).toBe(true);
  });
});

describe("AIFooter smart replies", () => {
  it("appear after smartRepliesDelayDuration (default 10 s) for a keyword, and send the chosen one", async () => {
    const send = vi.spyOn(Chat, "sendMessage").mockImplementation(async (m) => m);
    const { container } = render(footer({ showSmartReplies: true }, text("When is dinner?", { sender: bob, id: 5 })));
    await flush();
    await act(async () => void vi.advanceTimersByTime(9_999));
    expect(smart).not.toHaveBeenCalled();
    await act(async () => void vi.advanceTimersByTime(1));
    await flush();
    expect(smart).toHaveBeenCalledWith("bob", "user");
    const box = container.querySelector(".chat-message-list__footer-smart-replies")!;
    expect(box.getAttribute("aria-label")).toBe("Smart replies");
    fireEvent.click(screen.getByRole("button", { name: "Around seven." }));
    await flush();
    expect(send.mock.calls[0]![0].getText()).toBe("Around seven.");
    expect(container.querySelector(".chat-message-list__footer-smart-replies")).toBeNull();
  });

  it("a new message restarts the delay; unmounting cancels it; no keyword, no request", async () => {
    const { rerender, unmount } = render(footer({ showSmartReplies: true, smartRepliesDelayDuration: 1000 }, text("What now?", { sender: bob, id: 5 })));
    await flush();
    await act(async () => void vi.advanceTimersByTime(800));
    rerender(footer({ showSmartReplies: true, smartRepliesDelayDuration: 1000 }, text("How about pasta?", { sender: bob, id: 6 })));
    await act(async () => void vi.advanceTimersByTime(800));
    expect(smart).not.toHaveBeenCalled();
    await act(async () => void vi.advanceTimersByTime(200));
    expect(smart).toHaveBeenCalledTimes(1);
    rerender(footer({ showSmartReplies: true, smartRepliesDelayDuration: 1000 }, text("Ok, see you", { sender: bob, id: 7 })));
    await act(async () => void vi.advanceTimersByTime(5000));
    expect(smart).toHaveBeenCalledTimes(1);
    rerender(footer({ showSmartReplies: true, smartRepliesDelayDuration: 1000, smartRepliesKeywords: ["see"] }, text("Ok, see you", { sender: bob, id: 7 })));
    unmount();
    await act(async () => void vi.advanceTimersByTime(5000));
    expect(smart).toHaveBeenCalledTimes(1);
  });

  it("nothing without showSmartReplies, for the user's own message, or while AI is off", async () => {
    render(footer({}, text("What?", { sender: bob })));
    cleanup();
    render(footer({ showSmartReplies: true, smartRepliesDelayDuration: 0 }, text("What?", { sender: me })));
    cleanup();
    resetAIEnabledCache();
    vi.spyOn(Chat, "isAIEnabled").mockResolvedValue(false);
    const { container } = render(footer({ showSmartReplies: true, smartRepliesDelayDuration: 0 }, text("What?", { sender: bob })));
    await flush();
    await act(async () => void vi.advanceTimersByTime(100));
    expect(smart).not.toHaveBeenCalled();
    expect(container.querySelector(".chat-message-list__ai-footer")).toBeNull();
  });
});

describe("AIFooter conversation starters", () => {
  it("an empty conversation with showConversationStarters offers starters; choosing one sends it and hides them", async () => {
    vi.spyOn(Chat, "getConversationStarter").mockResolvedValue(["How was your weekend?", "Lunch tomorrow?"]);
    const send = vi.spyOn(Chat, "sendMessage").mockImplementation(async (m) => m);
    const { container } = render(footer({ showConversationStarters: true }, undefined, true));
    await flush();
    await flush();
    const box = container.querySelector(".chat-message-list__footer-conversation-starter")!;
    expect(box.textContent).toContain("How was your weekend?");
    fireEvent.click(screen.getByRole("button", { name: "Lunch tomorrow?" }));
    await flush();
    expect([send.mock.calls[0]![0].getReceiverId(), send.mock.calls[0]![0].getText()]).toEqual(["bob", "Lunch tomorrow?"]);
    expect(container.querySelector(".chat-message-list__footer-conversation-starter")).toBeNull();
  });

  it("not when the conversation has messages", async () => {
    const starters = vi.spyOn(Chat, "getConversationStarter").mockResolvedValue(["Hi"]);
    render(footer({ showConversationStarters: true }, text("Hey", { sender: bob }), false));
    await flush();
    expect(starters).not.toHaveBeenCalled();
  });
});
