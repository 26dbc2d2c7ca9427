/**
 * The groups list's state: groups keyed by guid in display order, merged from pages (in the
 * service's order) and live events (inserts at the top), never twice. Pure: the reducer, the
 * membership rules of the specification's state table, the filter a live insert must match,
 * and the request builder helpers.
 */
import { Chat } from "@agentry/chat-sdk";

export interface GroupsState {
  /** Guids in display order, each once. */
  readonly order: readonly string[];
  readonly byGuid: ReadonlyMap<string, Chat.Group>;
  /** Guids removed live since the last reload: a page fetched earlier does not bring them back. */
  readonly removed: ReadonlySet<string>;
  /** Which load the state belongs to; pages and failures of another one are ignored. */
  readonly generation: number;
  /** No page answered yet for this generation. */
  readonly loading: boolean;
  /** A page is being fetched. */
  readonly fetching: boolean;
  readonly hasMore: boolean;
  /** The last failure of this generation (cleared by the next fetch). */
  readonly error: Chat.ChatException | undefined;
}

export const initialGroupsState: GroupsState = {
  order: [],
  byGuid: new Map(),
  removed: new Set(),
  generation: 0,
  loading: true,
  fetching: false,
  hasMore: true,
  error: undefined,
};

/** What a group must match to be inserted live: the list's request. */
export interface GroupFilter {
  keyword: string;
  joinedOnly: boolean;
  tags: readonly string[];
}

/** Membership changes of the state table (plus unbanned, which changes nothing listed). */
export type MemberChange = "joined" | "left" | "kicked" | "banned" | "added" | "scopeChanged" | "unbanned";

export type GroupsAction =
  | { type: "reload"; generation: number }
  | { type: "fetching"; generation: number }
  | { type: "page"; generation: number; groups: readonly Chat.Group[]; hasMore: boolean }
  | { type: "failed"; generation: number; error: Chat.ChatException }
  /** A group created (ccGroupCreated, the SDK's onGroupCreated): at the top when it matches. */
  | { type: "created"; group: Chat.Group; filter: GroupFilter }
  /** Name, icon, type... changed (the SDK's onGroupUpdated): the row follows, flags kept. */
  | { type: "updated"; group: Chat.Group }
  | { type: "removed"; guid: string }
  /** group: the group after the change, as the SDK hands it over. */
  | { type: "member"; change: MemberChange; uid: string; me: string | undefined; group: Chat.Group; scope?: string; filter: GroupFilter };

/** Whether group belongs in a list loaded with filter. */
export function matchesFilter(group: Chat.Group, filter: GroupFilter): boolean {
  if (filter.keyword && !group.getName().toLowerCase().includes(filter.keyword.toLowerCase())) return false;
  if (filter.joinedOnly && !group.getHasJoined()) return false;
  if (filter.tags.length > 0 && !group.getTags().some((t) => filter.tags.includes(t))) return false;
  return true;
}

function withGroup(s: GroupsState, g: Chat.Group, atTop: boolean): GroupsState {
  const guid = g.getGuid();
  const byGuid = new Map(s.byGuid);
  byGuid.set(guid, g);
  let removed = s.removed;
  if (removed.has(guid)) {
    const r = new Set(removed);
    r.delete(guid);
    removed = r;
  }
  const order = s.byGuid.has(guid) ? s.order : atTop ? [guid, ...s.order] : [...s.order, guid];
  return { ...s, order, byGuid, removed };
}

function without(s: GroupsState, guid: string): GroupsState {
  const removed = new Set(s.removed);
  removed.add(guid);
  if (!s.byGuid.has(guid)) return { ...s, removed };
  const byGuid = new Map(s.byGuid);
  byGuid.delete(guid);
  return { ...s, order: s.order.filter((g) => g !== guid), byGuid, removed };
}

/** A copy of the listed group changed by fn (the state holds no object twice). */
function patched(s: GroupsState, guid: string, fn: (g: Chat.Group) => void): GroupsState {
  const old = s.byGuid.get(guid);
  if (!old) return s;
  const g = old.clone();
  fn(g);
  return withGroup(s, g, false);
}

