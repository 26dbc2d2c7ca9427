// The sidebar's data: the directory (people and agents, live) and the recent conversations.
import { Chat } from "@agentry/chat-sdk";
import { ChatMessageEvents } from "@agentry/ui-kit";
import { useCallback, useEffect, useRef, useState } from "react";
import { errorText } from "../session";

/** People and agents of the directory. The agent list reloads as soon as the service says an
 * admin changed an agent (agents.changed: enabled, disabled, deleted, renamed), and everything
 * on focus and every 20 s as a fallback (a frame missed while offline). */
export function useDirectory(me: string): { people: Chat.User[]; agents: Chat.User[]; agentsLoaded: boolean; error: string } {
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
export function useRecent(active: string): Chat.Conversation[] {
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

