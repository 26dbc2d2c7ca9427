/**
 * The message list's data, from named hooks (hooks/): the load (useLoad: the newest page, or
 * the page around goToMessageId / the first unread message), paging (usePaging), receipts
 * (useReadMarks), typing (useTyping) and the live-event sink (useLiveSink), all folded in
 * through the list reducer (state.ts). Scrolling is the component's; the sink tells it what
 * arrived through `hooks`.
 */
import { useMemo, useReducer, useRef, type Dispatch, type RefObject } from "react";
import type { Chat } from "@agentry/chat-sdk";
import type { ConversationRef } from "./conversation";
import { freshScope, type Latest, type ListRefs, type LoadStatus } from "./hooks/refs";
import { useLiveSink, type ListHooks } from "./hooks/useLiveSink";
import { loadKey, useLoad, type Loader, type ScrollTarget } from "./hooks/useLoad";
import { usePaging, type Paging } from "./hooks/usePaging";
import { useReadMarks, type ReadMarks } from "./hooks/useReadMarks";
import { useTyping } from "./hooks/useTyping";
import type { ChatMessageListProps } from "./props";
import { emptyState, listReducer, type ListAction, type ListState } from "./state";

export type { ListHooks, LoadStatus, ScrollTarget };

export interface MessageListModel extends Omit<Loader, "gate" | "load">, Omit<Paging, "reset">, ReadMarks {
  state: ListState<Chat.BaseMessage>;
  /** Who is typing in the conversation now. */
  typing: Chat.User[];
  /** Loads again: "initial" honours goToMessageId / startFromUnreadMessages, "latest" the newest page. */
  reload(mode: "initial" | "latest"): void;
  dispatch: Dispatch<ListAction<Chat.BaseMessage>>;
}

export function useMessageList(o: {
  props: ChatMessageListProps;
  conv: ConversationRef | undefined;
  me: Chat.User | undefined;
  listenerId: string;
  report(err: unknown): Chat.ChatException;
  hooks: RefObject<ListHooks>;
}): MessageListModel {
  const { props, conv, me } = o;
  const [state, dispatch] = useReducer(listReducer<Chat.BaseMessage>, emptyState<Chat.BaseMessage>());
  const latest = useRef<Latest>(undefined as unknown as Latest);
  const gen = useRef(0);
  const scope = useRef(freshScope(false));
  const refs = useMemo<ListRefs>(() => ({ latest, gen, scope, dispatch }), []);

  const paging = usePaging(refs);
  const typing = useTyping();
  const marks = useReadMarks(refs);
  const { reset: resetPaging } = paging;
  const { clear: clearTyping } = typing;
  const loader = useLoad(refs, {
    loadKey: loadKey(props, conv, me),
    deliver: marks.deliver,
    reset: useMemo(() => () => (resetPaging(), clearTyping()), [resetPaging, clearTyping]),
  });
  latest.current = { state, status: loader.status, pagingError: paging.pagingError, props, conv, me, report: o.report };
  const { load, gate } = loader;
  useLiveSink(o.listenerId, !!conv && !!me, {
    refs, startTyping: typing.start, stopTyping: typing.stop, deliver: marks.deliver, load, ready: gate.ready, hooks: o.hooks,
  });

  const { gate: _gate, load: _load, ...loaded } = loader;
  const { reset: _reset, ...pages } = paging;
  return {
    ...loaded,
    ...pages,
    ...marks,
    state,
    // Without a user or group there is nothing to load: the list is empty, not loading.
    status: !conv && me ? "ready" : loader.status,
    typing: typing.typing,
    reload: useMemo(() => (mode: "initial" | "latest") => void load(mode), [load]),
    dispatch,
  };
}
