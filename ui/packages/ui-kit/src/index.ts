/**
 * @agentry/ui-kit: React components of the Agentry chat platform on @agentry/chat-sdk.
 * Styles: import "@agentry/ui-kit/css-variables.css" and "@agentry/ui-kit/styles.css", and
 * wrap the components in an element with class "chat" (the tokens live there).
 */
export * from "./types";
export * from "./events";
export { formatDate, formatCalendar } from "./dates";
export { Avatar, type AvatarProps } from "./base/Avatar";
export { ChatGroups, type ChatGroupsProps } from "./groups";
export { ChatMessageList } from "./message-list/ChatMessageList";
export type { ChatMessageListProps, AgentActionHandler } from "./message-list/props";
export { Reasoning, reasoningSummary, type ReasoningProps } from "./message-list/agent/Reasoning";
export { defaultTextFormatters, linkFormatter, lineBreakFormatter, mentionFormatter } from "./message-list/bubble/formatters";
