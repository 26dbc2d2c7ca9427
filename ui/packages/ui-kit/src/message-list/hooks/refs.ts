/**
 * What the list's data hooks share between renders. Callbacks read these refs, not render
 * closures: SDK listeners and async page loads outlive the render they were made in.
 */
import type { Dispatch, RefObject } from "react";
import type { Chat } from "@agentry/chat-sdk";
import type { ConversationRef } from "../conversation";
import type { ChatMessageListProps } from "../props";
import type { ListAction, ListState } from "../state";

export type LoadStatus = "loading" | "ready" | "error";

/** One load of the conversation and what follows it: every load starts a fresh scope. */
export interface LoadScope {
  request: { req: Chat.MessagesRequest; builder: Chat.MessagesRequestBuilder } | undefined;
  /** A page load in flight, each way. */
  busy: { older: boolean; newer: boolean };
  /** Live messages added to the list. */
  seen: Set<number>;
  /** Thread replies counted into (or out of) their root's reply count. */
  countedReplies: Set<number>;
  droppedReplies: Set<number>;
  /** The newest message marked read. */
  lastMarked: number;
  /** From the start of the load until its page is in the state (events arrive between renders);
   * live messages meanwhile wait in duringLoad for the page to take them in. */
  loading: boolean;
  duringLoad: Chat.BaseMessage[];
}

export const freshScope = (loading: boolean): LoadScope => ({
  request: undefined,
  busy: { older: false, newer: false },
  seen: new Set(),
  countedReplies: new Set(),
  droppedReplies: new Set(),
  lastMarked: 0,
  loading,
  duringLoad: [],
});

export interface Latest {
  state: ListState<Chat.BaseMessage>;
  status: LoadStatus;
  pagingError: Chat.ChatException | undefined;
  props: ChatMessageListProps;
  conv: ConversationRef | undefined;
  me: Chat.User | undefined;
  report(err: unknown): Chat.ChatException;
}

export interface ListRefs {
  latest: RefObject<Latest>;
  /** The load generation: answers of an older one (or of an unmounted conversation) are dropped. */
  gen: RefObject<number>;
  scope: RefObject<LoadScope>;
  dispatch: Dispatch<ListAction<Chat.BaseMessage>>;
}
