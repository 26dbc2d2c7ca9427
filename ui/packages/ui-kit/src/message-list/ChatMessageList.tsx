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
 */
import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { Chat } from "@agentry/chat-sdk";
import { MessageListAlignment, type ChatMessageTemplate } from "../types";
import { AgentView } from "./agent/AgentView";
import { AIFooter } from "./ai/AIFooter";
import { MessageBubble } from "./bubble/MessageBubble";
import { defaultTextFormatters } from "./bubble/formatters";
import { conversationOf, mergeLive, toChatException } from "./conversation";
import { DateSeparator, StickyDate, UnreadDivider } from "./DateSeparator";
import { StepsBlock } from "./agent/StepsBlock";
import { buildItems } from "./items";
import type { ChatMessageListProps } from "./props";
import { useScrollKeeper, type ScrollInfo } from "./scroll";
import { playSound } from "./sound";
import { messagesOf } from "./state";
import { useMessageList, type ListHooks } from "./useMessageList";
import { useVirtualWindow, type VirtualWindow } from "./virtual";
import { EmptyView, ErrorView, JumpToUnread, LoadingView, NewMessagesIndicator, typingText } from "./views";

const HIGHLIGHT_MS = 2500;
/** How long the pinned date stays after the last scroll. */
const STICKY_IDLE_MS = 1500;

const canMarkRead = () => document.visibilityState === "visible" && document.hasFocus();

