/**
 * The message list's state: messages keyed by id, kept in id order (ids grow in the order
 * the service stores messages). Pages and live events arrive in any order and more than once
 * (at-least-once delivery, a page overlapping a live event); every operation is idempotent,
 * and a message is replaced only by a version that is not older (edits, deletes, receipts).
 */

/** What the state needs of a message. The SDK's BaseMessage has these getters. */
export interface ListMessage {
  getId(): number;
  getEditedAt?(): number | undefined;
  getDeletedAt?(): number | undefined;
}

export interface ListState<M extends ListMessage> {
  /** Message ids in ascending order. */
  ids: number[];
  byId: ReadonlyMap<number, M>;
  /** More messages exist before ids[0] (older) / after the last id (newer). */
  hasOlder: boolean;
  hasNewer: boolean;
}

export type ListAction<M extends ListMessage> =
  | { type: "reset"; messages: M[]; hasOlder: boolean; hasNewer: boolean }
  | { type: "older"; messages: M[]; hasOlder: boolean }
  | { type: "newer"; messages: M[]; hasNewer: boolean }
  | { type: "upsert"; message: M }
  | { type: "remove"; id: number }
  | { type: "update"; id: number; update: (m: M) => M }
  | { type: "updateAll"; update: (m: M) => M };

export function emptyState<M extends ListMessage>(): ListState<M> {
  return { ids: [], byId: new Map(), hasOlder: false, hasNewer: false };
}

/** version orders two copies of one message: a deleted copy beats an edited one beats none. */
function version(m: ListMessage): [number, number] {
  return [m.getDeletedAt?.() ?? 0, m.getEditedAt?.() ?? 0];
}

function newer(a: ListMessage, b: ListMessage): boolean {
  const [da, ea] = version(a);
  const [db, eb] = version(b);
  return da !== db ? da > db : ea >= eb;
}

/** merge folds messages into state, keeping id order and the newest copy of each message. */
function merge<M extends ListMessage>(state: ListState<M>, messages: M[]): ListState<M> {
  if (messages.length === 0) return state;
  const byId = new Map(state.byId);
  let added = false;
  let changed = false;
  for (const m of messages) {
    const id = m.getId();
    const old = byId.get(id);
    if (!old) {
      byId.set(id, m);
      added = true;
    } else if (old !== m && newer(m, old)) {
      byId.set(id, m);
      changed = true;
    }
  }
  if (!added && !changed) return state;
  const ids = added ? [...byId.keys()].sort((a, b) => a - b) : state.ids;
  return { ...state, ids, byId };
}

/** The most messages the list holds. Past it, the end away from where pages are being added is
 * let go and paged in again if the reader goes back there (hasOlder / hasNewer say so), so memory
 * and the work per page stay the same at message 50,000 as at 50. */
export const MAX_LOADED = 500;
/** Live messages may overfill the list by this much before the oldest go: the reader may be up
 * there, reading. */
const LIVE_SLACK = 250;

/** trim lets the newest or the oldest messages go beyond max. */
function trim<M extends ListMessage>(state: ListState<M>, end: "newest" | "oldest", max = MAX_LOADED): ListState<M> {
  const extra = state.ids.length - max;
  if (extra <= 0) return state;
  const keep = end === "newest" ? state.ids.slice(0, max) : state.ids.slice(extra);
  const byId = new Map<number, M>();
  for (const id of keep) byId.set(id, state.byId.get(id)!);
  return end === "newest" ? { ...state, ids: keep, byId, hasNewer: true } : { ...state, ids: keep, byId, hasOlder: true };
}

export function listReducer<M extends ListMessage>(state: ListState<M>, action: ListAction<M>): ListState<M> {
  switch (action.type) {
    case "reset":
      return trim({ ...merge(emptyState<M>(), action.messages), hasOlder: action.hasOlder, hasNewer: action.hasNewer }, "oldest");
    case "older":
      return trim({ ...merge(state, action.messages), hasOlder: action.hasOlder }, "newest");
    case "newer":
      return trim({ ...merge(state, action.messages), hasNewer: action.hasNewer }, "oldest");
    case "upsert":
      return trim(merge(state, [action.message]), "oldest", MAX_LOADED + LIVE_SLACK);
    case "remove": {
      if (!state.byId.has(action.id)) return state;
      const byId = new Map(state.byId);
      byId.delete(action.id);
      return { ...state, ids: state.ids.filter((id) => id !== action.id), byId };
    }
    case "update": {
      const old = state.byId.get(action.id);
      if (!old) return state;
      const next = action.update(old);
      if (next === old) return state;
      const byId = new Map(state.byId);
      byId.set(action.id, next);
      return { ...state, byId };
    }
    case "updateAll": {
      let byId: Map<number, M> | undefined;
      for (const [id, m] of state.byId) {
        const next = action.update(m);
        if (next !== m) {
          byId ??= new Map(state.byId);
          byId.set(id, next);
        }
      }
      return byId ? { ...state, byId } : state;
    }
  }
}

/** messagesOf returns the messages in id order. */
export function messagesOf<M extends ListMessage>(state: ListState<M>): M[] {
  return state.ids.map((id) => state.byId.get(id)!);
}
