// The chat: the left pane (groups, recent conversations, agents, people), the conversation
// (message list and composer; agent chat with the welcome view, streamed answers and the
// recipe card), the thread panel and the group details; a URL per conversation and thread.
import type { Chat } from "@agentry/chat-sdk";
import { useEffect, useMemo, useState } from "react";
import { ChatSidebar, keyOf } from "./ChatSidebar";
import "./composer.css";
import "./groups.css";
import { Conversation, ThreadPanel, titleOf, Welcome } from "./Conversation";
import { useDirectory, useRecent } from "./directory";
import { GroupDetails } from "./GroupDetails";
import { NewGroupDialog } from "./NewGroupDialog";
import { SearchPanel } from "./SearchPanel";
import { ConnectionBanner } from "./Sidebar";
import { useChatNavigation } from "./useChatNavigation";

export type { Target } from "./Conversation";

export function ChatPage({ me }: { me: Chat.User }) {
  const nav = useChatNavigation(me);
  const { target, thread, details, search, setThread, setDetails, setSearch, open, close } = nav;
  const [creating, setCreating] = useState(false);
  const dir = useDirectory(me.getUid());
  const { people, agents, agentsLoaded } = dir;
  const directory = useMemo(() => [...people, ...agents], [people, agents]);
  const active = target ? keyOf(target.kind === "group" ? target.group : target.user) : "";
  const recent = useRecent(active);

  // An agent the admin disabled disappears from the directory: close its conversation.
  const openAgent = target?.kind === "user" && target.user.getKind() === "agent" ? target.user.getUid() : undefined;
  useEffect(() => {
    if (openAgent && agentsLoaded && !agents.some((a) => a.getUid() === openAgent)) nav.show({ target: undefined, thread: undefined });
  }, [agents, agentsLoaded, openAgent, nav.show]);

  const unreadOf = (key: string): number => {
    const c = recent.find((r) => keyOf(r.getConversationWith()) === key);
    return c && key !== active ? c.getUnreadMessageCount() : 0;
  };
  const side = thread || (details && target?.kind === "group") || search !== undefined;
  return (
    <div className={`agentry-web__workspace${side ? " agentry-web__workspace--thread" : ""}${target ? " agentry-web__workspace--open" : ""}`}>
      <ChatSidebar me={me} nav={nav} dir={dir} recent={recent} active={active} unreadOf={unreadOf} onNewGroup={() => setCreating(true)} />
      <main className="agentry-web__main" aria-label={target ? `Conversation with ${titleOf(target)}` : "Conversation"}>
        <ConnectionBanner />
        {nav.error ? (
          <p className="agentry-web__error agentry-web__banner" role="alert">
            {nav.error}
          </p>
        ) : null}
        {target ? (
          <Conversation key={active} target={target} me={me} directory={directory} onOpenThread={nav.openThread} onBack={close}
            goTo={nav.goTo} detailsOpen={details} onToggleDetails={() => {
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
        <SearchPanel key={search} me={me} target={target} initial={search} onOpen={(m) => void nav.openResult(m)} onClose={() => setSearch(undefined)} />
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
