/**
 * The message list's data: pages from the request builder (the newest page, or the page
 * around goToMessageId / the first unread message), older and newer pages on demand, and every
 * live change folded in through the list reducer (state.ts), which keeps messages unique by id
 * whatever order pages and events arrive in. Scrolling is the component's; this hook tells it
 * what happened through `hooks`.
 */
import { useCallback, useEffect, useMemo, useReducer, useRef, useState, type Dispatch, type RefObject } from "react";
import { Chat } from "@agentry/chat-sdk";
import { useReadyGate } from "../base/socketReady";
import { ChatMessageEvents } from "../events";
import {
  aroundEnds,
  applyReceipt,
  belongs,
  builderKey,
  isOutgoing,
  makeBuilder,
  mayHaveMore,
  mergeLive,
  unreadWatermark,
  withReplyCount,
  type ConversationRef,
} from "./conversation";
import { useLiveEvents, type LiveSink } from "./live";
import type { ChatMessageListProps } from "./props";
import { emptyState, listReducer, type ListAction, type ListState } from "./state";

export type LoadStatus = "loading" | "ready" | "error";

/** Where to put the view after a load: the goToMessageId message or the first unread one. */
export interface ScrollTarget {
  id: number;
  kind: "goto" | "unread";
  /** Changes with every load, so the same target after a reload is applied again. */
  seq: number;
}

export interface ListHooks {
  /** A live message was added after the last one shown. */
  appended(m: Chat.BaseMessage, mine: boolean): void;
  /** A live message arrived while the newest messages are not loaded (it comes with them). */
  missed(m: Chat.BaseMessage, mine: boolean): void;
}

export interface MessageListModel {
  state: ListState<Chat.BaseMessage>;
  status: LoadStatus;
  error: Chat.ChatException | undefined;
  loadingOlder: boolean;
  loadingNewer: boolean;
  /** Loading an older or newer page failed; paging waits for retryPaging(). */
  pagingError: Chat.ChatException | undefined;
  firstUnreadId: number | undefined;
  /** showUnreadDivider: the unread messages start before the loaded page (jumpToUnread loads there). */
  unreadBefore: boolean;
  target: ScrollTarget | undefined;
  /** Who is typing in the conversation now. */
  typing: Chat.User[];
  loadOlder(): void;
  loadNewer(): void;
  retryPaging(): void;
  /** Loads again: "initial" honours goToMessageId / startFromUnreadMessages, "latest" the newest page. */
  reload(mode: "initial" | "latest"): void;
  /** Puts a message in view and highlights it (a quoted message): at once when it is loaded,
   * else after loading the page around it. */
  jumpTo(id: number): void;
  /** Puts the first unread message (its divider) at the top of the view. */
  jumpToUnread(): void;
  /** Marks read up to the newest incoming message at or before id (the newest one visible). */
  markReadUpTo(id: number): void;
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
  const [status, setStatus] = useState<LoadStatus>("loading");
  const [error, setError] = useState<Chat.ChatException>();
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [loadingNewer, setLoadingNewer] = useState(false);
  const [pagingError, setPagingError] = useState<Chat.ChatException>();
  const [firstUnreadId, setFirstUnreadId] = useState<number>();
  const [unreadBefore, setUnreadBefore] = useState(false);
  const unreadFrom = useRef(0);
  const [target, setTarget] = useState<ScrollTarget>();
  const [typingMap, setTypingMap] = useState<ReadonlyMap<string, Chat.User>>(new Map());

  // Callbacks read these refs, not render closures: SDK listeners and async page loads outlive
  // the render they were made in.
  const latest = useRef({ state, status, pagingError, props, conv, me, report: o.report });
  latest.current = { state, status, pagingError, props, conv, me, report: o.report };
  const gen = useRef(0);
  // The first load waits for a connecting socket (see useReadyGate).
  const gate = useReadyGate();
  const gateRef = useRef(gate);
  gateRef.current = gate;
  const request = useRef<{ req: Chat.MessagesRequest; builder: Chat.MessagesRequestBuilder } | undefined>(undefined);
  const busy = useRef({ older: false, newer: false });
  const seen = useRef(new Set<number>());
  const countedReplies = useRef(new Set<number>());
  const droppedReplies = useRef(new Set<number>());
  const lastMarked = useRef(0);
  const jumps = useRef(0);
  const duringLoad = useRef<Chat.BaseMessage[]>([]);
  // Set from the start of a load until its page is in the state (a ref: events arrive between renders).
  const loading = useRef(false);

  // Incoming messages the list received count as delivered (a watermark: the newest is enough).
  const deliver = useCallback((m: Chat.BaseMessage | undefined) => {
    if (!m || m.getDeliveredAt() !== undefined || m.getCategory() === "action" || !m.getId()) return;
    Chat.markAsDelivered(m).catch((err: unknown) => latest.current.report(err));
  }, []);

