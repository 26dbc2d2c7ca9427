/**
 * Loading the groups: the first page of the current request (the groups builder, or the search
 * builder with the debounced keyword), next pages on demand, retry and reload. Every load has
 * a generation; answers of an older one (a search typed over, an unmounted list) are dropped.
 */
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { Chat } from "@agentry/chat-sdk";
import { reporter } from "../base/useLoggedInUser";
import { builderKey, filterOf, groupsReducer, initialGroupsState, requestBuilder, type GroupFilter, type GroupsAction, type GroupsState } from "./state";

export interface GroupsData {
  state: GroupsState;
  dispatch: (a: GroupsAction) => void;
  /** The current request's filter (what a live insert must match). */
  filter: { readonly current: GroupFilter };
  /** Fetches the next page unless one is in flight, none is left, or the last one failed. */
  loadMore(): void;
  /** After a failure: the first page again when nothing is listed, else the failed page. */
  retry(): void;
  /** From the first page again (the SDK's reset). */
  reload(): void;
}

interface Current {
  generation: number;
  request: Chat.GroupsRequest | undefined;
  inFlight: boolean;
  /** Its effect was cleaned up: answers are dropped unless the same effect runs again. */
  detached: boolean;
  builder: Chat.GroupsRequestBuilder | undefined;
  reloads: number;
  enabled: boolean;
}

const NONE: Current = { generation: 0, request: undefined, inFlight: false, detached: true, builder: undefined, reloads: -1, enabled: false };

type Fail = (generation: number, err: unknown) => void;

/** Fetches the load's next page unless one is in flight; answers of a replaced or detached load are dropped. */
function fetchNext(current: { current: Current }, generation: number, request: Chat.GroupsRequest, dispatch: (a: GroupsAction) => void, fail: Fail): void {
  const c = current.current;
  if (c.generation !== generation || c.inFlight) return;
  c.inFlight = true;
  dispatch({ type: "fetching", generation });
  const live = () => current.current === c && !c.detached;
  request.fetchNext().then(
    (page) => {
      c.inFlight = false;
      if (live()) dispatch({ type: "page", generation, groups: page, hasMore: request.hasMore() });
    },
    (err: unknown) => {
      c.inFlight = false;
      if (live()) fail(generation, err);
    },
  );
}

/** The load effect: a new load (generation) and its first page; the cleanup detaches it. */
function begin(o: {
  current: { current: Current };
  generation(): number;
  builder: Chat.GroupsRequestBuilder;
  reloads: number;
  enabled: boolean;
  dispatch(a: GroupsAction): void;
  fail: Fail;
  fetchPage(generation: number, request: Chat.GroupsRequest): void;
}): () => void {
  const prev = o.current.current;
  if (prev.detached && prev.builder === o.builder && prev.reloads === o.reloads && prev.enabled === o.enabled && prev.generation !== 0) {
    // The same effect again (React strict mode): the load it started goes on.
    prev.detached = false;
    return () => {
      prev.detached = true;
    };
  }
  const generation = o.generation();
  const c: Current = { generation, request: undefined, inFlight: false, detached: false, builder: o.builder, reloads: o.reloads, enabled: o.enabled };
  o.current.current = c;
  o.dispatch({ type: "reload", generation });
  if (o.enabled) {
    try {
      c.request = o.builder.build();
    } catch (err) {
      // Not initialised or not logged in: the SDK throws before any request.
      o.fail(generation, err);
    }
    if (c.request) o.fetchPage(generation, c.request);
  }
  // Unmounted or replaced: whatever answers now belongs to no load.
  return () => {
    c.detached = true;
  };
}

export function useGroupsData(
  groups: Chat.GroupsRequestBuilder | undefined,
  search: Chat.GroupsRequestBuilder | undefined,
  keyword: string,
  onError: ((e: Chat.ChatException) => void) | null | undefined,
  /** false holds the first load back (the list shows loading). */
  enabled = true,
): GroupsData {
  const [state, dispatch] = useReducer(groupsReducer, initialGroupsState);
  const [reloads, setReloads] = useState(0);
  const groupsKey = groups ? builderKey(groups) : "";
  const searchKey = search ? builderKey(search) : "";
  // Rebuilt only when the settings change, not for a new builder object with the same ones.
  const builder = useMemo(() => requestBuilder(groups, search, keyword), [groupsKey, searchKey, keyword]); // eslint-disable-line react-hooks/exhaustive-deps
  const filter = useRef<GroupFilter>(filterOf(builder));
  filter.current = filterOf(builder);

  const onErrorRef = useRef(onError);
  onErrorRef.current = onError;
  const stateRef = useRef(state);
  stateRef.current = state;
  const current = useRef<Current>(NONE);
  const generations = useRef(0);

  const report = useMemo(() => reporter(() => onErrorRef.current, "ChatGroups"), []);
  const fail = useCallback((generation: number, err: unknown) => {
    const e = Chat.ChatException.from(err);
    dispatch({ type: "failed", generation, error: e });
    report(e);
  }, [report]);

  const fetchPage = useCallback((generation: number, request: Chat.GroupsRequest) => fetchNext(current, generation, request, dispatch, fail), [fail]);
  useEffect(() => begin({ current, generation: () => ++generations.current, builder, reloads, enabled, dispatch, fail, fetchPage }), [builder, reloads, enabled, fetchPage, fail]);

  const loadMore = useCallback(() => {
    const s = stateRef.current;
    const c = current.current;
    if (!c.request || c.detached || s.generation !== c.generation || s.loading || !s.hasMore || s.error) return;
    fetchPage(c.generation, c.request);
  }, [fetchPage]);

  const reload = useCallback(() => setReloads((n) => n + 1), []);

  const retry = useCallback(() => {
    const s = stateRef.current;
    const c = current.current;
    if (!c.request || c.detached || s.order.length === 0 || s.generation !== c.generation) reload();
    else fetchPage(c.generation, c.request);
  }, [fetchPage, reload]);

  return { state, dispatch, filter, loadMore, retry, reload };
}

/** value after it stayed the same for ms; an empty value at once (clearing restores at once). */
export function useDebounced(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    if (value === "") {
      setSettled("");
      return;
    }
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}
