// CONTRACT (see options/MessageOptions.tsx): everything agent-specific of the list.
import type { Chat } from "@agentry/chat-sdk";
import type { ChatMessageListProps } from "../props";

export interface AgentViewProps {
  props: ChatMessageListProps;
  /** The agent (props.user when it is an agent) or the group (agents answer mentions). */
  user?: Chat.User;
  group?: Chat.Group;
  loggedInUser: Chat.User;
  /** No stored message is shown: render the greeting, introductory and suggested messages. */
  isEmpty: boolean;
  /** The live answer grew: the core keeps the view at the bottom if the reader was there. */
  onGrow(): void;
  onError(error: unknown): void;
}

/**
 * Rendered by the core after the last stored message: the streaming answer (text, tool calls
 * with their execution text) until its stored copy arrives, the run's error, and — when
 * isEmpty — the agent's greeting, introductory message and suggested messages. It also runs
 * props.agentActions for stored messages awaiting a frontend action (live only, once per call).
 */
export function AgentView(_: AgentViewProps) {
  return null;
}
