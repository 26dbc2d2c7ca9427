/**
 * What every bubble of a list shares, as a React context (stream-chat-react's MessageContext
 * shape): the list's props, the signed-in user, the conversation's kind, the formatters and
 * templates, and the callbacks into the list. A bubble takes only its own message's props.
 */
import { createContext, useContext, useMemo } from "react";
import type { Chat } from "@agentry/chat-sdk";
import type { ChatMessageTemplate, ChatTextFormatter } from "../types";
import { defaultTextFormatters } from "./bubble/formatters";
import type { ConversationRef } from "./conversation";
import type { ChatMessageListProps } from "./props";

export interface MessageListContextValue {
  listProps: ChatMessageListProps;
  me: Chat.User;
  isGroup: boolean;
  inThread: boolean;
  formatters: readonly ChatTextFormatter[];
  /** The template for a message's category and type, if any. */
  templateOf(m: Chat.BaseMessage): ChatMessageTemplate | undefined;
  onTranslated(messageId: number, text: string): void;
  onEdit(message: Chat.BaseMessage): void;
  onEditDone(edited?: Chat.BaseMessage): void;
  onError(error: unknown): void;
  onFocusMessage(id: number): void;
  /** Shows a message of the list (a quote reply's quoted message). */
  onJumpTo(id: number): void;
}

const MessageListContext = createContext<MessageListContextValue | undefined>(undefined);

export const MessageListProvider = MessageListContext.Provider;

export function useMessageListContext(): MessageListContextValue {
  const v = useContext(MessageListContext);
  if (!v) throw new Error("a message bubble renders inside a ChatMessageList (MessageListProvider)");
  return v;
}

type Callbacks = Pick<MessageListContextValue, "onTranslated" | "onEdit" | "onEditDone" | "onError" | "onFocusMessage" | "onJumpTo">;

/** The context's value, new only when something it holds changes (the bubbles are memoized). */
export function useMessageListValue(props: ChatMessageListProps, me: Chat.User | undefined, conv: ConversationRef | undefined, cb: Callbacks) {
  const templates = useMemo(() => {
    const t = new Map<string, ChatMessageTemplate>();
    for (const x of props.templates ?? []) t.set(`${x.category}/${x.type}`, x);
    return t;
  }, [props.templates]);
  const formatters = props.textFormatters ?? defaultTextFormatters;
  const { onTranslated, onEdit, onEditDone, onError, onFocusMessage, onJumpTo } = cb;
  return useMemo<MessageListContextValue | undefined>(() => me && {
    listProps: props,
    me,
    isGroup: conv?.type === "group",
    inThread: !!conv?.parentId,
    formatters,
    templateOf: (m) => templates.get(`${m.getCategory()}/${m.getType()}`),
    onTranslated, onEdit, onEditDone, onError, onFocusMessage, onJumpTo,
  }, [props, me, conv, formatters, templates, onTranslated, onEdit, onEditDone, onError, onFocusMessage, onJumpTo]);
}