  const load = useCallback(async (mode: "initial" | "latest" | { around: number; unread?: boolean }) => {
    const { conv: c, me: user, props: p } = latest.current;
    const my = ++gen.current;
    request.current = undefined;
    busy.current = { older: false, newer: false };
    seen.current.clear();
    duringLoad.current = [];
    loading.current = true;
    countedReplies.current.clear();
    droppedReplies.current.clear();
    lastMarked.current = 0;
    setTypingMap(new Map());
    setStatus("loading");
    setError(undefined);
    setPagingError(undefined);
    setLoadingOlder(false);
    setLoadingNewer(false);
    if (!c || !user) {
      loading.current = false;
      return;
    }
    try {
      const builder = makeBuilder(p.messagesRequestBuilder, c);
      if (p.isAgentChat && !p.loadLastAgentConversation) {
        // A fresh agent conversation: nothing from before, only what is said from now on.
        dispatch({ type: "reset", messages: [], hasOlder: false, hasNewer: false });
        setFirstUnreadId(undefined);
        setTarget(undefined);
        setStatus("ready");
        return;
      }
      let anchor = 0;
      let kind: ScrollTarget["kind"] | undefined;
      // showUnreadDivider: where the unread messages start, the page still the newest.
      let dividerAt = 0;
      const goTo = typeof mode === "object" ? mode.around : Number(p.goToMessageId);
      if (typeof mode === "object" || (mode === "initial" && p.goToMessageId && Number.isFinite(goTo) && goTo > 0)) {
        anchor = goTo;
        kind = typeof mode === "object" && mode.unread ? "unread" : "goto";
      } else if (mode === "initial" && p.showUnreadDivider && !p.startFromUnreadMessages && !c.parentId) {
        const w = await unreadWatermark(c);
        if (my !== gen.current) return;
        if (w && w.unread > 0) dividerAt = w.lastRead + 1;
      } else if (mode === "initial" && p.startFromUnreadMessages && !c.parentId) {
        const w = await unreadWatermark(c);
        if (my !== gen.current) return;
        if (w && w.unread > 0) {
          anchor = w.lastRead + 1;
          kind = "unread";
        }
      }
      let page: Chat.BaseMessage[];
      let ends: { hasOlder: boolean; hasNewer: boolean };
      if (anchor) {
        builder.setMessageId(anchor);
        const req = builder.build();
        request.current = { req, builder };
        page = await req.fetchAround();
        ends = aroundEnds(page, anchor, builder);
      } else {
        const req = builder.build();
        request.current = { req, builder };
        page = await req.fetchPrevious();
        ends = { hasOlder: mayHaveMore(page, builder), hasNewer: false };
      }
      if (my !== gen.current) return;
      // Live messages that arrived while the page loaded and are newer than it (when the page
      // reaches the present) join it.
      const newest = page.reduce((n, m) => Math.max(n, m.getId()), 0);
      const arrived = ends.hasNewer ? [] : duringLoad.current.filter((m) => m.getId() > newest);
      duringLoad.current = [];
      const all = arrived.length ? [...page, ...[...new Map(arrived.map((m) => [m.getId(), m])).values()].sort((a, b) => a.getId() - b.getId())] : page;
      dispatch({ type: "reset", messages: all, ...ends });
      loading.current = false;
      const me2 = user.getUid();
      deliver(all.filter((m) => !isOutgoing(m, me2)).at(-1));
      const from = kind === "unread" ? anchor : dividerAt;
      const unread = from ? page.find((m) => m.getId() >= from && !isOutgoing(m, me2) && m.getCategory() !== "action") : undefined;
      setFirstUnreadId(unread?.getId());
      unreadFrom.current = dividerAt;
      setUnreadBefore(!!dividerAt && !unread && ends.hasOlder && (page[0]?.getId() ?? 0) > dividerAt);
      const targetId = kind === "goto" ? (page.some((m) => m.getId() === anchor) ? anchor : undefined) : unread?.getId();
      setTarget(targetId !== undefined && kind ? { id: targetId, kind, seq: my } : undefined);
      setStatus("ready");
    } catch (err) {
      if (my !== gen.current) return;
      setError(latest.current.report(err));
      setStatus("error");
    } finally {
      // Every way out of the newest load (a fresh agent chat, no conversation, an error) ends the
      // buffering; a superseded load leaves it to the newer one.
      if (my === gen.current) {
        loading.current = false;
        duringLoad.current = [];
      }
    }
  }, [deliver]);

