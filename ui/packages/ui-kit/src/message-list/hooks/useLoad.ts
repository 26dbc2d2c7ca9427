/**
 * Loading the conversation: the newest page, or the page around goToMessageId / the first
 * unread message, again on demand (reload, a jump to a message that is not loaded). Each load
 * starts a fresh LoadScope and generation; live messages that arrive while it loads join its page.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { Chat } from "@agentry/chat-sdk";
import { useReadyGate, type ReadyGate } from "../../base/socketReady";
import { aroundEnds, builderKey, isOutgoing, makeBuilder, mayHaveMore, unreadWatermark, type ConversationRef } from "../conversation";
import type { ChatMessageListProps } from "../props";
import { freshScope, type ListRefs, type LoadScope, type LoadStatus } from "./refs";

/** Where to put the view after a load: the goToMessageId message or the first unread one. */
export interface ScrollTarget {
  id: number;
  kind: "goto" | "unread";
  /** Changes with every load, so the same target after a reload is applied again. */
  seq: number;
}

export type LoadMode = "initial" | "latest" | { around: number; unread?: boolean };

interface Start {
  /** The message the page is around (0: the newest page). */
  anchor: number;
  kind?: ScrollTarget["kind"];
  /** showUnreadDivider: where the unread messages start, the page still the newest. */
  dividerAt: number;
}

/** Where a load starts: goToMessageId (or a jump), the first unread message, or the newest page. */
async function startOf(mode: LoadMode, p: ChatMessageListProps, c: ConversationRef): Promise<Start> {
  const goTo = typeof mode === "object" ? mode.around : Number(p.goToMessageId);
  if (typeof mode === "object" || (mode === "initial" && p.goToMessageId && Number.isFinite(goTo) && goTo > 0)) {
    return { anchor: goTo, kind: typeof mode === "object" && mode.unread ? "unread" : "goto", dividerAt: 0 };
  }
  if (mode !== "initial" || c.parentId || !(p.startFromUnreadMessages || p.showUnreadDivider)) return { anchor: 0, dividerAt: 0 };
  const w = await unreadWatermark(c);
  if (!w || w.unread <= 0) return { anchor: 0, dividerAt: 0 };
  return p.startFromUnreadMessages ? { anchor: w.lastRead + 1, kind: "unread", dividerAt: 0 } : { anchor: 0, dividerAt: w.lastRead + 1 };
}

/** The load's page (around the anchor, or the newest) and whether more lies each way. */
async function firstPage(builder: Chat.MessagesRequestBuilder, anchor: number, sc: LoadScope) {
  if (anchor) builder.setMessageId(anchor);
  const req = builder.build();
  sc.request = { req, builder };
  if (anchor) {
    const page = await req.fetchAround();
    return { page, ends: aroundEnds(page, anchor, builder) };
  }
  const page = await req.fetchPrevious();
  return { page, ends: { hasOlder: mayHaveMore(page, builder), hasNewer: false } };
}

/** The page with the live messages that arrived while it loaded and are newer than it (when it reaches the present). */
function withArrived(page: Chat.BaseMessage[], hasNewer: boolean, arrived: Chat.BaseMessage[]): Chat.BaseMessage[] {
  const newest = page.reduce((n, m) => Math.max(n, m.getId()), 0);
  const later = hasNewer ? [] : arrived.filter((m) => m.getId() > newest);
  if (!later.length) return page;
  return [...page, ...[...new Map(later.map((m) => [m.getId(), m])).values()].sort((a, b) => a.getId() - b.getId())];
}

export type Loader = ReturnType<typeof useLoad>;

/** What a load depends on: a change loads again ("" while there is no conversation). */
export function loadKey(props: ChatMessageListProps, conv: ConversationRef | undefined, me: Chat.User | undefined): string {
  if (!conv || !me) return "";
  return [conv.conversationId, conv.parentId, builderKey(props.messagesRequestBuilder), props.goToMessageId ?? "", !!props.startFromUnreadMessages,
    !!props.showUnreadDivider, !!props.isAgentChat, !!props.loadLastAgentConversation, me.getUid()].join("|");
}

