import { Chat } from "@agentry/chat-sdk";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChatMessageEvents } from "../../events";
import { me, text } from "../testing/fixtures";
import { InlineEditor } from "./InlineEditor";

vi.mock("@agentry/chat-sdk", async (io) => (await import("../fakeChat")).spyableChatSDK(io));

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function setup(m: Chat.BaseMessage) {
  const onDone = vi.fn();
  const onError = vi.fn();
  render(<InlineEditor message={m} onDone={onDone} onError={onError} />);
  return { onDone, onError, user: userEvent.setup(), box: screen.getByRole("textbox", { name: "Edit message" }) as HTMLTextAreaElement };
}

describe("InlineEditor", () => {
  it("is prefilled and focused; Shift+Enter adds a line, Enter saves and raises ccMessageEdited", async () => {
    const m = text("Hello", { sender: me, id: 42 });
    const edited = text("Hello\nthere", { sender: me, id: 42 });
    const edit = vi.spyOn(Chat, "editMessage").mockResolvedValue(edited);
    const { onDone, user, box } = setup(m);
    expect(box.value).toBe("Hello");
    expect(document.activeElement).toBe(box);
    const seen: unknown[] = [];
    const sub = ChatMessageEvents.ccMessageEdited.subscribe((e) => seen.push(e.message));
    await user.keyboard("{Shift>}{Enter}{/Shift}there{Enter}");
    await waitFor(() => expect(onDone).toHaveBeenCalledWith(edited));
    sub.unsubscribe();
    const sent = edit.mock.calls[0]![0] as Chat.TextMessage;
    expect([sent.getId(), sent.getText(), sent.getReceiverId()]).toEqual([42, "Hello\nthere", m.getReceiverId()]);
    expect(seen).toEqual([edited]);
  });

  it("Escape cancels without a request; an unchanged text just closes", async () => {
    const edit = vi.spyOn(Chat, "editMessage");
    const a = setup(text("Hello", { sender: me }));
    await a.user.keyboard("abc{Escape}");
    expect(a.onDone).toHaveBeenCalledWith();
    cleanup();
    const b = setup(text("Hello", { sender: me }));
    await b.user.keyboard("{Enter}");
    expect(b.onDone).toHaveBeenCalledWith();
    expect(edit).not.toHaveBeenCalled();
  });

  it("an empty text is not saved; a failure stays in the editor and goes to onError", async () => {
    const boom = new Chat.ChatException("ERR_NETWORK", "offline");
    vi.spyOn(Chat, "editMessage").mockRejectedValue(boom);
    const { onDone, onError, user, box } = setup(text("Hello", { sender: me }));
    await user.clear(box);
    await user.keyboard("{Enter}");
    expect(screen.getByRole("alert").textContent).toContain("cannot be empty");
    await user.type(box, "Hi{Enter}");
    await waitFor(() => expect(onError).toHaveBeenCalledWith(boom));
    expect(onDone).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toBe("offline");
  });
});
