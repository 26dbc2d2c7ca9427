// The chat: the left pane (groups, recent conversations, agents, people), the conversation
// (message list and composer; agent chat with the welcome view, streamed answers and the
// recipe card), the thread panel and the group details; a URL per conversation and thread.
import { Chat } from "@agentry/chat-sdk";
import { Avatar, ChatGroups, ChatUIEvents } from "@agentry/ui-kit";
import { useCallback, useEffect, useMemo, useState } from "react";
import { errorText } from "../session";
import "./composer.css";
import "./groups.css";
import { Conversation, ThreadPanel, titleOf, Welcome, type Target } from "./Conversation";
import { useDirectory, useRecent } from "./directory";
import { GroupDetails } from "./GroupDetails";
import { NewGroupDialog } from "./NewGroupDialog";
import { SearchPanel } from "./SearchPanel";
import { parsePath, pathOf, type Place } from "./places";
import { ConnectionBanner, previewOf, UserRow } from "./Sidebar";

export type { Target } from "./Conversation";

const keyOf = (t: Target | undefined): string => (!t ? "" : t.kind === "group" ? `group:${t.group.getGuid()}` : `user:${t.user.getUid()}`);

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

export function ChatPage({ me }: { me: Chat.User }) {
  const [target, setTarget] = useState<Target | undefined>();
  const [thread, setThread] = useState<Chat.BaseMessage | undefined>();
  const [details, setDetails] = useState(false);
  const [search, setSearch] = useState<string>();
  const [goTo, setGoTo] = useState<number>();
  const [searchText, setSearchText] = useState("");
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState("");
  // The URL follows what is open; until the URL's own place is restored it is left alone.
  const [restored, setRestored] = useState(false);
  useEffect(() => {
    let live = true;
    const restore = async () => {
      const p = parsePath(window.location.pathname);
      try {
        const r = p ? await resolvePlace(p) : undefined;
        if (!live) return;
        setTarget(r?.target);
        setThread(r?.thread);
        setError("");
      } catch (e) {
        if (!live) return;
        setTarget(undefined);
        setThread(undefined);
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
  }, []);
  useEffect(() => {
    if (!restored) return;
    const path = pathOf(placeOf(target, thread));
    if (window.location.pathname !== path) window.history.pushState(null, "", path);
  }, [restored, target, thread]);
  useEffect(() => {
    document.title = target ? `${titleOf(target)} · Agentry chat` : "Agentry chat";
  }, [target]);
  const { people, agents, agentsLoaded, error: dirError } = useDirectory(me.getUid());
  const directory = useMemo(() => [...people, ...agents], [people, agents]);
  const active = keyOf(target);
  const recent = useRecent(active);
  const groupsBuilder = useMemo(() => new Chat.GroupsRequestBuilder().setLimit(30), []);

  const open = useCallback((t: Target) => {
    setTarget(t);
    setThread(undefined);
    setDetails(false);
    setGoTo(undefined);
    setError("");
  }, []);

  // A search result: its conversation at the message, or its thread.
  const openResult = useCallback(
    async (m: Chat.BaseMessage) => {
      try {
        const group = m.getReceiverType() === Chat.RECEIVER_TYPE.GROUP;
        const other = m.getSender()?.getUid() === me.getUid() ? m.getReceiverId() : (m.getSender()?.getUid() ?? "");
        const r = await resolvePlace({ kind: group ? "group" : "user", id: group ? m.getReceiverId() : other, thread: m.getParentMessageId() || undefined });
        setTarget(r.target);
        setDetails(false);
        setSearch(undefined);
        setThread(r.thread);
        setGoTo(m.getParentMessageId() ? undefined : m.getId());
      } catch (e) {
        setError(errorText(e));
      }
    },
    [me],
  );

  const close = useCallback(() => {
    setTarget(undefined);
    setThread(undefined);
    setDetails(false);
  }, []);
  const openThread = useCallback((m: Chat.BaseMessage) => {
    setDetails(false);
    setSearch(undefined);
    setThread(m);
  }, []);

  const openGroup = useCallback(
    async (g: Chat.Group) => {
      try {
        const joined = g.getHasJoined() ? g : await Chat.joinGroup(g.getGuid(), g.getType());
        open({ kind: "group", group: joined });
      } catch (e) {
        setError(errorText(e));
      }
    },
    [open],
  );

  // "Message privately" and other components asking to open a chat.
  useEffect(() => {
    const s = ChatUIEvents.ccOpenChat.subscribe(({ user, group }) => {
      if (user) open({ kind: "user", user });
      else if (group) void openGroup(group);
    });
    return () => s.unsubscribe();
  }, [open, openGroup]);

  // An agent the admin disabled disappears from the directory: close its conversation.
  const openAgent = target?.kind === "user" && target.user.getKind() === "agent" ? target.user.getUid() : undefined;
  useEffect(() => {
    if (openAgent && agentsLoaded && !agents.some((a) => a.getUid() === openAgent)) {
      setTarget(undefined);
      setThread(undefined);
    }
  }, [agents, agentsLoaded, openAgent]);

  const unreadOf = (key: string): number => {
    const c = recent.find((r) => {
      const w = r.getConversationWith();
      return (w instanceof Chat.Group ? `group:${w.getGuid()}` : `user:${w.getUid()}`) === key;
    });
    return c && key !== active ? c.getUnreadMessageCount() : 0;
  };

  const recentItems = recent.filter((c) => {
    const w = c.getConversationWith();
    return !(w instanceof Chat.User && w.getKind() === "agent" && !agents.some((a) => a.getUid() === w.getUid()));
  });

  return (
    <div className={`agentry-web__workspace${thread || (details && target?.kind === "group") || search !== undefined ? " agentry-web__workspace--thread" : ""}${target ? " agentry-web__workspace--open" : ""}`}>
      <nav className="agentry-web__sidebar" aria-label="Conversations">
        <form className="agentry-web__sidebar-search" role="search" aria-label="Messages" onSubmit={(e) => {
          e.preventDefault();
          setThread(undefined);
          setDetails(false);
          setSearch(searchText);
        }}>
          <input type="search" className="agentry-web__input" aria-label="Search messages" placeholder="Search messages" value={searchText}
            onChange={(e) => setSearchText(e.target.value)} />
        </form>
        <div className="agentry-web__groups">
          <ChatGroups groupsRequestBuilder={groupsBuilder} activeGroup={target?.kind === "group" ? target.group : undefined}
            onItemClick={(g) => void openGroup(g)} onError={(e) => setError(errorText(e))}
            headerView={
              <div className="chat-list__header agentry-web__groups-head">
                <h2 className="chat-list__header-title">Groups</h2>
                <button type="button" className="agentry-web__button agentry-web__button--secondary agentry-web__new-group" onClick={() => setCreating(true)}>
                  New group
                </button>
              </div>
            } />
        </div>
        {recentItems.length ? (
          <section className="agentry-web__section" aria-labelledby="agentry-recent">
            <h2 id="agentry-recent" className="agentry-web__section-title">Recent</h2>
            <ul className="agentry-web__list">
              {recentItems.map((c) => {
                const w = c.getConversationWith();
                const key = w instanceof Chat.Group ? `group:${w.getGuid()}` : `user:${w.getUid()}`;
                const name = w.getName() || (w instanceof Chat.Group ? w.getGuid() : w.getUid());
                const unread = unreadOf(key);
                const lastText = previewOf(c, me.getUid());
                return (
                  <li key={c.getConversationId()}>
                    <button type="button" className="agentry-web__list-item" aria-current={key === active ? "true" : undefined}
                      onClick={() => (w instanceof Chat.Group ? void openGroup(w) : open({ kind: "user", user: w }))}>
                      <Avatar className="agentry-web__avatar" name={name} image={w instanceof Chat.Group ? w.getIcon() : w.getAvatar()} />
                      <span className="agentry-web__list-text">
                        <span className="agentry-web__list-title">{name}</span>
                        <span className="agentry-web__list-sub">{lastText}</span>
                      </span>
                      {unread ? <span className="agentry-web__unread" aria-label={`${unread} unread`}>{unread}</span> : null}
                    </button>
                  </li>
                );
              })}
            </ul>
          </section>
        ) : null}
        <section className="agentry-web__section" aria-labelledby="agentry-agents">
          <h2 id="agentry-agents" className="agentry-web__section-title">Agents</h2>
          {agents.length ? (
            <ul className="agentry-web__list" aria-label="Agents">
              {agents.map((u) => (
                <UserRow key={u.getUid()} user={u} active={active === `user:${u.getUid()}`} onOpen={() => open({ kind: "user", user: u })} />
              ))}
            </ul>
          ) : (
            <p className="agentry-web__muted agentry-web__section-empty">No agents yet.</p>
          )}
        </section>
        <section className="agentry-web__section" aria-labelledby="agentry-people">
          <h2 id="agentry-people" className="agentry-web__section-title">People</h2>
          {people.length ? (
            <ul className="agentry-web__list" aria-label="People">
              {people.map((u) => (
                <UserRow key={u.getUid()} user={u} active={active === `user:${u.getUid()}`} onOpen={() => open({ kind: "user", user: u })}
                  badge={unreadOf(`user:${u.getUid()}`)} />
              ))}
            </ul>
          ) : (
            <p className="agentry-web__muted agentry-web__section-empty">Nobody else yet.</p>
          )}
          {dirError ? <p className="agentry-web__error" role="alert">{dirError}</p> : null}
        </section>
      </nav>
      <main className="agentry-web__main" aria-label={target ? `Conversation with ${titleOf(target)}` : "Conversation"}>
        <ConnectionBanner />
        {error ? (
          <p className="agentry-web__error agentry-web__banner" role="alert">
            {error}
          </p>
        ) : null}
        {target ? (
          <Conversation key={active} target={target} me={me} directory={directory} onOpenThread={openThread} onBack={close}
            goTo={goTo} detailsOpen={details} onToggleDetails={() => {
              setThread(undefined);
              setSearch(undefined);
              setDetails((d) => !d);
            }} />
        ) : (
          <Welcome me={me} />
        )}
      </main>
      {thread && target ? <ThreadPanel key={thread.getId()} target={target} parent={thread} onClose={() => setThread(undefined)} /> : null}
      {search !== undefined && !thread && !details ? (
        <SearchPanel key={search} me={me} target={target} initial={search} onOpen={(m) => void openResult(m)} onClose={() => setSearch(undefined)} />
      ) : null}
      {details && !thread && target?.kind === "group" ? (
        <GroupDetails key={target.group.getGuid()} group={target.group} me={me} directory={directory} onClose={() => setDetails(false)}
          onLeft={close} />
      ) : null}
      <NewGroupDialog open={creating} people={people} agents={agents} onClose={() => setCreating(false)}
        onCreated={(g) => {
          setCreating(false);
          open({ kind: "group", group: g });
        }} />
    </div>
  );
}

