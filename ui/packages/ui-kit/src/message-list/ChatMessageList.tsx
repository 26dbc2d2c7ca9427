/**
 * ChatMessageList: a scrollable, real-time message feed of a one-to-one conversation (`user`),
 * a group (`group`) or a thread (`parentMessageId`), backed by @agentry/chat-sdk.
 *
 * - Loads the newest page (or the page around `goToMessageId`, or around the first unread
 *   message with `startFromUnreadMessages`), older pages when the reader scrolls up — keeping
 *   the first visible message in place — and newer pages after a jump into the past.
 * - Follows new messages while the reader is at the bottom (always with
 *   `scrollToBottomOnNewMessages`); otherwise a "N new messages" button jumps down.
 * - Live: new messages, edits, deletions (tombstones), moderation, receipts, reactions, typing,
 *   group actions and thread reply counts, from the SDK's listeners and the composer's
 *   ChatMessageEvents. Incoming messages on screen are marked read while the window has focus.
 * - Agent chat (`isAgentChat`): with `loadLastAgentConversation` the conversation's history
 *   loads as usual; without it the list starts empty and shows only what is said from now on
 *   (the agent's greeting and suggestions come from AgentView).
 *
 * Thread replies never show in the main list (the default builder hides them; live replies
 * only move their root's reply count). Errors reach `onError` as a ChatException; the error
 * view (default or `errorView`) shows unless `hideError`.
 *
 * Built from named hooks: the data (useMessageList), scrolling (hooks/useListScroll), arrivals
 * (hooks/useArrivals), the announcer, the scroll target, roving focus and the bubbles' context.
 */
