import { describe, expect, it } from "vitest";
import { Chat } from "@agentry/chat-sdk";
import { buildItems } from "./items";

const at = (d: number, h: number, m = 0) => new Date(2024, 4, d, h, m).getTime() / 1000;
const msg = (id: number, from: string, sentAt: number) => {
  const x = new Chat.TextMessage("g", "t", "group");
  x.setId(id);
  x.setSender(new Chat.User(from));
  x.setSentAt(sentAt);
  return x;
};

describe("buildItems", () => {
  const ms = [msg(1, "a", at(1, 9)), msg(2, "a", at(1, 9, 2)), msg(3, "b", at(1, 9, 3)), msg(4, "b", at(1, 9, 30)), msg(5, "b", at(2, 8))];

  it("puts a separator before each day and starts runs on sender change, silence and a new day", () => {
    const items = buildItems(ms, { hideDateSeparator: false, hideGroupActionMessages: false });
    expect(items.map((i) => (i.kind === "message" ? `${i.message.getId()}${i.firstOfRun ? "*" : ""}` : i.kind))).toEqual(["date", "1*", "2", "3*", "4*", "date", "5*"]);
  });

  it("hides separators and places the unread divider", () => {
    const items = buildItems(ms, { hideDateSeparator: true, hideGroupActionMessages: false, firstUnreadId: 3 });
    expect(items.map((i) => (i.kind === "message" ? String(i.message.getId()) : i.kind))).toEqual(["1", "2", "unread", "3", "4", "5"]);
  });
});
