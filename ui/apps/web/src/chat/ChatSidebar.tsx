// The chat's left pane: message search, the groups, recent conversations, agents and people.
import { Chat } from "@agentry/chat-sdk";
import { Avatar, ChatGroups } from "@agentry/ui-kit";
import { useMemo, useState } from "react";
import { errorText } from "../session";
import type { useDirectory } from "./directory";
import { previewOf, UserRow } from "./Sidebar";
import type { useChatNavigation } from "./useChatNavigation";

export const keyOf = (w: Chat.User | Chat.Group): string => (w instanceof Chat.Group ? `group:${w.getGuid()}` : `user:${w.getUid()}`);

export interface ChatSidebarProps {
  me: Chat.User;
  nav: ReturnType<typeof useChatNavigation>;
  dir: ReturnType<typeof useDirectory>;
  recent: readonly Chat.Conversation[];
  /** keyOf the open conversation's user or group. */
  active: string;
  unreadOf(key: string): number;
  onNewGroup(): void;
}

export function ChatSidebar(p: ChatSidebarProps) {
  const { nav, dir } = p;
  const [searchText, setSearchText] = useState("");
  const groupsBuilder = useMemo(() => new Chat.GroupsRequestBuilder().setLimit(30), []);
  const openUser = (u: Chat.User) => nav.open({ kind: "user", user: u });
  return (
    <nav className="agentry-web__sidebar" aria-label="Conversations">
      <form className="agentry-web__sidebar-search" role="search" aria-label="Messages" onSubmit={(e) => {
        e.preventDefault();
        nav.setThread(undefined);
        nav.setDetails(false);
        nav.setSearch(searchText);
      }}>
        <input type="search" className="agentry-web__input agentry-web__search-input" aria-label="Search messages" placeholder="Search messages" value={searchText}
          onChange={(e) => setSearchText(e.target.value)} />
      </form>
      <div className="agentry-web__groups">
        <ChatGroups groupsRequestBuilder={groupsBuilder} activeGroup={nav.target?.kind === "group" ? nav.target.group : undefined}
          onItemClick={(g) => void nav.openGroup(g)} onError={(e) => nav.setError(errorText(e))} hideSearch
          subtitleView={(g) => <GroupPreview group={g} {...p} />}
          trailingView={(g) => {
            const unread = p.unreadOf(keyOf(g));
            return unread ? <span className="agentry-web__unread" aria-label={`${unread} unread`}>{unread}</span> : null;
          }}
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
        {dir.agents.length ? (
          <ul className="agentry-web__list" aria-label="Agents">
            {dir.agents.map((u) => <UserRow key={u.getUid()} user={u} active={p.active === keyOf(u)} onOpen={() => openUser(u)} />)}
          </ul>
        ) : (
          <p className="agentry-web__muted agentry-web__section-empty">No agents yet.</p>
        )}
      </section>
      <section className="agentry-web__section" aria-labelledby="agentry-people">
        <h2 id="agentry-people" className="agentry-web__section-title">People</h2>
        {dir.people.length ? (
          <ul className="agentry-web__list" aria-label="People">
            {dir.people.map((u) => <UserRow key={u.getUid()} user={u} active={p.active === keyOf(u)} onOpen={() => openUser(u)} badge={p.unreadOf(keyOf(u))} />)}
          </ul>
        ) : (
          <p className="agentry-web__muted agentry-web__section-empty">Nobody else yet.</p>
        )}
        {dir.error ? <p className="agentry-web__error" role="alert">{dir.error}</p> : null}
      </section>
    </nav>
  );
}

/** A group row's second line: its last message when the group has a conversation, else its
 * member count (groups live in their own list, not again among the direct messages). */
function GroupPreview({ group, recent, me }: { group: Chat.Group } & ChatSidebarProps) {
  const c = recent.find((r) => keyOf(r.getConversationWith()) === keyOf(group));
  const n = group.getMembersCount();
  return <>{c?.getLastMessage() ? previewOf(c, me.getUid()) : `${n} member${n === 1 ? "" : "s"}`}</>;
}

/** Direct conversations (people and agents), newest first, without those of agents no longer
 * listed (an admin disabled them); groups are in the Groups list. */
function RecentList(p: ChatSidebarProps) {
  const items = p.recent.filter((c) => {
    const w = c.getConversationWith();
    if (w instanceof Chat.Group) return false;
    return !(w.getKind() === "agent" && !p.dir.agents.some((a) => a.getUid() === w.getUid()));
  });
  if (!items.length) return null;
  return (
    <section className="agentry-web__section" aria-labelledby="agentry-recent">
      <h2 id="agentry-recent" className="agentry-web__section-title">Direct messages</h2>
      <ul className="agentry-web__list">
        {items.map((c) => {
          const w = c.getConversationWith();
          const key = keyOf(w);
          const name = w.getName() || (w instanceof Chat.Group ? w.getGuid() : w.getUid());
          const unread = p.unreadOf(key);
          return (
            <li key={c.getConversationId()}>
              <button type="button" className="agentry-web__list-item" aria-current={key === p.active ? "true" : undefined}
                onClick={() => (w instanceof Chat.Group ? void p.nav.openGroup(w) : p.nav.open({ kind: "user", user: w }))}>
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
