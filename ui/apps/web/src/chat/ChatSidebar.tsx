// The chat's left pane: message search, the groups, recent conversations, agents and people.
import { Chat } from "@agentry/chat-sdk";
import { Avatar, ChatGroups } from "@agentry/ui-kit";
import { useMemo, useState } from "react";
import { errorText } from "../session";
import type { Target } from "./Conversation";
import { previewOf, UserRow } from "./Sidebar";

export const keyOf = (w: Chat.User | Chat.Group): string => (w instanceof Chat.Group ? `group:${w.getGuid()}` : `user:${w.getUid()}`);

export interface ChatSidebarProps {
  me: Chat.User;
  target: Target | undefined;
  /** keyOf the open conversation's user or group. */
  active: string;
  recent: readonly Chat.Conversation[];
  people: readonly Chat.User[];
  agents: readonly Chat.User[];
  dirError: string;
  unreadOf(key: string): number;
  onSearch(text: string): void;
  onNewGroup(): void;
  open(t: Target): void;
  openGroup(g: Chat.Group): Promise<void>;
  setError(e: string): void;
}

export function ChatSidebar(p: ChatSidebarProps) {
  const [searchText, setSearchText] = useState("");
  const groupsBuilder = useMemo(() => new Chat.GroupsRequestBuilder().setLimit(30), []);
  const openUser = (u: Chat.User) => p.open({ kind: "user", user: u });
  return (
    <nav className="agentry-web__sidebar" aria-label="Conversations">
      <form className="agentry-web__sidebar-search" role="search" aria-label="Messages" onSubmit={(e) => {
        e.preventDefault();
        p.onSearch(searchText);
      }}>
        <input type="search" className="agentry-web__input" aria-label="Search messages" placeholder="Search messages" value={searchText}
          onChange={(e) => setSearchText(e.target.value)} />
      </form>
      <div className="agentry-web__groups">
        <ChatGroups groupsRequestBuilder={groupsBuilder} activeGroup={p.target?.kind === "group" ? p.target.group : undefined}
          onItemClick={(g) => void p.openGroup(g)} onError={(e) => p.setError(errorText(e))}
          headerView={
            <div className="chat-list__header agentry-web__groups-head">
              <h2 className="chat-list__header-title">Groups</h2>
              <button type="button" className="agentry-web__button agentry-web__button--secondary agentry-web__new-group" onClick={p.onNewGroup}>
                New group
              </button>
            </div>
          } />
      </div>
      <RecentList {...p} />
      <section className="agentry-web__section" aria-labelledby="agentry-agents">
        <h2 id="agentry-agents" className="agentry-web__section-title">Agents</h2>
        {p.agents.length ? (
          <ul className="agentry-web__list" aria-label="Agents">
            {p.agents.map((u) => <UserRow key={u.getUid()} user={u} active={p.active === keyOf(u)} onOpen={() => openUser(u)} />)}
          </ul>
        ) : (
          <p className="agentry-web__muted agentry-web__section-empty">No agents yet.</p>
        )}
      </section>
      <section className="agentry-web__section" aria-labelledby="agentry-people">
        <h2 id="agentry-people" className="agentry-web__section-title">People</h2>
        {p.people.length ? (
          <ul className="agentry-web__list" aria-label="People">
            {p.people.map((u) => <UserRow key={u.getUid()} user={u} active={p.active === keyOf(u)} onOpen={() => openUser(u)} badge={p.unreadOf(keyOf(u))} />)}
          </ul>
        ) : (
          <p className="agentry-web__muted agentry-web__section-empty">Nobody else yet.</p>
        )}
        {p.dirError ? <p className="agentry-web__error" role="alert">{p.dirError}</p> : null}
      </section>
    </nav>
  );
}

/** Recent conversations, without those of agents no longer listed (an admin disabled them). */
function RecentList(p: ChatSidebarProps) {
  const items = p.recent.filter((c) => {
    const w = c.getConversationWith();
    return !(w instanceof Chat.User && w.getKind() === "agent" && !p.agents.some((a) => a.getUid() === w.getUid()));
  });
  if (!items.length) return null;
  return (
    <section className="agentry-web__section" aria-labelledby="agentry-recent">
      <h2 id="agentry-recent" className="agentry-web__section-title">Recent</h2>
      <ul className="agentry-web__list">
        {items.map((c) => {
          const w = c.getConversationWith();
          const key = keyOf(w);
          const name = w.getName() || (w instanceof Chat.Group ? w.getGuid() : w.getUid());
          const unread = p.unreadOf(key);
          return (
            <li key={c.getConversationId()}>
              <button type="button" className="agentry-web__list-item" aria-current={key === p.active ? "true" : undefined}
                onClick={() => (w instanceof Chat.Group ? void p.openGroup(w) : p.open({ kind: "user", user: w }))}>
                <Avatar className="agentry-web__avatar" name={name} image={w instanceof Chat.Group ? w.getIcon() : w.getAvatar()} />
                <span className="agentry-web__list-text">
                  <span className="agentry-web__list-title">{name}</span>
                  <span className="agentry-web__list-sub">{previewOf(c, p.me.getUid())}</span>
                </span>
                {unread ? <span className="agentry-web__unread" aria-label={`${unread} unread`}>{unread}</span> : null}
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