export function ChatMessageList(props: ChatMessageListProps) {
  const listenerId = `chat-message-list-${useId()}`;
  const propsRef = useRef(props);
  propsRef.current = props;

  // onError gets every failure as a ChatException (null or absent: nobody is told).
  const report = useCallback((err: unknown) => {
    const e = toChatException(err);
    const onError = propsRef.current.onError;
    if (typeof onError === "function") {
      try {
        onError(e);
      } catch (cbErr) {
        console.error("ChatMessageList: onError failed", cbErr);
      }
    }
    return e;
  }, []);

  // The logged-in user decides which messages are outgoing.
  const [me, setMe] = useState<Chat.User>();
  const [meError, setMeError] = useState<Chat.ChatException>();
  const [meTry, setMeTry] = useState(0);
  useEffect(() => {
    let live = true;
    Chat.getLoggedinUser().then(
      (u) => {
        if (!live) return;
        if (u) {
          setMe(u);
          setMeError(undefined);
        } else setMeError(report(new Chat.ChatException("ERR_NOT_LOGGED_IN", "no user is logged in")));
      },
      (err: unknown) => live && setMeError(report(err)),
    );
    return () => {
      live = false;
    };
  }, [meTry, report]);

  const conv = useMemo(
    () => (me ? conversationOf(me.getUid(), props.user, props.group, props.parentMessageId) : undefined),
    [me, props.user, props.group, props.parentMessageId],
  );

  const [newCount, setNewCount] = useState(0);
  const hooks = useRef<ListHooks>({ appended: () => undefined, missed: () => undefined });
  const model = useMessageList({ props, conv, me, listenerId, report, hooks });
  const modelRef = useRef(model);
  modelRef.current = model;

  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const [atBottom, setAtBottom] = useState(true);
  const [stickyId, setStickyId] = useState<number>();
  const [stickyIdle, setStickyIdle] = useState(false);
  const [topId, setTopId] = useState<number>();
  // The first unread message was in view during this load: no more "Jump to first unread".
  const [unreadSeen, setUnreadSeen] = useState(false);
  // Whether an agent run is under way here (AgentView says): its last steps may be answered yet.
  const [agentRunning, setAgentRunning] = useState(false);
  const stickyTimer = useRef<number | undefined>(undefined);
  const lastTop = useRef(0);
  useEffect(() => () => window.clearTimeout(stickyTimer.current), []);
  const winRef = useRef<VirtualWindow>(undefined);
  const onInfo = useCallback((info: ScrollInfo) => {
    const m = modelRef.current;
    // The rendered window follows the view (the bottom while the list follows it).
    winRef.current?.update(info.atBottom && !m.state.hasNewer ? { kind: "bottom" } : { kind: "view" });
    setAtBottom(info.atBottom);
    if (info.atBottom && !m.state.hasNewer) setNewCount(0);
    // The pinned date shows while the top message's own separator is out of view, and fades
    // once scrolling stops, so it does not sit over the first message.
    setStickyId(info.atTop || info.topDateShown ? undefined : info.topId);
    setTopId(info.topId);
    const first = modelRef.current.firstUnreadId;
    if (first !== undefined && info.topId !== undefined && info.topId <= first) setUnreadSeen(true);
    if (Math.abs(info.scrollTop - lastTop.current) > 1) {
      lastTop.current = info.scrollTop;
      setStickyIdle(false);
      window.clearTimeout(stickyTimer.current);
      stickyTimer.current = window.setTimeout(() => setStickyIdle(true), STICKY_IDLE_MS);
    }
    if (info.nearTop) m.loadOlder();
    if (info.nearBottom) m.loadNewer();
    if (info.bottomId !== undefined && canMarkRead()) m.markReadUpTo(info.bottomId);
  }, []);
  const ready = model.status === "ready" && !!me;
  const keeper = useScrollKeeper({ scroller, content, active: ready, follow: () => !modelRef.current.state.hasNewer, onInfo });

  // Messages that arrive while the reader is up the list are not rendered (not in the window),
  // so the log does not announce them: this region does.
  // A second "New message from Bob" must change the region's text to be read again: the count
  // alternates a trailing no-break space.
  const [announcement, setAnnouncement] = useState({ text: "", n: 0 });
  const announce = (m: Chat.BaseMessage): void => {
    if (m.getCategory() === "action") return;
    const text = `New message from ${m.getSender()?.getName() ?? "someone"}`;
    setAnnouncement((a) => ({ text, n: a.n + 1 }));
  };
  hooks.current = {
    appended(m, mine) {
      const p = propsRef.current;
      if (mine || p.scrollToBottomOnNewMessages) keeper.stickNext();
      else if (!keeper.isAtBottom()) {
        setNewCount((n) => n + 1);
        announce(m);
      }
      if (!mine && m.getCategory() !== "action" && p.disableSoundForMessages === false) playSound(p.customSoundForMessages);
    },
    // Far up (the newest pages were let go): not loaded at all, so counted and announced here.
    missed(m, mine) {
      if (mine) modelRef.current.reload("latest"); // the reader's own message: show the present
      else {
        setNewCount((n) => n + 1);
        announce(m);
      }
      if (!mine && propsRef.current.disableSoundForMessages === false) playSound(propsRef.current.customSoundForMessages);
    },
  };

  // A new load starts at the bottom with nothing pending.
  useEffect(() => {
    if (model.status === "loading") {
      setNewCount(0);
      setUnreadSeen(false);
    }
  }, [model.status]);

  // goToMessageId / the first unread message: put it in view once per load, then keep.
  const applied = useRef(-1);
  const [highlightId, setHighlightId] = useState<number>();
  const [focusKey, setFocusKey] = useState<string>();
  useLayoutEffect(() => {
    // The heights of what is rendered size the spacers; keep() then holds the view in place.
    win.measure();
    const t = model.target;
    const s = scroller.current;
    if (ready && s && t && applied.current !== t.seq) {
      const el =
        (t.kind === "unread" ? s.querySelector<HTMLElement>("[data-unread-divider]") : null) ??
        s.querySelector<HTMLElement>(`[data-message-id="${t.id}"]`);
      if (el) {
        applied.current = t.seq;
        keeper.reveal(el, t.kind === "goto" ? "center" : "start");
        if (t.kind === "goto") setHighlightId(t.id);
        return;
      }
      // Not rendered yet: move the window to it; the next render reveals it.
      if (keys.includes(`m-${t.id}`)) win.update({ kind: "around", key: t.kind === "unread" && keys.includes("unread") ? "unread" : `m-${t.id}` }, true);
    }
    if (focusKey !== undefined && s) {
      const el = s.querySelector<HTMLElement>(`[data-message-id="${focusKey.slice(2)}"]`);
      if (el) {
        setFocusKey(undefined);
        el.focus();
        return;
      }
    }
    keeper.keep();
  });
  useEffect(() => {
    if (highlightId === undefined) return;
    const timer = setTimeout(() => setHighlightId(undefined), HIGHLIGHT_MS);
    return () => clearTimeout(timer);
  }, [highlightId]);

  // Coming back to the window marks what is on screen read.
  useEffect(() => {
    const again = () => keeper.onScroll();
    window.addEventListener("focus", again);
    document.addEventListener("visibilitychange", again);
    return () => {
      window.removeEventListener("focus", again);
      document.removeEventListener("visibilitychange", again);
    };
  }, [keeper]);

  const [translations, setTranslations] = useState<ReadonlyMap<number, string>>(new Map());
  const [editingId, setEditingId] = useState<number>();
  const [focusedId, setFocusedId] = useState<number>();
  const onTranslated = useCallback((id: number, text: string) => setTranslations((t) => new Map(t).set(id, text)), []);
  const onEdit = useCallback((m: Chat.BaseMessage) => setEditingId(m.getId()), []);
  const onEditDone = useCallback((edited?: Chat.BaseMessage) => {
    if (edited) modelRef.current.dispatch({ type: "update", id: edited.getId(), update: (old) => mergeLive(old, edited) });
    setEditingId(undefined);
  }, []);
  const onFeatureError = useCallback((err: unknown) => void report(err), [report]);

  const messages = useMemo(() => messagesOf(model.state), [model.state]);
  const items = useMemo(
    () =>
      buildItems(messages, {
        hideDateSeparator: !!props.hideDateSeparator,
        hideGroupActionMessages: !!props.hideGroupActionMessages,
        firstUnreadId: model.firstUnreadId,
        agentRunning,
      }),
    [messages, props.hideDateSeparator, props.hideGroupActionMessages, model.firstUnreadId, agentRunning],
  );
  const templates = useMemo(() => {
    const t = new Map<string, ChatMessageTemplate>();
    for (const x of props.templates ?? []) t.set(`${x.category}/${x.type}`, x);
    return t;
  }, [props.templates]);
  const keys = useMemo(() => items.map((it) => it.key), [items]);
  const win = useVirtualWindow({ keys, scroller, content });
  winRef.current = win;
  const formatters = props.textFormatters ?? defaultTextFormatters;
  let lastShownId: number | undefined;
  for (const it of items) if (it.kind === "message") lastShownId = it.message.getId();
  const tabStop = focusedId !== undefined && model.state.byId.has(focusedId) ? focusedId : lastShownId;
  const lastStored = [...messages].reverse().find((m) => !m.getDeletedAt() && m.getCategory() !== "action");
  const isEmpty = lastShownId === undefined;

  // Arrow keys move between messages (one tab stop for the whole list).
  // Messages outside the rendered window are brought in first, then focused.
  const messageKeys = useMemo(() => items.filter((it) => it.kind === "message").map((it) => it.key), [items]);
  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLDivElement>) => {
      const t = e.target as HTMLElement;
      if (!t.matches("[data-message-id]") || !content.current) return;
      const i = messageKeys.indexOf(`m-${t.dataset["messageId"]}`);
      if (i < 0) return;
      const key = { ArrowUp: messageKeys[i - 1], ArrowDown: messageKeys[i + 1], Home: messageKeys[0], End: messageKeys[messageKeys.length - 1] }[e.key];
      if (!key) return;
      e.preventDefault();
      const next = content.current.querySelector<HTMLElement>(`:scope > [data-message-id="${key.slice(2)}"]`);
      if (next) next.focus();
      else {
        winRef.current?.update({ kind: "around", key }, true);
        setFocusKey(key);
      }
    },
    [messageKeys],
  );

  const jumpDown = () => {
    setNewCount(0);
    if (model.state.hasNewer) model.reload("latest");
    else keeper.toBottom();
  };

  const error = meError ?? (model.status === "error" ? model.error : undefined);
  const retry = () => {
    if (meError || !me) setMeTry((n) => n + 1);
    else model.reload("initial");
  };

  let body;
  if (error) {
    body = props.hideError ? null : (props.errorView ?? <ErrorView error={error} onRetry={retry} />);
  } else if (!ready) {
    body = props.loadingView ?? <LoadingView />;
  } else if (isEmpty && !props.isAgentChat) {
    body = props.emptyView ?? <EmptyView />;
  } else {
    const stickyMessage = stickyId !== undefined ? model.state.byId.get(stickyId) : undefined;
    const label = !conv ? "Messages" : conv.parentId ? `Replies in the thread` : conv.type === "user" ? `Messages with ${conv.name}` : `Messages in ${conv.name}`;
    body = (
      <>
        {!unreadSeen && (model.unreadBefore || (model.firstUnreadId !== undefined && topId !== undefined && topId > model.firstUnreadId)) ? (
          <JumpToUnread onClick={model.jumpToUnread} />
        ) : !props.hideStickyDate && stickyMessage ? <StickyDate date={new Date(stickyMessage.getSentAt() * 1000)} format={props.stickyDateTimeFormat} idle={stickyIdle} /> : null}
        <div
          ref={scroller}
          className="chat-message-list__list"
          role="log"
          aria-live="polite"
          aria-label={label}
          aria-busy={model.loadingOlder || model.loadingNewer || undefined}
          onScroll={keeper.onScroll}
        >
          <div ref={content} className="chat-message-list__content" onKeyDown={onKeyDown}>
            {model.loadingOlder ? <div className="chat-message-list__loading-more" role="status" aria-label="Loading older messages" /> : null}
            {model.pagingError ? (
              <button type="button" className="chat-message-list__paging-retry" onClick={model.retryPaging}>
                Could not load more messages. Try again
              </button>
            ) : null}
            <div className="chat-message-list__spacer chat-message-list__spacer--top" style={{ height: win.range.top }} aria-hidden="true" />
            {items.slice(win.range.start, win.range.end).map((it) =>
              it.kind === "date" ? (
                <DateSeparator key={it.key} itemKey={it.key} date={it.date} format={props.separatorDateTimeFormat} />
              ) : it.kind === "unread" ? (
                <UnreadDivider key={it.key} itemKey={it.key} />
              ) : it.kind === "steps" ? (
                <StepsBlock key={it.key} itemKey={it.key} steps={it.steps} lastId={it.messages[it.messages.length - 1]!.getId()} noReply={it.noReply}
                  agentName={agentNameOf(it.messages, it.agentId, props.user)} />
              ) : (
                <MessageBubble
                  key={it.key}
                  message={it.message}
                  me={me!}
                  listProps={props}
                  isGroup={conv?.type === "group"}
                  inThread={!!conv?.parentId}
                  firstOfRun={it.firstOfRun}
                  toolCallsInSteps={!!it.toolCallsInSteps}
                  formatters={formatters}
                  template={templates.get(`${it.message.getCategory()}/${it.message.getType()}`)}
                  highlighted={highlightId === it.message.getId()}
                  tabbable={tabStop === it.message.getId()}
                  translation={translations.get(it.message.getId())}
                  editing={editingId === it.message.getId()}
                  onTranslated={onTranslated}
                  onEdit={onEdit}
                  onEditDone={onEditDone}
                  onError={onFeatureError}
                  onFocusMessage={setFocusedId}
                  onJumpTo={model.jumpTo}
                />
              ),
            )}
            <div className="chat-message-list__spacer chat-message-list__spacer--bottom" style={{ height: win.range.bottom }} aria-hidden="true" />
            {model.loadingNewer ? <div className="chat-message-list__loading-more" role="status" aria-label="Loading newer messages" /> : null}
            <AgentView props={props} user={props.user} group={props.group} loggedInUser={me!} isEmpty={isEmpty} onGrow={keeper.keep} onError={onFeatureError}
              onRunning={setAgentRunning} />
          </div>
        </div>
        {newCount > 0 && (!atBottom || model.state.hasNewer) ? <NewMessagesIndicator count={newCount} onClick={jumpDown} /> : null}
      </>
    );
  }

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
        {announcement.text === "" ? "" : announcement.text + (announcement.n % 2 === 0 ? "\u00a0" : "")}
      </div>
      <div className="chat-message-list__typing" role="status">
        {typing ? <span className="chat-message-list__typing-text">{typing}</span> : null}
      </div>
      <div className="chat-message-list__footer">
        {me && ready ? (
          <AIFooter props={props} user={props.user} group={props.group} loggedInUser={me} lastMessage={lastStored} isEmpty={isEmpty} onError={onFeatureError} />
        ) : null}
        {props.footerView}
      </div>
    </div>
  );
}

/** Who ran the steps: the agent's name from its own messages, else the chat's agent, else its id. */
function agentNameOf(messages: readonly Chat.AgenticMessage[], agentId: string | undefined, user: Chat.User | undefined): string {
  const own = messages.find((m) => m.getSender()?.getUid() === agentId)?.getSender()?.getName();
  return own || (user && user.getUid() === agentId ? user.getName() : "") || agentId || "The agent";
}
