// The chat: the left pane (groups, recent conversations, agents, people), the conversation
// (message list and composer; agent chat with the welcome view, streamed answers and the
// recipe card) and the thread panel.
import { Chat } from "@agentry/chat-sdk";
import { ChatGroups, ChatMessageEvents, ChatMessageList, ChatUIEvents } from "@agentry/ui-kit";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useConnection } from "../connection";
import { errorText } from "../session";
import { Composer } from "./Composer";
import "./composer.css";
import { parsePath, pathOf, type Place } from "./places";
import { recipeTemplates, showRecipeCard } from "./RecipeCard";

export type Target = { kind: "group"; group: Chat.Group } | { kind: "user"; user: Chat.User };

const keyOf = (t: Target | undefined): string => (!t ? "" : t.kind === "group" ? `group:${t.group.getGuid()}` : `user:${t.user.getUid()}`);
const agentActions = { "show-recipe-card": showRecipeCard };

/** People and agents of the directory. The agent list reloads as soon as the service says an
 * admin changed an agent (agents.changed: enabled, disabled, deleted, renamed), and everything
 * on focus and every 20 s as a fallback (a frame missed while offline). */
function useDirectory(me: string): { people: Chat.User[]; agents: Chat.User[]; agentsLoaded: boolean; error: string } {
  const [people, setPeople] = useState<Chat.User[]>([]);
  const [agents, setAgents] = useState<Chat.User[]>([]);
  const [agentsLoaded, setAgentsLoaded] = useState(false);
  const [error, setError] = useState("");
  useEffect(() => {
    let live = true;
    let latest = 0; // only the newest load applies: an older answer may arrive last
    const load = async () => {
      const n = ++latest;
      try {
        const [p, a] = await Promise.all([
          new Chat.UsersRequestBuilder().setKind("user").setLimit(100).build().fetchNext(),
          new Chat.UsersRequestBuilder().setKind("agent").setLimit(100).build().fetchNext(),
        ]);
        if (!live || n !== latest) return;
        setPeople(p.filter((u) => u.getUid() !== me));
        setAgents(a);
        setAgentsLoaded(true);
        setError("");
      } catch (e) {
        if (live && n === latest) setError(errorText(e));
      }
    };
    void load();
    const id = "agentry-web-directory";
    Chat.addAgentListener(id, new Chat.AgentListener({ onAgentsChanged: () => void load() }));
    const timer = window.setInterval(load, 20_000);
    window.addEventListener("focus", load);
    return () => {
      live = false;
      Chat.removeAgentListener(id);
      window.clearInterval(timer);
      window.removeEventListener("focus", load);
    };
  }, [me]);
  return { people, agents, agentsLoaded, error };
}

/** The user's conversations with unread counts, reloaded when messages arrive. */
function useRecent(active: string): Chat.Conversation[] {
  const [list, setList] = useState<Chat.Conversation[]>([]);
  const timer = useRef<number | undefined>(undefined);
  const load = useCallback(() => {
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => {
      new Chat.ConversationsRequestBuilder().setLimit(20).build().fetchNext().then(setList, () => undefined);
    }, 250);
  }, []);
  useEffect(() => {
    load();
    const id = "agentry-web-recent";
    Chat.addMessageListener(id, new Chat.MessageListener({
      onTextMessageReceived: load,
      onMediaMessageReceived: load,
      onCustomMessageReceived: load,
      onAgenticMessageReceived: load,
      onMessagesRead: load,
      // The preview is the last message as it stands: an edit or a delete changes it.
      onMessageEdited: load,
      onMessageDeleted: load,
    }));
    const gid = "agentry-web-recent-groups";
    Chat.addGroupListener(gid, new Chat.GroupListener({
      onGroupMemberJoined: load,
      onGroupMemberLeft: load,
      onGroupMemberKicked: load,
      onGroupMemberBanned: load,
      onMemberAddedToGroup: load,
      onGroupDeleted: load,
    }));
    const sent = ChatMessageEvents.ccMessageSent.subscribe(load);
    return () => {
      Chat.removeMessageListener(id);
      Chat.removeGroupListener(gid);
      sent.unsubscribe();
      window.clearTimeout(timer.current);
    };
  }, [load]);
  // Opening a conversation reads it.
  useEffect(() => {
    const t = window.setTimeout(load, 1200);
    return () => window.clearTimeout(t);
  }, [active, load]);
  return list;
}

