import { Chat } from "@agentry/chat-sdk";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChatMessageListProps } from "../props";
import { bob, me, text, user } from "../testing/fixtures";
import { Reactions } from "./Reactions";

vi.mock("@agentry/chat-sdk", async (io) => (await import("../fakeChat")).spyableChatSDK(io));

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const withReactions = () => text("Dinner?", { sender: bob, reactions: [new Chat.ReactionCount("👍", 2, true), new Chat.ReactionCount("🎉", 1, false)] });

function setup(message: Chat.BaseMessage, props: ChatMessageListProps = {}) {
  const onError = vi.fn();
  const r = render(
    <div className="chat">
      <div className="chat-message-list">
        <Reactions message={message} props={props} loggedInUser={me} onError={onError} />
      </div>
    </div>,
  );
  return { ...r, onError, user: userEvent.setup() };
}

/** A ReactionsRequestBuilder whose requests answer pages from `all` (limit per page). */
function fakeBuilder(all: Chat.Reaction[], limit = 2) {
  const built: { messageId: number; reaction: string }[] = [];
  class Fake extends Chat.ReactionsRequestBuilder {
    override build(): Chat.ReactionsRequest {
      const items = all.filter((r) => !this.reaction || r.getReaction() === this.reaction);
      built.push({ messageId: this.messageId, reaction: this.reaction });
      let at = 0;
      const req = {
        fetchNext: async () => {
          const page = items.slice(at, at + this.limit);
          at += page.length;
          return page;
        },
        hasMore: () => at < items.length,
      };
      return req as unknown as Chat.ReactionsRequest;
    }
  }
  return { builder: new Fake().setLimit(limit), built };
}

describe("Reactions", () => {
  it("shows chips with counts; the user's own is pressed", () => {
    setup(withReactions());
    const row = screen.getByRole("group", { name: "Reactions" });
    const chips = within(row).getAllByRole("button", { pressed: undefined }).filter((b) => b.hasAttribute("aria-pressed"));
    expect(chips.map((c) => [c.textContent, c.getAttribute("aria-pressed")])).toEqual([
      ["👍2", "true"],
      ["🎉1", "false"],
    ]);
    expect(chips[0]!.getAttribute("aria-label")).toBe("👍 2 reactions, including yours");
  });

  it("renders nothing without reactions", () => {
    const { container } = setup(text("x"));
    expect(container.querySelector(".chat-reactions")).toBeNull();
  });

  it("click toggles the user's own reaction (remove when mine, add otherwise)", async () => {
    const m = withReactions();
    const after = m.clone();
    after.setReactions([new Chat.ReactionCount("👍", 1, false), new Chat.ReactionCount("🎉", 1, false)]);
    const remove = vi.spyOn(Chat, "removeReaction").mockResolvedValue(after);
    const add = vi.spyOn(Chat, "addReaction").mockResolvedValue(m);
    const { user } = setup(m);
    await user.click(screen.getByRole("button", { name: /^👍/ }));
    expect(remove).toHaveBeenCalledWith(m.getId(), "👍");
    // The service's answer shows at once.
    await waitFor(() => expect(screen.getByRole("button", { name: /^👍/ }).getAttribute("aria-pressed")).toBe("false"));
    await user.click(screen.getByRole("button", { name: /^🎉/ }));
    expect(add).toHaveBeenCalledWith(m.getId(), "🎉");
  });

  it("with onReactionClick, a click calls it instead of toggling", async () => {
    const onReactionClick = vi.fn();
    const add = vi.spyOn(Chat, "addReaction");
    const remove = vi.spyOn(Chat, "removeReaction");
    const m = withReactions();
    const { user } = setup(m, { onReactionClick });
    await user.click(screen.getByRole("button", { name: /^🎉/ }));
    expect(onReactionClick).toHaveBeenCalledTimes(1);
    expect(onReactionClick.mock.calls[0]![0].getReaction()).toBe("🎉");
    expect(onReactionClick.mock.calls[0]![1]).toBe(m);
    expect(add).not.toHaveBeenCalled();
    expect(remove).not.toHaveBeenCalled();
  });
});

describe("Reactions: the detail view", () => {
  it("the detail view pages through who reacted, filters per emoji, and calls onReactionListItemClick", async () => {
    const m = withReactions();
    const carol = user("carol", "Carol");
    const all = [
      new Chat.Reaction(m.getId(), "👍", "alice", 1, me),
      new Chat.Reaction(m.getId(), "👍", "carol", 2, carol),
      new Chat.Reaction(m.getId(), "🎉", "bob", 3, bob),
    ];
    const { builder, built } = fakeBuilder(all, 2);
    const onReactionListItemClick = vi.fn();
    const { user: u } = setup(m, { reactionsRequestBuilder: builder, onReactionListItemClick });
    const open = screen.getByRole("button", { name: "Who reacted" });
    await u.click(open);
    const dialog = screen.getByRole("dialog", { name: "Reactions" });
    const list = within(dialog).getByRole("list", { name: "People who reacted" });
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(2));
    expect(list.textContent).toContain("You");
    expect(list.textContent).toContain("Carol");
    await u.click(within(dialog).getByRole("button", { name: "Load more" }));
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(3));
    expect(built[0]).toEqual({ messageId: m.getId(), reaction: "" });
    // The caller's builder is left as it was.
    expect([builder.messageId, builder.reaction]).toEqual([0, ""]);

    await u.click(within(dialog).getByRole("button", { name: "🎉 1" }));
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(1));
    expect(built[built.length - 1]).toEqual({ messageId: m.getId(), reaction: "🎉" });
    await u.click(within(list).getByRole("button", { name: /Bob/ }));
    expect(onReactionListItemClick).toHaveBeenCalledWith(all[2], m);

    await u.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.activeElement).toBe(open);
  });

  it("a right click (or long press) on a chip opens the detail view on that emoji", async () => {
    const m = withReactions();
    const { builder, built } = fakeBuilder([new Chat.Reaction(m.getId(), "🎉", "bob", 3, bob)]);
    setup(m, { reactionsRequestBuilder: builder });
    fireEvent.contextMenu(screen.getByRole("button", { name: /^🎉/ }));
    expect(screen.getByRole("dialog", { name: "Reactions" })).toBeTruthy();
    await waitFor(() => expect(built[0]?.reaction).toBe("🎉"));
    expect(screen.getByRole("button", { name: "🎉 1" }).getAttribute("aria-pressed")).toBe("true");
  });

  it("without onReactionListItemClick, the user's own entry removes the reaction", async () => {
    const m = withReactions();
    const remove = vi.spyOn(Chat, "removeReaction").mockResolvedValue(m);
    const { builder } = fakeBuilder([new Chat.Reaction(m.getId(), "👍", "alice", 1, me), new Chat.Reaction(m.getId(), "👍", "bob", 2, bob)]);
    const { user: u } = setup(m, { reactionsRequestBuilder: builder });
    await u.click(screen.getByRole("button", { name: "Who reacted" }));
    const list = screen.getByRole("list", { name: "People who reacted" });
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(2));
    expect(within(list).queryByRole("button", { name: /Bob/ })).toBeNull(); // others: not actionable
    await u.click(within(list).getByRole("button", { name: /You/ }));
    expect(remove).toHaveBeenCalledWith(m.getId(), "👍");
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(1));
  });
});