  const key = conv && me
    ? [conv.conversationId, conv.parentId, builderKey(props.messagesRequestBuilder), props.goToMessageId ?? "", !!props.startFromUnreadMessages, !!props.showUnreadDivider,
        !!props.isAgentChat, !!props.loadLastAgentConversation, me.getUid()].join("|")
    : "";
  useEffect(() => {
    if (!key || !gate.open) return;
    void load("initial");
    return () => {
      gen.current++; // answers of this conversation's requests are dropped from now on
    };
  }, [key, load, gate.open]);

  const page = useCallback(async (dir: "older" | "newer") => {
    const r = request.current;
    const s = latest.current.state;
    if (!r || busy.current[dir] || latest.current.pagingError || latest.current.status !== "ready") return;
    if (dir === "older" ? !s.hasOlder : !s.hasNewer) return;
    const my = gen.current;
    busy.current[dir] = true;
    const setLoading = dir === "older" ? setLoadingOlder : setLoadingNewer;
    setLoading(true);
    try {
      // Each page is asked for from the loaded end itself, not from the request's own cursor:
      // the list lets the far end go (state.ts MAX_LOADED), so what was fetched once may have to
      // be fetched again.
      const end = dir === "older" ? s.ids[0] : s.ids[s.ids.length - 1];
      const req = end === undefined ? r.req : r.builder.setMessageId(end).build();
      const msgs = dir === "older" ? await req.fetchPrevious() : await req.fetchNext();
      if (my !== gen.current) return;
      if (dir === "older") dispatch({ type: "older", messages: msgs, hasOlder: mayHaveMore(msgs, r.builder) });
      else dispatch({ type: "newer", messages: msgs, hasNewer: mayHaveMore(msgs, r.builder) });
    } catch (err) {
      if (my === gen.current) setPagingError(latest.current.report(err));
    } finally {
      if (my === gen.current) {
        busy.current[dir] = false;
        setLoading(false);
      }
    }
  }, []);

  const markReadUpTo = useCallback((upTo: number) => {
    const { state: s, me: user } = latest.current;
    if (!user) return;
    const uid = user.getUid();
    let m: Chat.BaseMessage | undefined;
    for (let i = s.ids.length - 1; i >= 0; i--) {
      const id = s.ids[i]!;
      if (id > upTo) continue;
      if (id <= lastMarked.current) break;
      const x = s.byId.get(id)!;
      if (!isOutgoing(x, uid) && x.getCategory() !== "action" && !x.getDeletedAt()) {
        m = x;
        break;
      }
    }
    if (!m) return;
    lastMarked.current = m.getId();
    if (m.getReadAt() !== undefined) return; // read before (another session, an earlier visit)
    const at = Date.now() / 1000;
    const upToId = m.getId();
    dispatch({
      type: "updateAll",
      update: (x) => {
        if (x.getId() > upToId || x.getReadAt() !== undefined || isOutgoing(x, uid)) return x;
        const c = x.clone();
        c.setReadAt(at);
        return c;
      },
    });
    Chat.markAsRead(m).catch((err: unknown) => latest.current.report(err));
    ChatMessageEvents.ccMessageRead.next(m);
  }, []);

