// What the chat page has open (a conversation, its thread, the group details or the search),
// how it opens things, and the URL that follows it (a reload, back/forward and a shared link
// land there).
import { Chat } from "@agentry/chat-sdk";
import { ChatUIEvents } from "@agentry/ui-kit";
import { useCallback, useEffect, useState } from "react";
import { errorText } from "../session";
import { titleOf, type Target } from "./Conversation";
import { parsePath, pathOf, type Place } from "./places";

/** The place a URL names, looked up: the group (joined when public and not yet), the user, the
 * thread's parent message. */
async function resolvePlace(p: Place): Promise<{ target: Target; thread: Chat.BaseMessage | undefined }> {
  let target: Target;
  if (p.kind === "group") {
    const g = await Chat.getGroup(p.id);
    target = { kind: "group", group: g.getHasJoined() ? g : await Chat.joinGroup(g.getGuid(), g.getType()) };
  } else {
    target = { kind: "user", user: await Chat.getUser(p.id) };
  }
  const thread = p.thread ? await Chat.getMessageDetails(p.thread).catch(() => undefined) : undefined;
  return { target, thread };
}

const placeOf = (t: Target | undefined, thread: Chat.BaseMessage | undefined): Place | undefined =>
  !t ? undefined : { kind: t.kind, id: t.kind === "group" ? t.group.getGuid() : t.user.getUid(), thread: thread?.getId() };

export function useChatNavigation(me: Chat.User) {
  const [target, setTarget] = useState<Target | undefined>();
  const [thread, setThread] = useState<Chat.BaseMessage | undefined>();
  const [details, setDetails] = useState(false);
  const [search, setSearch] = useState<string>();
  const [goTo, setGoTo] = useState<number>();
  const [error, setError] = useState("");
  const show = useCallback((r: { target: Target | undefined; thread: Chat.BaseMessage | undefined }) => {
    setTarget(r.target);
    setThread(r.thread);
  }, []);
  usePlaceInUrl(target, thread, show, setError);
  useEffect(() => {
    document.title = target ? `${titleOf(target)} · Agentry chat` : "Agentry chat";
  }, [target]);
  const open = useCallback((t: Target) => {
    show({ target: t, thread: undefined });
    setDetails(false);
    setGoTo(undefined);
    setError("");
  }, [show]);
  const openGroup = useCallback(async (g: Chat.Group) => {
    try {
      open({ kind: "group", group: g.getHasJoined() ? g : await Chat.joinGroup(g.getGuid(), g.getType()) });
    } catch (e) {
      setError(errorText(e));
    }
  }, [open]);
  // "Message privately" and other components asking to open a chat.
  useEffect(() => {
    const s = ChatUIEvents.ccOpenChat.subscribe(({ user, group }) => {
      if (user) open({ kind: "user", user });
      else if (group) void openGroup(group);
    });
    return () => s.unsubscribe();
  }, [open, openGroup]);
  return {
    target, thread, details, search, goTo, error, setError, setThread, setDetails, setSearch, open, openGroup, show,
    close: useCallback(() => {
      show({ target: undefined, thread: undefined });
      setDetails(false);
    }, [show]),
    openThread: useCallback((m: Chat.BaseMessage) => {
      setDetails(false);
      setSearch(undefined);
      setThread(m);
    }, []),
    /** A search result: its conversation at the message, or its thread. */
    openResult: useCallback(async (m: Chat.BaseMessage) => {
      try {
        const group = m.getReceiverType() === Chat.RECEIVER_TYPE.GROUP;
        const other = m.getSender()?.getUid() === me.getUid() ? m.getReceiverId() : (m.getSender()?.getUid() ?? "");
        const r = await resolvePlace({ kind: group ? "group" : "user", id: group ? m.getReceiverId() : other, thread: m.getParentMessageId() || undefined });
        show(r);
        setDetails(false);
        setSearch(undefined);
        setGoTo(m.getParentMessageId() ? undefined : m.getId());
      } catch (e) {
        setError(errorText(e));
      }
    }, [me, show]),
  };
}

/** The URL follows what is open; until the URL's own place is restored (and on back/forward) it is left alone. */
function usePlaceInUrl(target: Target | undefined, thread: Chat.BaseMessage | undefined,
  show: (r: { target: Target | undefined; thread: Chat.BaseMessage | undefined }) => void, setError: (e: string) => void) {
  const [restored, setRestored] = useState(false);
  useEffect(() => {
    let live = true;
    const restore = async () => {
      const p = parsePath(window.location.pathname);
      try {
        const r = p ? await resolvePlace(p) : undefined;
        if (!live) return;
        show({ target: r?.target, thread: r?.thread });
        setError("");
      } catch (e) {
        if (!live) return;
        show({ target: undefined, thread: undefined });
        setError(`That conversation can't be opened: ${errorText(e)}`);
        window.history.replaceState(null, "", "/");
      } finally {
        if (live) setRestored(true);
      }
    };
    void restore();
    const onPop = () => void restore();
    window.addEventListener("popstate", onPop);
    return () => {
      live = false;
      window.removeEventListener("popstate", onPop);
    };
  }, [show, setError]);
  useEffect(() => {
    if (!restored) return;
    const path = pathOf(placeOf(target, thread));
    if (window.location.pathname !== path) window.history.pushState(null, "", path);
  }, [restored, target, thread]);
}
