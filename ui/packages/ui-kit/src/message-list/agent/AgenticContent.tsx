// CONTRACT (see options/MessageOptions.tsx): the content of a stored agentic message.
import type { Chat } from "@agentry/chat-sdk";
import type { ChatMessageListProps } from "../props";

export interface AgenticContentProps {
  message: Chat.AgenticMessage;
  props: ChatMessageListProps;
}

/** Assistant text (formatted) with its tool calls (execution text), tool results, run errors. */
export function AgenticContent(_: AgenticContentProps) {
  return null;
}