import { useCallback, useId, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { Chat } from "@agentry/chat-sdk";
import { reporter, useLoggedInUser } from "../base/useLoggedInUser";
import { MessageListAlignment } from "../types";
import { AIFooter } from "./ai/AIFooter";
import { useMessageListValue } from "./context";
import { conversationOf, mergeLive } from "./conversation";
import { useAnnouncer } from "./hooks/useAnnouncer";
import { useArrivals } from "./hooks/useArrivals";
import { useListScroll } from "./hooks/useListScroll";
import { useRovingFocus } from "./hooks/useRovingFocus";
import { useScrollTarget } from "./hooks/useScrollTarget";
import { buildItems } from "./items";
import { MessageLog } from "./MessageLog";
import type { ChatMessageListProps } from "./props";
import type { ScrollKeeper } from "./scroll";
import { messagesOf } from "./state";
import { useMessageList, type MessageListModel } from "./useMessageList";
import { useVirtualWindow, type VirtualWindow } from "./virtual";
import { EmptyView, ErrorView, LoadingView, typingText } from "./views";

export function ChatMessageList(props: ChatMessageListProps) {
  const v = useMessageListView(props);
  const { model, me, ready } = v;
  const error = v.meError ?? (model.status === "error" ? model.error : undefined);
  let body;
  if (error) body = props.hideError ? null : (props.errorView ?? <ErrorView error={error} onRetry={v.retry} />);
  else if (!ready) body = props.loadingView ?? <LoadingView />;
  else if (v.isEmpty && !props.isAgentChat) body = props.emptyView ?? <EmptyView />;
  else body = <MessageLog view={v} props={props} />;
  const typing = typingText(model.typing);
  const cls =
    "chat-message-list" +
    (props.showScrollbar ? " chat-message-list--scrollbar" : "") +
    (props.messageAlignment === MessageListAlignment.left ? " chat-message-list--align-left" : "");
  return (
    <div className={cls}>
      {props.headerView ? <div className="chat-message-list__header">{props.headerView}</div> : null}
      <div className="chat-message-list__body">{body}</div>
      <div className="chat-message-list__announcer" role="status">
        {v.announcement}
      </div>
      <div className="chat-message-list__typing" role="status">
        {typing ? <span className="chat-message-list__typing-text">{typing}</span> : null}
      </div>
      <div className="chat-message-list__footer">
        {me && ready ? (
          <AIFooter props={props} user={props.user} group={props.group} loggedInUser={me} lastMessage={v.lastStored} isEmpty={v.isEmpty} onError={v.onFeatureError} />
        ) : null}
        {props.footerView}
      </div>
    </div>
  );
}

export type MessageListView = ReturnType<typeof useMessageListView>;

/** Every hook of the list, composed: what the frame and the log render. */
function useMessageListView(props: ChatMessageListProps) {
  const listenerId = `chat-message-list-${useId()}`;
  const propsRef = useRef(props);
  propsRef.current = props;
  // onError gets every failure as a ChatException (null or absent: nobody is told).
  const report = useMemo(() => reporter(() => propsRef.current.onError, "ChatMessageList"), []);
  // The logged-in user decides which messages are outgoing.
  const { user: me, error: meError, retry: retryMe } = useLoggedInUser(report);
  const conv = useMemo(
    () => (me ? conversationOf(me.getUid(), props.user, props.group, props.parentMessageId) : undefined),
    [me, props.user, props.group, props.parentMessageId],
  );
  const announcer = useAnnouncer();
  const keeperRef = useRef<ScrollKeeper>(undefined);
  const modelRef = useRef<MessageListModel>(undefined);
  const arrivals = useArrivals({ props, keeper: keeperRef, reloadLatest: () => modelRef.current?.reload("latest"), announce: announcer.announce });
  const model = useMessageList({ props, conv, me, listenerId, report, hooks: arrivals.hooks });
  modelRef.current = model;
  const ready = model.status === "ready" && !!me;
  const winRef = useRef<VirtualWindow>(undefined);
  const scroll = useListScroll({ model, ready, win: winRef, clearNew: arrivals.clearNew });
  keeperRef.current = scroll.keeper;
  // Whether an agent run is under way here (AgentView says): its last steps may be answered yet.
  const [agentRunning, setAgentRunning] = useState(false);
  const messages = useMemo(() => messagesOf(model.state), [model.state]);
  const items = useMemo(
    () => buildItems(messages, { hideDateSeparator: !!props.hideDateSeparator, hideGroupActionMessages: !!props.hideGroupActionMessages, firstUnreadId: model.firstUnreadId, agentRunning }),
    [messages, props.hideDateSeparator, props.hideGroupActionMessages, model.firstUnreadId, agentRunning],
  );
  const keys = useMemo(() => items.map((it) => it.key), [items]);
  const win = useVirtualWindow({ keys, scroller: scroll.scroller, content: scroll.content });
  winRef.current = win;
  let lastShownId: number | undefined;
  for (const it of items) if (it.kind === "message") lastShownId = it.message.getId();
  const focus = useRovingFocus({ items, content: scroll.content, win: winRef, lastShownId, isLoaded: (id) => model.state.byId.has(id) });
  const target = useScrollTarget({ target: model.target, ready, scroller: scroll.scroller, keeper: scroll.keeper, win, keys });
  useLayoutEffect(() => {
    // The heights of what is rendered size the spacers; keep() then holds the view in place.
    win.measure();
    if (!target.apply() && !focus.apply(scroll.scroller.current)) scroll.keeper.keep();
  });
  const bubbles = useBubbleState(model, report, focus.onFocusMessage);
  return {
    props, me, meError, conv, model, ready, scroll, arrivals, items, win, focus, bubbles, setAgentRunning,
    announcement: announcer.text,
    highlightId: target.highlightId,
    isEmpty: lastShownId === undefined,
    lastStored: [...messages].reverse().find((m) => !m.getDeletedAt() && m.getCategory() !== "action"),
    onFeatureError: bubbles.onError,
    retry: () => (meError || !me ? retryMe() : model.reload("initial")),
    context: useMessageListValue(props, me, conv, bubbles),
  };
}

/** The bubbles' own view state (translations, the one being edited) and the callbacks they share. */
function useBubbleState(model: MessageListModel, report: (err: unknown) => unknown, onFocusMessage: (id: number) => void) {
  const [translations, setTranslations] = useState<ReadonlyMap<number, string>>(new Map());
  const [editingId, setEditingId] = useState<number>();
  const { dispatch } = model;
  return {
    translations,
    editingId,
    onFocusMessage,
    onJumpTo: model.jumpTo,
    onTranslated: useCallback((id: number, text: string) => setTranslations((t) => new Map(t).set(id, text)), []),
    onEdit: useCallback((m: Chat.BaseMessage) => setEditingId(m.getId()), []),
    onEditDone: useCallback((edited?: Chat.BaseMessage) => {
      if (edited) dispatch({ type: "update", id: edited.getId(), update: (old) => mergeLive(old, edited) });
      setEditingId(undefined);
    }, [dispatch]),
    onError: useCallback((err: unknown) => void report(err), [report]),
  };
}
