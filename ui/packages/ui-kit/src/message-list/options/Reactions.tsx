// CONTRACT (see MessageOptions.tsx): the reactions row under a bubble, with the detail view.
import type { Chat } from "@agentry/chat-sdk";
import type { ChatMessageListProps } from "../props";

export interface ReactionsProps {
  message: Chat.BaseMessage;
  props: ChatMessageListProps;
  loggedInUser: Chat.User;
  onError(error: unknown): void;
}

/** Reaction chips (count, mine highlighted; onReactionClick or toggle) and the detail view. */
export function Reactions(_: ReactionsProps) {
  return null;
}