function Avatar({ name, image }: { name: string; image?: string | undefined }) {
  const [broken, setBroken] = useState(false);
  const emoji = image && !/^(https?:|data:|\/)/.test(image) ? image : undefined;
  return (
    <span className="agentry-web__avatar" aria-hidden="true">
      {image && !emoji && !broken ? <img src={image} alt="" onError={() => setBroken(true)} /> : (emoji ?? (name.slice(0, 1).toUpperCase() || "?"))}
    </span>
  );
}

function UserRow({ user, active, onOpen, badge }: { user: Chat.User; active: boolean; onOpen(): void; badge?: number }) {
  const isAgent = user.getKind() === "agent";
  return (
    <li>
      <button type="button" className="agentry-web__list-item" aria-current={active ? "true" : undefined} onClick={onOpen}
        data-uid={user.getUid()}>
        <Avatar name={user.getName() || user.getUid()} image={user.getAvatar()} />
        <span className="agentry-web__list-text">
          <span className="agentry-web__list-title">{user.getName() || user.getUid()}</span>
          <span className="agentry-web__list-sub">{isAgent ? "Agent" : user.getUid()}</span>
        </span>
        {badge ? <span className="agentry-web__unread" aria-label={`${badge} unread`}>{badge}</span> : null}
      </button>
    </li>
  );
}

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

/** "You're offline" at once, "Reconnecting…" after a moment (a socket reconnects quickly). */
function ConnectionBanner() {
  const c = useConnection();
  const [shown, setShown] = useState<"offline" | "connecting" | undefined>();
  useEffect(() => {
    if (c === "online") {
      setShown(undefined);
      return;
    }
    const t = window.setTimeout(() => setShown(c), c === "offline" ? 0 : 2000);
    return () => window.clearTimeout(t);
  }, [c]);
  return (
    <div className="agentry-web__connection" role="status">
      {shown === "offline" ? (
        <p className="agentry-web__connection-text agentry-web__connection-text--offline">You're offline. Messages you send will go out when the connection is back.</p>
      ) : shown === "connecting" ? (
        <p className="agentry-web__connection-text">Reconnecting to the chat service…</p>
      ) : null}
    </div>
  );
}

/** A Recent row's second line: the last message as it stands. */
function previewOf(c: Chat.Conversation, me: string): string {
  const last = c.getLastMessage();
  const w = c.getConversationWith();
  if (!last) return w instanceof Chat.Group ? "Group" : "Conversation";
  const who = last.getSender()?.getUid() === me ? "You: " : w instanceof Chat.Group && last.getCategory() !== "action" ? `${last.getSender()?.getName() ?? ""}: ` : "";
  if (last.getDeletedAt()) return `${who}Message deleted`;
  if (last instanceof Chat.TextMessage || last instanceof Chat.AgenticMessage) return who + last.getText();
  if (last instanceof Chat.MediaMessage) return `${who}📎 ${last.getCaption() || last.getAttachment()?.getName() || last.getType()}`;
  if (last instanceof Chat.Action) return last.getMessage() || "Group update";
  if (last instanceof Chat.CustomMessage) return who + (last.getConversationText() || last.getType());
  return w instanceof Chat.Group ? "Group" : "Conversation";
}

