// The reaction detail view: who reacted, page by page, all reactions or one emoji at a time;
// an entry calls onReactionListItemClick (without it, the user's own entry removes the reaction).
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useRef, useState, type RefObject } from "react";
import { Avatar } from "../../base/Avatar";
import type { ChatMessageListProps } from "../props";
import { Dialog } from "./Dialog";

export interface ReactionsDetailProps {
  message: Chat.BaseMessage;
  props: ChatMessageListProps;
  loggedInUser: Chat.User;
  /** The emoji shown first (undefined: all). */
  initialFilter?: string | undefined;
  anchor: RefObject<HTMLElement | null>;
  onClose(): void;
  onError(error: unknown): void;
}

/**
 * A request for the message's reactions (one emoji, or the builder's own filter) from the
 * caller's builder, whose limit and build() are kept; the builder itself is left as it was.
 */
export function reactionsRequest(builder: Chat.ReactionsRequestBuilder | undefined, messageId: number, reaction: string | undefined): Chat.ReactionsRequest {
  const b = builder ?? new Chat.ReactionsRequestBuilder().setLimit(20);
  const saved = { messageId: b.messageId, reaction: b.reaction };
  try {
    b.setMessageId(messageId);
    if (reaction !== undefined) b.setReaction(reaction);
    return b.build();
  } finally {
    b.messageId = saved.messageId;
    b.reaction = saved.reaction;
  }
}

/** Who reacted, page by page, for the filter (an emoji, or all). */
function useReactionPages(builder: Chat.ReactionsRequestBuilder | undefined, messageId: number, filter: string | undefined, onError: (e: unknown) => void) {
  const [items, setItems] = useState<Chat.Reaction[]>([]);
  const [more, setMore] = useState(true);
  const [loading, setLoading] = useState(false);
  const request = useRef<Chat.ReactionsRequest | null>(null);
  const gen = useRef(0);
  const onErrorRef = useRef(onError);
  onErrorRef.current = onError;
  const inFlight = useRef(-1);
  const loadMore = () => {
    const req = request.current;
    const g = gen.current;
    if (!req || inFlight.current === g) return;
    inFlight.current = g;
    setLoading(true);
    const settle = (f: () => void) => {
      if (g !== gen.current) return;
      inFlight.current = -1;
      setLoading(false);
      f();
    };
    req.fetchNext().then(
      (page) => settle(() => {
        setItems((old) => [...old, ...page]);
        setMore(req.hasMore() && page.length > 0);
      }),
      (e: unknown) => settle(() => {
        setMore(false);
        onErrorRef.current(e);
      }),
    );
  };
  const loadMoreRef = useRef(loadMore);
  loadMoreRef.current = loadMore;
  useEffect(() => {
    gen.current++;
    try {
      request.current = reactionsRequest(builder, messageId, filter);
    } catch (e) {
      request.current = null;
      onErrorRef.current(e);
    }
    setItems([]);
    setMore(true);
    setLoading(false);
    queueMicrotask(() => loadMoreRef.current());
  }, [filter, messageId, builder]);
  return { items, more, loading, loadMore };
}

export function ReactionsDetail({ message, props, loggedInUser, initialFilter, anchor, onClose, onError }: ReactionsDetailProps) {
  const [filter, setFilter] = useState<string | undefined>(initialFilter);
  const [removed, setRemoved] = useState<Set<string>>(new Set());
  const { items, more, loading, loadMore } = useReactionPages(props.reactionsRequestBuilder, message.getId(), filter, onError);
  const counts = message.getReactions().filter((r) => r.getCount() > 0);
  const total = counts.reduce((n, r) => n + r.getCount(), 0);
  const me = loggedInUser.getUid();
  const pick = (r: Chat.Reaction) => {
    if (props.onReactionListItemClick) return props.onReactionListItemClick(r, message);
    if (r.getUid() !== me) return;
    Chat.removeReaction(message.getId(), r.getReaction()).then(() => setRemoved((s) => new Set(s).add(r.getReaction())), onError);
  };
  const shown = items.filter((r) => !(r.getUid() === me && removed.has(r.getReaction())));
  return (
    <Dialog title="Reactions" anchor={anchor} onClose={onClose} className="chat-reactions-detail">
      <div className="chat-reactions-detail__filters" role="group" aria-label="Show reactions">
        <button type="button" className="chat-ui-chip" aria-pressed={filter === undefined} onClick={() => setFilter(undefined)}>
          All <span className="chat-ui-chip__count">{total}</span>
        </button>
        {counts.map((c) => (
          <button key={c.getReaction()} type="button" className="chat-ui-chip" aria-pressed={filter === c.getReaction()} aria-label={`${c.getReaction()} ${c.getCount()}`}
            onClick={() => setFilter(c.getReaction())}>
            <span aria-hidden="true">{c.getReaction()}</span> <span className="chat-ui-chip__count" aria-hidden="true">{c.getCount()}</span>
          </button>
        ))}
      </div>
      <ul
        className="chat-reactions-detail__list"
        aria-label="People who reacted"
        aria-busy={loading}
        onScroll={(e) => {
          const el = e.currentTarget;
          if (more && el.scrollTop + el.clientHeight >= el.scrollHeight - 24) loadMore();
        }}
      >
        {shown.map((r) => <Entry key={`${r.getUid()} ${r.getReaction()}`} r={r} me={me} listItemClick={!!props.onReactionListItemClick} onPick={pick} />)}
      </ul>
      {loading ? <p role="status" className="chat-dialog__loading">Loading…</p> : null}
      {!loading && more && shown.length > 0 ? (
        <button type="button" className="chat-ui-button chat-reactions-detail__more" onClick={loadMore}>
          Load more
        </button>
      ) : null}
      {!loading && !more && shown.length === 0 ? <p className="chat-reactions-detail__empty">No reactions.</p> : null}
    </Dialog>
  );
}

function Entry({ r, me, listItemClick, onPick }: { r: Chat.Reaction; me: string; listItemClick: boolean; onPick(r: Chat.Reaction): void }) {
  const user = r.getReactedBy();
  const body = (
    <>
      <Avatar name={user?.getName() ?? r.getUid()} image={user?.getAvatar()} />
      <span className="chat-reactions-detail__name">{r.getUid() === me ? "You" : (user?.getName() ?? r.getUid())}</span>
      {r.getUid() === me && !listItemClick ? <span className="chat-reactions-detail__hint">Select to remove</span> : null}
      <span className="chat-reactions-detail__emoji">{r.getReaction()}</span>
    </>
  );
  return (
    <li className="chat-reactions-detail__item">
      {listItemClick || r.getUid() === me ? (
        <button type="button" className="chat-reactions-detail__entry" onClick={() => onPick(r)}>
          {body}
        </button>
      ) : (
        <span className="chat-reactions-detail__entry">{body}</span>
      )}
    </li>
  );
}