export function useLoad(refs: ListRefs, o: { loadKey: string; reset(): void; deliver(m: Chat.BaseMessage | undefined): void }) {
  const { latest, gen, scope, dispatch } = refs;
  const [status, setStatus] = useState<LoadStatus>("loading");
  const [error, setError] = useState<Chat.ChatException>();
  const [firstUnreadId, setFirstUnreadId] = useState<number>();
  // showUnreadDivider: the unread messages start before the loaded page (jumpToUnread loads there).
  const [unreadBefore, setUnreadBefore] = useState(false);
  const unreadFrom = useRef(0);
  const [target, setTarget] = useState<ScrollTarget>();
  const { reset, deliver } = o;

  /** The page is in: receipts, the unread divider and the target follow from it. */
  const settle = useCallback((page: Chat.BaseMessage[], all: Chat.BaseMessage[], hasOlder: boolean, start: Start, my: number, uid: string) => {
    deliver(all.filter((m) => !isOutgoing(m, uid)).at(-1));
    const from = start.kind === "unread" ? start.anchor : start.dividerAt;
    const unread = from ? page.find((m) => m.getId() >= from && !isOutgoing(m, uid) && m.getCategory() !== "action") : undefined;
    setFirstUnreadId(unread?.getId());
    unreadFrom.current = start.dividerAt;
    setUnreadBefore(!!start.dividerAt && !unread && hasOlder && (page[0]?.getId() ?? 0) > start.dividerAt);
    const targetId = start.kind === "goto" ? (page.some((m) => m.getId() === start.anchor) ? start.anchor : undefined) : unread?.getId();
    setTarget(targetId !== undefined && start.kind ? { id: targetId, kind: start.kind, seq: my } : undefined);
    setStatus("ready");
  }, [deliver]);

  const load = useCallback(async (mode: LoadMode) => {
    const { conv: c, me: user, props: p } = latest.current;
    const my = ++gen.current;
    const sc = (scope.current = freshScope(true));
    reset();
    setStatus("loading");
    setError(undefined);
    try {
      if (!c || !user) return;
      if (p.isAgentChat && !p.loadLastAgentConversation) {
        // A fresh agent conversation: nothing from before, only what is said from now on.
        dispatch({ type: "reset", messages: [], hasOlder: false, hasNewer: false });
        setFirstUnreadId(undefined);
        setTarget(undefined);
        setStatus("ready");
        return;
      }
      const start = await startOf(mode, p, c);
      if (my !== gen.current) return;
      const { page, ends } = await firstPage(makeBuilder(p.messagesRequestBuilder, c), start.anchor, sc);
      if (my !== gen.current) return;
      const all = withArrived(page, ends.hasNewer, sc.duringLoad);
      sc.duringLoad = [];
      dispatch({ type: "reset", messages: all, ...ends });
      sc.loading = false;
      settle(page, all, ends.hasOlder, start, my, user.getUid());
    } catch (err) {
      if (my !== gen.current) return;
      setError(latest.current.report(err));
      setStatus("error");
    } finally {
      // Every way out of the newest load (a fresh agent chat, no conversation, an error) ends the
      // buffering; a superseded load leaves it to the newer one.
      if (my === gen.current) {
        sc.loading = false;
        sc.duringLoad = [];
      }
    }
  }, [latest, gen, scope, dispatch, reset, settle]);

  const gate = useFirstLoad(o.loadKey, load, gen);
  return { status, error, firstUnreadId, unreadBefore, target, gate, load, ...useJumps(latest, load, firstUnreadId, unreadFrom, setTarget) };
}

/** The first load, when the conversation (key) is known; it waits for a connecting socket (see useReadyGate). */
function useFirstLoad(key: string, load: (mode: LoadMode) => Promise<void>, gen: ListRefs["gen"]): ReadyGate {
  const gate = useReadyGate();
  useEffect(() => {
    if (!key || !gate.open) return;
    void load("initial");
    return () => {
      gen.current++; // answers of this conversation's requests are dropped from now on
    };
  }, [key, load, gate.open, gen]);
  return gate;
}

/** jumpTo puts a message in view and highlights it (a quoted message): at once when it is loaded,
 * else after loading the page around it; jumpToUnread puts the first unread message (its divider)
 * at the top of the view. */
function useJumps(latest: ListRefs["latest"], load: (mode: LoadMode) => Promise<void>, firstUnreadId: number | undefined, unreadFrom: { current: number }, setTarget: (t: ScrollTarget) => void) {
  const jumps = useRef(0);
  return {
    jumpTo: useCallback((id: number) => {
      // Its own sequence: taking a load generation would drop a page load in flight.
      if (latest.current.state.byId.has(id)) setTarget({ id, kind: "goto", seq: 1e9 + ++jumps.current });
      else void load({ around: id });
    }, [latest, load, setTarget]),
    jumpToUnread: useCallback(() => {
      if (firstUnreadId !== undefined) setTarget({ id: firstUnreadId, kind: "unread", seq: 1e9 + ++jumps.current });
      else if (unreadFrom.current) void load({ around: unreadFrom.current, unread: true });
    }, [firstUnreadId, load, unreadFrom, setTarget]),
  };
}
