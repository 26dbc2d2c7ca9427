import type { ReactNode } from "react";
import type { Chat } from "@agentry/chat-sdk";
import type { CalendarObject, ChatMessageTemplate, ChatTextFormatter, MessageListAlignment } from "../types";

/**
 * A frontend action handler: gets the call's complete, parsed arguments and returns the
 * result (any JSON value) for the agent; a throw or rejection is sent as the call's error.
 */
export type AgentActionHandler = (args: unknown, call: { id: string; name: string; message: Chat.AgenticMessage }) => unknown;

/** Every prop of the specification's ChatMessageList, plus the agent action registry. */
export interface ChatMessageListProps {
  // data
  user?: Chat.User;
  group?: Chat.Group;
  messagesRequestBuilder?: Chat.MessagesRequestBuilder;
  reactionsRequestBuilder?: Chat.ReactionsRequestBuilder;
  parentMessageId?: number;
  templates?: ChatMessageTemplate[];
  goToMessageId?: string;
  textFormatters?: ChatTextFormatter[];

  // callbacks
  onThreadRepliesClick?: (message: Chat.BaseMessage) => void;
  onReactionClick?: (reaction: Chat.ReactionCount, message: Chat.BaseMessage) => void;
  onReactionListItemClick?: (reaction: Chat.Reaction, message: Chat.BaseMessage) => void;
  onError?: ((error: Chat.ChatException) => void) | null;

  // booleans (all default false unless stated)
  hideDateSeparator?: boolean;
  hideStickyDate?: boolean;
  hideReceipts?: boolean;
  hideError?: boolean;
  hideReplyInThreadOption?: boolean;
  hideReplyOption?: boolean;
  hideTranslateMessageOption?: boolean;
  hideEditMessageOption?: boolean;
  hideDeleteMessageOption?: boolean;
  hideReactionOption?: boolean;
  hideMessagePrivatelyOption?: boolean;
  hideCopyMessageOption?: boolean;
  hideMessageInfoOption?: boolean;
  hideAvatar?: boolean;
  hideGroupActionMessages?: boolean;
  hideModerationView?: boolean;
  hideFlagMessageOption?: boolean;
  hideFlagRemarkField?: boolean;
  showConversationStarters?: boolean;
  showSmartReplies?: boolean;
  showMarkAsUnreadOption?: boolean;
  showScrollbar?: boolean;
  scrollToBottomOnNewMessages?: boolean;
  startFromUnreadMessages?: boolean;
  /** Opens at the newest message with a "New messages" divider where the unread ones start,
   * and a "Jump to first unread" button while that is above the view (unlike
   * startFromUnreadMessages, which opens there). */
  showUnreadDivider?: boolean;
  /** For admins: an agent's answer offers Message info, which shows the trace id of its run
   * (when the chat service exports traces). */
  showTraceIds?: boolean;
  isAgentChat?: boolean;
  loadLastAgentConversation?: boolean;
  /** Default true. */
  disableSoundForMessages?: boolean;

  // other behaviour
  /** Default MessageListAlignment.standard. */
  messageAlignment?: MessageListAlignment;
  /** Default 3. */
  quickOptionsCount?: number;
  customSoundForMessages?: string;
  /** Default ["what", "when", "why", "who", "where", "how", "?"]. */
  smartRepliesKeywords?: string[];
  /** Default 10000 (ms). */
  smartRepliesDelayDuration?: number;
  separatorDateTimeFormat?: CalendarObject;
  stickyDateTimeFormat?: CalendarObject;
  messageSentAtDateTimeFormat?: CalendarObject;
  messageInfoDateTimeFormat?: CalendarObject;

  // view slots
  headerView?: ReactNode;
  footerView?: ReactNode;
  loadingView?: ReactNode;
  emptyView?: ReactNode;
  errorView?: ReactNode;

  /** Agent chat: frontend action name → handler, run once per call (see agent/). */
  agentActions?: Record<string, AgentActionHandler>;
}

export const defaultSmartRepliesKeywords = ["what", "when", "why", "who", "where", "how", "?"];
