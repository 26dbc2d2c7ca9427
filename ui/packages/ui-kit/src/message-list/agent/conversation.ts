// Which conversation a list shows, in the service's terms, and whether it is an agent chat.
import type { Chat } from "@agentry/chat-sdk";
import type { ChatMessageListProps } from "../props";

/** The service's conversation id (chat/model.ConversationID): group_<guid>, or user_<a>_user_<b> sorted. */
export function conversationIdFor(user: Chat.User | undefined, group: Chat.Group | undefined, me: string): string | undefined {
  if (group) return `group_${group.getGuid()}`;
  if (!user) return undefined;
  const other = user.getUid();
  const [a, b] = me < other ? [me, other] : [other, me];
  return `user_${a}_user_${b}`;
}

/** The agent a one-to-one list talks to: props.user when it is an agent (or isAgentChat says so). */
export function agentOf(props: ChatMessageListProps, user: Chat.User | undefined): Chat.User | undefined {
  if (!user) return undefined;
  return user.getKind() === "agent" || props.isAgentChat ? user : undefined;
}

/** "show-recipe-card" → "Show recipe card": a name for a tool without a display name. */
export function humanize(name: string): string {
  const s = name.replace(/[-_]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").trim().toLowerCase();
  return s ? s[0]!.toUpperCase() + s.slice(1) : name;
}

// Display names of tool calls seen in assistant messages, so a tool_result (which carries only
// the tool's name) can say which action ran.
const displayNames = new Map<string, string>();

export function rememberDisplayName(callId: string, displayName: string | undefined): void {
  if (callId && displayName) displayNames.set(callId, displayName);
}

export function displayNameOf(callId: string, name: string): string {
  return displayNames.get(callId) ?? humanize(name);
}
