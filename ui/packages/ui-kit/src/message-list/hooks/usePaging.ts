/** Older and newer pages on demand, one request each way at a time; a failure waits for retryPaging(). */
import { useCallback, useState } from "react";
import type { Chat } from "@agentry/chat-sdk";
import { mayHaveMore } from "../conversation";
import type { ListRefs } from "./refs";

export type Paging = ReturnType<typeof usePaging>;

export function usePaging({ latest, gen, scope, dispatch }: ListRefs) {
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [loadingNewer, setLoadingNewer] = useState(false);
  // Loading an older or newer page failed; paging waits for retryPaging().
  const [pagingError, setPagingError] = useState<Chat.ChatException>();

  const page = useCallback(async (dir: "older" | "newer") => {
    const sc = scope.current;
    const r = sc.request;
    const { state: s, pagingError: failed, status } = latest.current;
    if (!r || sc.busy[dir] || failed || status !== "ready") return;
    if (dir === "older" ? !s.hasOlder : !s.hasNewer) return;
    const my = gen.current;
    sc.busy[dir] = true;
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
        sc.busy[dir] = false;
        setLoading(false);
      }
    }
  }, [latest, gen, scope, dispatch]);

  return {
    loadingOlder,
    loadingNewer,
    pagingError,
    loadOlder: useCallback(() => void page("older"), [page]),
    loadNewer: useCallback(() => void page("newer"), [page]),
    retryPaging: useCallback(() => setPagingError(undefined), []),
    /** A new load: nothing loading, no error. */
    reset: useCallback(() => {
      setPagingError(undefined);
      setLoadingOlder(false);
      setLoadingNewer(false);
    }, []),
  };
}
