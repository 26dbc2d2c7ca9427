// Which options a message offers, in menu order, and how they split into quick buttons and the
// overflow menu. Pure: the component and the tests share it.
import type { Chat } from "@agentry/chat-sdk";
import type { ChatMessageListProps } from "../props";

export type MessageOptionId =
  | "react"
  | "reply"
  | "replyInThread"
  | "translate"
  | "copy"
  | "edit"
  | "info"
  | "messagePrivately"
  | "markUnread"
  | "flag"
  | "delete";

/** Menu order: the first quickOptionsCount of the applicable ones are the quick buttons. */
export const optionOrder: readonly MessageOptionId[] = [
  "react",
  "reply",
  "replyInThread",
  "translate",
  "copy",
  "edit",
  "info",
  "messagePrivately",
  "markUnread",
  "flag",
  "delete",
];

export const optionLabels: Readonly<Record<MessageOptionId, string>> = {
  react: "React",
  reply: "Reply",
  replyInThread: "Reply in thread",
  translate: "Translate",
  copy: "Copy",
  edit: "Edit",
  info: "Message info",
  messagePrivately: "Message privately",
  markUnread: "Mark as unread",
  flag: "Report",
  delete: "Delete",
};

export interface OptionContext {
  message: Chat.BaseMessage;
  isOutgoing: boolean;
  props: ChatMessageListProps;
  loggedInUser: Chat.User;
  /** Chat.isAIEnabled() (translation needs the assistant). */
  aiEnabled: boolean;
}

/** The text a message shows (text messages, captions, agent answers); "" when none. */
export function messageText(m: Chat.BaseMessage): string {
  const t = (m as { getText?: () => unknown; getCaption?: () => unknown }).getText?.() ?? (m as { getCaption?: () => unknown }).getCaption?.();
  return typeof t === "string" ? t : "";
}

/** The trace of the agent run that wrote an agentic message, when the chat service exports
 * traces (its data's traceId). */
export function traceIdOf(m: Chat.BaseMessage): string {
  const t = m.getCategory() === "agentic" ? m.getData()["traceId"] : undefined;
  return typeof t === "string" ? t : "";
}

/** Whether the logged-in user sent the message. */
export function isOwnMessage(m: Chat.BaseMessage, me: Chat.User, isOutgoing = false): boolean {
  return isOutgoing || m.getSender()?.getUid() === me.getUid();
}

/** The options that apply to the message and are not hidden by a prop, in menu order. */
export function availableOptions(ctx: OptionContext): MessageOptionId[] {
  const { message: m, props: p } = ctx;
  if (!m.getId() || m.getDeletedAt() || m.getCategory() === "action") return [];
  const own = isOwnMessage(m, ctx.loggedInUser, ctx.isOutgoing);
  const text = messageText(m);
  const isText = m.getCategory() === "message" && m.getType() === "text";
  const inGroup = m.getReceiverType() === "group";
  const pending = m.getModerationStatus() === "pending" || m.getModerationStatus() === "disapproved";
  const sender = m.getSender();
  const applies: Record<MessageOptionId, boolean> = {
    react: !p.hideReactionOption && !pending,
    reply: !p.hideReplyOption && !pending,
    // A thread has no threads of its own; without the callback the option would do nothing.
    replyInThread: !p.hideReplyInThreadOption && !p.parentMessageId && !m.getParentMessageId() && !!p.onThreadRepliesClick && !pending,
    translate: !p.hideTranslateMessageOption && ctx.aiEnabled && text.trim() !== "",
    copy: !p.hideCopyMessageOption && text !== "",
    edit: !p.hideEditMessageOption && own && isText,
    // Admins (showTraceIds) also see an agent's answer's info: the trace of its run.
    info: !p.hideMessageInfoOption && !pending && (own || (!!p.showTraceIds && traceIdOf(m) !== "")),
    messagePrivately: !p.hideMessagePrivatelyOption && inGroup && !own && !!sender,
    markUnread: !!p.showMarkAsUnreadOption && !own,
    flag: !p.hideFlagMessageOption && !own,
    delete: !p.hideDeleteMessageOption && own,
  };
  return optionOrder.filter((id) => applies[id]);
}

/** The first `count` (default 3) options are quick buttons, the rest go to the overflow menu. */
export function splitOptions<T>(ids: readonly T[], count: number | undefined): { quick: T[]; overflow: T[] } {
  const n = Math.max(0, Math.floor(count ?? 3));
  return { quick: ids.slice(0, n), overflow: ids.slice(n) };
}
