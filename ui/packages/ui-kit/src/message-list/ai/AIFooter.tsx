// CONTRACT (see options/MessageOptions.tsx): smart replies and conversation starters.
import type { Chat } from "@agentry/chat-sdk";
import type { ChatMessageListProps } from "../props";

export interface AIFooterProps {
  props: ChatMessageListProps;
  user?: Chat.User;
  group?: Chat.Group;
  loggedInUser: Chat.User;
  /** The newest stored message shown (smart replies answer it when it is someone else's). */
  lastMessage?: Chat.BaseMessage;
  isEmpty: boolean;
  onError(error: unknown): void;
}

/**
 * .chat-message-list__footer-smart-replies (showSmartReplies: after smartRepliesDelayDuration,
 * when the last message is another's and holds a keyword) and
 * .chat-message-list__footer-conversation-starter (showConversationStarters, empty conversation);
 * choosing one sends it. Renders nothing while AI is off (Chat.isAIEnabled()).
 */
export function AIFooter(_: AIFooterProps) {
  return null;
}
