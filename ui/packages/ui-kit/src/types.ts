import type { ReactNode } from "react";
import type { Chat } from "@agentry/chat-sdk";

/** Alignment of the message list: everything left, or outgoing right (standard). */
export enum MessageListAlignment {
  left = 0,
  standard = 1,
}

export enum SelectionMode {
  single = 0,
  multiple = 1,
  none = 2,
}

/**
 * Date formats by how far back a date is. Each is a pattern of tokens (YYYY, YY, MMMM, MMM,
 * MM, M, DD, D, dddd, ddd, HH, H, hh, h, mm, ss, A, a) and literal text in [brackets], e.g.
 * `{ today: "[Today]", yesterday: "[Yesterday]", lastWeek: "dddd", otherDays: "DD MMM, YYYY" }`.
 */
export interface CalendarObject {
  today?: string;
  yesterday?: string;
  lastWeek?: string;
  otherDays?: string;
}

export interface ChatOption {
  id?: string;
  title?: string;
  iconURL?: string;
  onClick?: () => void;
}

/** Custom rendering of a message type: the bubble's content view, or the whole bubble. */
export interface ChatMessageTemplate {
  type: string;
  category: string;
  contentView?: (message: Chat.BaseMessage) => ReactNode;
  bubbleView?: (message: Chat.BaseMessage) => ReactNode;
  headerView?: (message: Chat.BaseMessage) => ReactNode;
  footerView?: (message: Chat.BaseMessage) => ReactNode;
}

/**
 * A text formatter turns message text into nodes (mentions, links, markdown). Formatters run
 * in order; each gets the previous one's output.
 */
export interface ChatTextFormatter {
  id: string;
  format(input: ReactNode[], message: Chat.BaseMessage): ReactNode[];
}
