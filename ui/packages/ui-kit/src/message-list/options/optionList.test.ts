import { Chat } from "@agentry/chat-sdk";
import { describe, expect, it } from "vitest";
import type { ChatMessageListProps } from "../props";
import { bob, me, text } from "../testing/fixtures";
import { availableOptions, optionOrder, splitOptions, type MessageOptionId, type OptionContext } from "./optionList";

const onThreadRepliesClick = () => undefined;
const all: ChatMessageListProps = { onThreadRepliesClick, showMarkAsUnreadOption: true };

function options(message: Chat.BaseMessage, props: ChatMessageListProps = all, extra: Partial<OptionContext> = {}): MessageOptionId[] {
  return availableOptions({ message, isOutgoing: message.getSender()?.getUid() === me.getUid(), props, loggedInUser: me, aiEnabled: true, ...extra });
}

const hideProp: Record<MessageOptionId, keyof ChatMessageListProps> = {
  react: "hideReactionOption",
  reply: "hideReplyOption",
  replyInThread: "hideReplyInThreadOption",
  translate: "hideTranslateMessageOption",
  copy: "hideCopyMessageOption",
  edit: "hideEditMessageOption",
  info: "hideMessageInfoOption",
  messagePrivately: "hideMessagePrivatelyOption",
  markUnread: "showMarkAsUnreadOption",
  flag: "hideFlagMessageOption",
  delete: "hideDeleteMessageOption",
};

describe("availableOptions", () => {
  const own = text("Hello?", { sender: me });
  const theirs = text("Hello?", { sender: bob });
  const theirsInGroup = text("Hi all", { sender: bob, receiverId: "kitchen", receiverType: "group" });

  it("own text messages: edit, delete, info; no flag, unread or privately", () => {
    expect(options(own)).toEqual(["react", "reply", "replyInThread", "translate", "copy", "edit", "info", "delete"]);
  });

  it("someone else's: flag and mark unread; no edit, delete, info", () => {
    expect(options(theirs)).toEqual(["react", "reply", "replyInThread", "translate", "copy", "markUnread", "flag"]);
  });

  it("someone else's in a group: message privately too", () => {
    expect(options(theirsInGroup)).toContain("messagePrivately");
    expect(options(text("mine", { sender: me, receiverId: "kitchen", receiverType: "group" }))).not.toContain("messagePrivately");
  });

  it.each(optionOrder)("%s is hidden by its prop", (id) => {
    const message = ["edit", "info", "delete"].includes(id) ? own : id === "messagePrivately" ? theirsInGroup : theirs;
    expect(options(message)).toContain(id);
    const prop = hideProp[id];
    const props: ChatMessageListProps = { ...all, [prop]: prop !== "showMarkAsUnreadOption" };
    expect(options(message, props)).not.toContain(id);
  });

  it("mark unread only with showMarkAsUnreadOption", () => {
    expect(options(theirs, { onThreadRepliesClick })).not.toContain("markUnread");
  });

  it("translate only while AI is on", () => {
    expect(options(theirs, all, { aiEnabled: false })).not.toContain("translate");
  });

  it("reply in thread needs onThreadRepliesClick and is not offered inside a thread", () => {
    expect(options(theirs, {})).not.toContain("replyInThread");
    expect(options(theirs, { ...all, parentMessageId: 5 })).not.toContain("replyInThread");
    expect(options(text("reply", { sender: bob, parentMessageId: 5 }))).not.toContain("replyInThread");
  });

  it("deleted, unsent and action messages have none", () => {
    expect(options(text("x", { deleted: true }))).toEqual([]);
    const unsent = text("x");
    unsent.setId(0);
    expect(options(unsent)).toEqual([]);
    const action = new Chat.Action("kitchen", "joined");
    action.setId(3);
    expect(options(action)).toEqual([]);
  });

  it("media without caption: no copy, translate or edit", () => {
    const media = new Chat.MediaMessage(me.getUid(), undefined, "image", "user");
    media.setId(4);
    media.setSender(me);
    expect(options(media)).toEqual(["react", "reply", "replyInThread", "info", "delete"]);
  });
});

describe("splitOptions", () => {
  const ids = ["a", "b", "c", "d", "e"];
  it("first quickOptionsCount (default 3) are quick, the rest overflow", () => {
    expect(splitOptions(ids, undefined)).toEqual({ quick: ["a", "b", "c"], overflow: ["d", "e"] });
    expect(splitOptions(ids, 1)).toEqual({ quick: ["a"], overflow: ["b", "c", "d", "e"] });
    expect(splitOptions(ids, 0)).toEqual({ quick: [], overflow: ids });
    expect(splitOptions(ids, 9)).toEqual({ quick: ids, overflow: [] });
    expect(splitOptions(ids, -2)).toEqual({ quick: [], overflow: ids });
  });
});