export function ChatPage({ me }: { me: Chat.User }) {
  const [target, setTarget] = useState<Target | undefined>();
  const [thread, setThread] = useState<Chat.BaseMessage | undefined>();
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
  const active = keyOf(target);
  const recent = useRecent(active);
  const groupsBuilder = useMemo(() => new Chat.GroupsRequestBuilder().setLimit(30), []);

  const open = useCallback((t: Target) => {
    setTarget(t);
    setThread(undefined);
    setError("");
  }, []);

  const close = useCallback(() => {
    setTarget(undefined);
    setThread(undefined);
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
    <div className={`agentry-web__workspace${thread ? " agentry-web__workspace--thread" : ""}${target ? " agentry-web__workspace--open" : ""}`}>
      <nav className="agentry-web__sidebar" aria-label="Conversations">
        <div className="agentry-web__groups">
          <ChatGroups groupsRequestBuilder={groupsBuilder} activeGroup={target?.kind === "group" ? target.group : undefined}
            onItemClick={(g) => void openGroup(g)} onError={(e) => setError(errorText(e))} />
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
                      <Avatar name={name} image={w instanceof Chat.Group ? w.getIcon() : w.getAvatar()} />
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
        {target ? <Conversation key={active} target={target} onOpenThread={setThread} onBack={close} /> : <Welcome me={me} />}
      </main>
      {thread && target ? <ThreadPanel key={thread.getId()} target={target} parent={thread} onClose={() => setThread(undefined)} /> : null}
    </div>
  );
}

function titleOf(t: Target): string {
  return t.kind === "group" ? t.group.getName() || t.group.getGuid() : t.user.getName() || t.user.getUid();
}

function Welcome({ me }: { me: Chat.User }) {
  return (
    <div className="agentry-web__empty">
      <h1 className="agentry-web__title">Welcome, {me.getName() || me.getUid()}</h1>
      <p className="agentry-web__muted">Pick a group, a person or an agent on the left to start chatting.</p>
    </div>
  );
}

function Conversation({ target, onOpenThread, onBack }: { target: Target; onOpenThread(m: Chat.BaseMessage): void; onBack(): void }) {
  const isAgent = target.kind === "user" && target.user.getKind() === "agent";
  const title = titleOf(target);
  const sub =
    target.kind === "group"
      ? `Group · ${target.group.getMembersCount()} member${target.group.getMembersCount() === 1 ? "" : "s"}`
      : isAgent
        ? "Agent"
        : `@${target.user.getUid()}`;
  return (
    <div className="agentry-web__conversation">
      <header className="agentry-web__conversation-head">
        <button type="button" className="agentry-web__button agentry-web__button--quiet agentry-web__back" onClick={onBack}>
          <span aria-hidden="true">←</span>
          <span className="agentry-web__sr-only">Back to conversations</span>
        </button>
        <Avatar name={title} image={target.kind === "group" ? target.group.getIcon() : target.user.getAvatar()} />
        <div>
          <h1 className="agentry-web__conversation-title">{title}</h1>
          <p className="agentry-web__list-sub">{sub}</p>
        </div>
      </header>
      <div className="agentry-web__messages">
        {target.kind === "group" ? (
          <ChatMessageList group={target.group} onThreadRepliesClick={onOpenThread} showUnreadDivider />
        ) : (
          <ChatMessageList user={target.user} onThreadRepliesClick={onOpenThread} isAgentChat={isAgent} loadLastAgentConversation={isAgent}
            showUnreadDivider={!isAgent}
            agentActions={isAgent ? agentActions : undefined} templates={isAgent ? recipeTemplates : undefined}
            hideReplyInThreadOption={isAgent} />
        )}
      </div>
      <Composer receiverId={target.kind === "group" ? target.group.getGuid() : target.user.getUid()}
        receiverType={target.kind === "group" ? Chat.RECEIVER_TYPE.GROUP : Chat.RECEIVER_TYPE.USER}
        label={isAgent ? `Ask ${title}` : `Message ${title}`} />
    </div>
  );
}

function ThreadPanel({ target, parent, onClose }: { target: Target; parent: Chat.BaseMessage; onClose(): void }) {
  const text = parent instanceof Chat.TextMessage ? parent.getText() : "";
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => closeRef.current?.focus(), []);
  return (
    <aside className="agentry-web__thread" aria-label="Thread">
      <header className="agentry-web__thread-head">
        <div>
          <h2 className="agentry-web__section-title agentry-web__thread-title">Thread</h2>
          <p className="agentry-web__thread-parent">
            <strong>{parent.getSender()?.getName() ?? ""}</strong> {text}
          </p>
        </div>
        <button ref={closeRef} type="button" className="agentry-web__button agentry-web__button--quiet" onClick={onClose}>
          Close thread
        </button>
      </header>
      <div className="agentry-web__messages">
        {target.kind === "group" ? (
          <ChatMessageList group={target.group} parentMessageId={parent.getId()} />
        ) : (
          <ChatMessageList user={target.user} parentMessageId={parent.getId()} />
        )}
      </div>
      <Composer receiverId={target.kind === "group" ? target.group.getGuid() : target.user.getUid()}
        receiverType={target.kind === "group" ? Chat.RECEIVER_TYPE.GROUP : Chat.RECEIVER_TYPE.USER}
        parentMessageId={parent.getId()} label="Reply in thread" />
    </aside>
  );
}
