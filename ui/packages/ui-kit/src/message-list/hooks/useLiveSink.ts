/**
 * The live-event sink: every SDK listener call and composer event of the conversation (see
 * live.ts) folded into the list through the reducer, which keeps messages unique by id
 * whatever order pages and events arrive in. The component hears of new messages through hooks.
 */
import { useMemo, useRef, type RefObject } from "react";
import { Chat } from "@agentry/chat-sdk";
import { applyReceipt, belongs, isOutgoing, mergeLive, withReplyCount } from "../conversation";
import { useLiveEvents, type LiveSink } from "../live";
import type { ListRefs } from "./refs";
import type { LoadMode } from "./useLoad";
import type { Typing } from "./useTyping";

export interface ListHooks {
  /** A live message was added after the last one shown. */
  appended(m: Chat.BaseMessage, mine: boolean): void;
  /** A live message arrived while the newest messages are not loaded (it comes with them). */
  missed(m: Chat.BaseMessage, mine: boolean): void;
}

interface SinkDeps {
  refs: ListRefs;
  startTyping: Typing["start"];
  stopTyping: Typing["stop"];
  deliver(m: Chat.BaseMessage): void;
  load(mode: LoadMode): Promise<void>;
  /** The socket is ready: true when the list loaded before that and must load again. */
  ready(): boolean;
  hooks: RefObject<ListHooks>;
}

/** The conversation, the user and the state, once both are known. */
function ctx({ refs }: SinkDeps) {
  const { conv: c, me: user, state: s } = refs.latest.current;
  return c && user ? { c, uid: user.getUid(), s } : undefined;
}

const known = (d: SinkDeps, id: number) => d.refs.latest.current.state.byId.has(id) || d.refs.scope.current.seen.has(id);

/** A thread reply in the main list moves its root's reply count (once per reply and way). */
function countReply(d: SinkDeps, m: Chat.BaseMessage, delta: 1 | -1): void {
  const sc = d.refs.scope.current;
  const done = delta > 0 ? sc.countedReplies : sc.droppedReplies;
  if (done.has(m.getId())) return;
  done.add(m.getId());
  d.refs.dispatch({ type: "update", id: m.getParentMessageId()!, update: (p) => withReplyCount(p, delta) });
}

function addMessage(d: SinkDeps, m: Chat.BaseMessage): void {
  const x = ctx(d);
  if (!x || !belongs(m, x.c, x.uid)) return;
  const id = m.getId();
  if (!id) return; // not stored yet: the stored copy follows
  const parent = m.getParentMessageId();
  if (!x.c.parentId && parent) return countReply(d, m, 1); // the main list shows it as its root's reply count
  if (x.c.parentId && parent !== x.c.parentId) return;
  const sc = d.refs.scope.current;
  // The page being loaded may have been read before this message was stored: keep it for the
  // load to add, or the reset would drop it (a silent gap).
  if (sc.loading) return void sc.duringLoad.push(m);
  if (known(d, id)) return d.refs.dispatch({ type: "update", id, update: (old) => mergeLive(old, m) });
  sc.seen.add(id);
  d.stopTyping(m.getSender()?.getUid());
  const mine = isOutgoing(m, x.uid);
  if (x.s.hasNewer) return d.hooks.current?.missed(m, mine);
  d.refs.dispatch({ type: "upsert", message: m });
  if (!mine) d.deliver(m);
  d.hooks.current?.appended(m, mine);
}

function changeMessage(d: SinkDeps, m: Chat.BaseMessage, kind: "edited" | "deleted" | "moderated"): void {
  const x = ctx(d);
  if (!x || !belongs(m, x.c, x.uid)) return;
  const id = m.getId();
  // A deleted thread reply: the service no longer counts it, nor does the root here.
  if (kind === "deleted" && !x.c.parentId && m.getParentMessageId()) return countReply(d, m, -1);
  const req = d.refs.scope.current.request;
  if (kind === "deleted" && req && !req.builder.deleted) d.refs.dispatch({ type: "remove", id });
  else if (known(d, id)) d.refs.dispatch({ type: "update", id, update: (old) => mergeLive(old, m) });
  else if (kind === "moderated" && m.getModerationStatus() === "approved") addMessage(d, m); // approved: the others see it for the first time
}

/** The reader chose to keep these unread: they are not marked read again because they are on
 * screen; only newer messages are marked from now on. */
function markedUnread(d: SinkDeps, r: Chat.MessageReceipt): void {
  const x = ctx(d);
  if (!x || r.getConversationId() !== x.c.conversationId) return;
  const sc = d.refs.scope.current;
  sc.lastMarked = Math.max(sc.lastMarked, x.s.ids[x.s.ids.length - 1] ?? 0);
  const from = r.getMessageId();
  d.refs.dispatch({
    type: "updateAll",
    update: (m) => {
      if (m.getId() < from || m.getReadAt() === undefined || isOutgoing(m, x.uid)) return m;
      const c = m.clone();
      c.setReadAt(undefined);
      return c;
    },
  });
}

function makeSink(d: SinkDeps): LiveSink {
  const inConversation = (conversationId: string | undefined) => {
    const x = ctx(d);
    return x && conversationId === x.c.conversationId ? x : undefined;
  };
  return {
    message: (m) => addMessage(d, m),
    changed: (m, kind) => changeMessage(d, m, kind),
    receipt(r) {
      const x = inConversation(r.getConversationId());
      if (x) d.refs.dispatch({ type: "updateAll", update: (m) => applyReceipt(m, r, x.uid, x.c.type === "group") });
    },
    markedUnread: (r) => markedUnread(d, r),
    reaction(e, change) {
      const x = inConversation(e.getConversationId());
      if (x) d.refs.dispatch({ type: "update", id: e.getMessageId(), update: (m) => Chat.updateMessageWithReactionInfo(m, e, change, x.uid) });
    },
    typing(t, started) {
      const x = inConversation(t.getConversationId());
      const who = t.getSender();
      if (!x || !who || x.c.parentId || who.getUid() === x.uid) return;
      if (started) d.startTyping(who);
      else d.stopTyping(who.getUid());
    },
    action(a) {
      const x = ctx(d);
      if (x && x.c.type === "group" && !x.c.parentId && a.getId()) addMessage(d, a);
    },
    connected() {
      // Missed events are replayed on reconnect; a list that failed to load reloads, and so
      // does one loaded before the socket was first ready (a session's first socket starts
      // after its ready frame: what changed between the load and then was never sent).
      const again = d.ready();
      if (d.refs.latest.current.status === "error" || again) void d.load("initial");
    },
    reset() {
      void d.load("latest");
    },
  };
}

/** Registers the sink under listenerId while enabled (a conversation and a user are known). */
export function useLiveSink(listenerId: string, enabled: boolean, deps: SinkDeps): void {
  const { refs, startTyping, stopTyping, deliver, load, ready, hooks } = deps;
  const sink = useRef<LiveSink>(undefined as unknown as LiveSink);
  sink.current = useMemo(
    () => makeSink({ refs, startTyping, stopTyping, deliver, load, ready, hooks }),
    [refs, startTyping, stopTyping, deliver, load, ready, hooks],
  );
  useLiveEvents(listenerId, sink, enabled);
}
