// CONTRACT between the list core (ChatMessageList, bubble) and the message features (options,
// reactions, editing, translation, agent, AI). The core renders these; the features own their
// bodies. Keep the exported names and props stable.
import type { Chat } from "@agentry/chat-sdk";
import type { ChatMessageListProps } from "../props";

export interface MessageOptionsProps {
  message: Chat.BaseMessage;
  isOutgoing: boolean;
  props: ChatMessageListProps;
  loggedInUser: Chat.User;
  /** Show a translation under the bubble (the core keeps it per message id). */
  onTranslated(messageId: number, text: string): void;
  /** Start inline editing of this message (the core then renders InlineEditor in the bubble). */
  onEdit(message: Chat.BaseMessage): void;
  /** Report an error the way the list does (onError / error handling). */
  onError(error: unknown): void;
}

/** The message's options menu (quick options + overflow), shown on hover and keyboard focus. */
export function MessageOptions(_: MessageOptionsProps) {
  return null;
}