function member(s: GroupsState, a: Extract<GroupsAction, { type: "member" }>): GroupsState {
  const guid = a.group.getGuid();
  const count = a.group.getMembersCount();
  const listed = s.byGuid.has(guid);
  if (a.change === "unbanned") return s; // not in the state table; the count is unchanged
  if (a.uid !== a.me) return patched(s, guid, (g) => g.setMembersCount(count)); // someone else's: only the count
  switch (a.change) {
    case "joined":
    case "added": {
      if (!listed) {
        // added: the state table's "group added to list". joined: only a list of joined groups
        // lacks a group one can join (a public one), so only there does it appear.
        const g = a.group.clone();
        g.setHasJoined(true);
        const fits = (a.change === "added" || a.filter.joinedOnly) && matchesFilter(g, a.filter);
        return fits ? withGroup(s, g, true) : s;
      }
      return patched(s, guid, (g) => {
        g.setHasJoined(true);
        g.setScope(a.group.getScope() ?? "participant");
        g.setMembersCount(count);
      });
    }
    case "left":
    case "kicked":
      return patched(s, guid, (g) => {
        g.setHasJoined(false);
        g.setScope(undefined);
        g.setMembersCount(count);
      });
    case "banned":
      return without(s, guid);
    default: // scopeChanged
      return patched(s, guid, (g) => {
        const scope = a.scope ?? a.group.getScope();
        g.setScope(isScope(scope) ? scope : undefined);
        g.setMembersCount(count);
      });
  }
}

function isScope(v: string | undefined): v is Chat.GroupMemberScope {
  return v === "admin" || v === "moderator" || v === "participant";
}

export function groupsReducer(s: GroupsState, a: GroupsAction): GroupsState {
  switch (a.type) {
    case "reload":
      return { ...initialGroupsState, generation: a.generation, fetching: true };
    case "fetching":
      if (a.generation !== s.generation) return s;
      return { ...s, fetching: true, error: undefined };
    case "page": {
      if (a.generation !== s.generation) return s;
      const byGuid = new Map(s.byGuid);
      const order = [...s.order];
      for (const g of a.groups) {
        const guid = g.getGuid();
        // Listed already (a live insert, or a page that overlapped): the listed copy is the one
        // live events kept current. Removed live since: the page is older than the removal.
        if (byGuid.has(guid) || s.removed.has(guid)) continue;
        byGuid.set(guid, g);
        order.push(guid);
      }
      return { ...s, order, byGuid, loading: false, fetching: false, hasMore: a.hasMore && a.groups.length > 0, error: undefined };
    }
    case "failed":
      if (a.generation !== s.generation) return s;
      return { ...s, loading: false, fetching: false, error: a.error };
    case "created":
      if (s.byGuid.has(a.group.getGuid())) return withGroup(s, a.group, true);
      return matchesFilter(a.group, a.filter) ? withGroup(s, a.group, true) : s;
    case "updated":
      return patched(s, a.group.getGuid(), (g) => {
        g.setName(a.group.getName());
        g.setType(a.group.getType());
        const icon = a.group.getIcon();
        if (icon !== undefined) g.setIcon(icon);
        const description = a.group.getDescription();
        if (description !== undefined) g.setDescription(description);
        g.setTags(a.group.getTags());
      });
    case "removed":
      return without(s, a.guid);
    case "member":
      return member(s, a);
  }
}

/** The groups of the state, in order. */
export function groupsOf(s: GroupsState): Chat.Group[] {
  const out: Chat.Group[] = [];
  for (const guid of s.order) {
    const g = s.byGuid.get(guid);
    if (g) out.push(g);
  }
  return out;
}

/** The subtitle: "1 member", "N members", "No members" (never "0 member"). */
export function membersText(count: number): string {
  const n = Number.isFinite(count) && count > 0 ? Math.floor(count) : 0;
  if (n === 0) return "No members";
  return n === 1 ? "1 member" : `${n.toLocaleString("en-US")} members`;
}

/** A copy of b (same class, own tags array): setting the copy's keyword leaves b alone. */
export function cloneBuilder(b: Chat.GroupsRequestBuilder): Chat.GroupsRequestBuilder {
  const c = Object.create(Object.getPrototypeOf(b) as object) as Chat.GroupsRequestBuilder;
  Object.assign(c, b);
  c.tags = [...b.tags];
  return c;
}

/** The builder's settings as a string: a new builder with the same settings is the same load. */
export function builderKey(b: Chat.GroupsRequestBuilder): string {
  return JSON.stringify([b.limit, b.searchKeyword, b.joined, b.tags, b.includeTags]);
}

export function filterOf(b: Chat.GroupsRequestBuilder): GroupFilter {
  return { keyword: b.searchKeyword, joinedOnly: b.joined, tags: [...b.tags] };
}

/** The request builder for the list: the groups builder, or while searching the search one
 * (or the groups one) with the keyword; always a copy. */
export function requestBuilder(
  groups: Chat.GroupsRequestBuilder | undefined,
  search: Chat.GroupsRequestBuilder | undefined,
  keyword: string,
): Chat.GroupsRequestBuilder {
  const base = groups ?? new Chat.GroupsRequestBuilder().setLimit(30);
  if (!keyword) return cloneBuilder(base);
  return cloneBuilder(search ?? base).setSearchKeyword(keyword);
}