  const sink = useRef<LiveSink>(undefined as unknown as LiveSink);
  sink.current = useMemo<LiveSink>(() => {
    const ctx = () => {
      const { conv: c, me: user, state: s } = latest.current;
      return c && user ? { c, uid: user.getUid(), s } : undefined;
    };
    const known = (s: ListState<Chat.BaseMessage>, id: number) => s.byId.has(id) || seen.current.has(id);
    const dropTyping = (uid: string | undefined) => {
      if (uid) setTypingMap((t) => (t.has(uid) ? new Map([...t].filter(([k]) => k !== uid)) : t));
    };
    const add = (m: Chat.BaseMessage) => {
      const x = ctx();
      if (!x || !belongs(m, x.c, x.uid)) return;
      const id = m.getId();
      if (!id) return; // not stored yet: the stored copy follows
      const parent = m.getParentMessageId();
      if (!x.c.parentId && parent) {
        // A thread reply: the main list shows it as its root's reply count.
        if (!countedReplies.current.has(id)) {
          countedReplies.current.add(id);
          dispatch({ type: "update", id: parent, update: (p) => withReplyCount(p, 1) });
        }
        return;
      }
      if (x.c.parentId && parent !== x.c.parentId) return;
      if (loading.current) {
        // The page being loaded may have been read before this message was stored: keep it
        // for the load to add, or the reset would drop it (a silent gap).
        duringLoad.current.push(m);
        return;
      }
      if (known(x.s, id)) {
        dispatch({ type: "update", id, update: (old) => mergeLive(old, m) });
        return;
      }
      seen.current.add(id);
      dropTyping(m.getSender()?.getUid());
      const mine = isOutgoing(m, x.uid);
      if (x.s.hasNewer) {
        o.hooks.current?.missed(m, mine);
        return;
      }
      dispatch({ type: "upsert", message: m });
      if (!mine) deliver(m);
      o.hooks.current?.appended(m, mine);
    };
    return {
      message: add,
      changed(m, kind) {
        const x = ctx();
        if (!x || !belongs(m, x.c, x.uid)) return;
        const id = m.getId();
        const parent = m.getParentMessageId();
        if (kind === "deleted" && !x.c.parentId && parent) {
          // A thread reply: the service no longer counts it, nor does the root here.
          if (!droppedReplies.current.has(id)) {
            droppedReplies.current.add(id);
            dispatch({ type: "update", id: parent, update: (p) => withReplyCount(p, -1) });
          }
          return;
        }
        if (kind === "deleted" && request.current && !request.current.builder.deleted) {
          dispatch({ type: "remove", id });
        } else if (known(x.s, id)) {
          dispatch({ type: "update", id, update: (old) => mergeLive(old, m) });
        } else if (kind === "moderated" && m.getModerationStatus() === "approved") {
          add(m); // approved: the others see it for the first time
        }
      },
      receipt(r) {
        const x = ctx();
        if (!x || r.getConversationId() !== x.c.conversationId) return;
        dispatch({ type: "updateAll", update: (m) => applyReceipt(m, r, x.uid, x.c.type === "group") });
      },
      markedUnread(r) {
        const x = ctx();
        if (!x || r.getConversationId() !== x.c.conversationId) return;
        // The reader chose to keep these unread: do not mark them read again because they are
        // on screen; only newer messages are marked from now on.
        lastMarked.current = Math.max(lastMarked.current, x.s.ids[x.s.ids.length - 1] ?? 0);
        const from = r.getMessageId();
        dispatch({
          type: "updateAll",
          update: (m) => {
            if (m.getId() < from || m.getReadAt() === undefined || isOutgoing(m, x.uid)) return m;
            const c = m.clone();
            c.setReadAt(undefined);
            return c;
          },
        });
      },
      reaction(e, change) {
        const x = ctx();
        if (!x || e.getConversationId() !== x.c.conversationId) return;
        dispatch({ type: "update", id: e.getMessageId(), update: (m) => Chat.updateMessageWithReactionInfo(m, e, change, x.uid) });
      },
      typing(t, started) {
        const x = ctx();
        const who = t.getSender();
        if (!x || !who || x.c.parentId || t.getConversationId() !== x.c.conversationId || who.getUid() === x.uid) return;
        const uid = who.getUid();
        if (started) setTypingMap((m) => new Map([...m, [uid, who]]));
        else dropTyping(uid);
      },
      action(a) {
        const x = ctx();
        if (!x || x.c.type !== "group" || x.c.parentId || !a.getId()) return;
        add(a);
      },
      connected() {
        // Missed events are replayed on reconnect; a list that failed to load reloads, and so
        // does one loaded before the socket was first ready (a session's first socket starts
        // after its ready frame: what changed between the load and then was never sent).
        const again = gateRef.current.ready();
        if (latest.current.status === "error" || again) void load("initial");
      },
      reset() {
        void load("latest");
      },
    };
  }, [load, deliver, o.hooks]);

  useLiveEvents(o.listenerId, sink, !!conv && !!me);

  const typing = useMemo(() => [...typingMap.values()], [typingMap]);
  return {
    state,
    // Without a user or group there is nothing to load: the list is empty, not loading.
    status: !conv && me ? "ready" : status,
    error,
    loadingOlder,
    loadingNewer,
    pagingError,
    firstUnreadId,
    unreadBefore,
    target,
    typing,
    loadOlder: useCallback(() => void page("older"), [page]),
    loadNewer: useCallback(() => void page("newer"), [page]),
    retryPaging: useCallback(() => setPagingError(undefined), []),
    reload: useCallback((mode: "initial" | "latest") => void load(mode), [load]),
    jumpTo: useCallback(
      (id: number) => {
        // Its own sequence: taking a load generation would drop a page load in flight.
        if (latest.current.state.byId.has(id)) setTarget({ id, kind: "goto", seq: 1e9 + ++jumps.current });
        else void load({ around: id });
      },
      [load],
    ),
    jumpToUnread: useCallback(() => {
      if (firstUnreadId !== undefined) setTarget({ id: firstUnreadId, kind: "unread", seq: 1e9 + ++jumps.current });
      else if (unreadFrom.current) void load({ around: unreadFrom.current, unread: true });
    }, [firstUnreadId, load]),
    markReadUpTo,
    dispatch,
  };
}
