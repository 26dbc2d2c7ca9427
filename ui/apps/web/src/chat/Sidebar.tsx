// Pieces of the sidebar and the conversation header: person and agent rows, the
// Recent preview line and the connection banner.
import { Chat } from "@agentry/chat-sdk";
import { Avatar } from "@agentry/ui-kit";
import { useEffect, useState } from "react";
import { useConnection } from "../connection";

/** "Online", "Last seen 5 min ago", "Last seen 3 Nov", or nothing for an agent or no data. */
export function presenceText(u: Chat.User, now = Date.now()): string {
  if (u.getKind() === "agent") return "";
  if (u.getStatus() === "online") return "Online";
  const at = u.getLastActiveAt();
  if (at === undefined) return u.getStatus() === "offline" ? "Offline" : "";
  const min = Math.floor((now / 1000 - at) / 60);
  if (min < 1) return "Last seen just now";
  if (min < 60) return `Last seen ${min} min ago`;
  if (min < 24 * 60) return `Last seen ${Math.floor(min / 60)} h ago`;
  return `Last seen ${new Date(at * 1000).toLocaleDateString([], { day: "numeric", month: "short" })}`;
}

export function UserRow({ user, active, onOpen, badge }: { user: Chat.User; active: boolean; onOpen(): void; badge?: number }) {
  const isAgent = user.getKind() === "agent";
  return (
    <li>
      <button type="button" className="agentry-web__list-item" aria-current={active ? "true" : undefined} onClick={onOpen}
        data-uid={user.getUid()}>
        <Avatar className="agentry-web__avatar" name={user.getName() || user.getUid()} image={user.getAvatar()} online={isAgent || !user.getStatus() ? undefined : user.getStatus() === "online"} />
        <span className="agentry-web__list-text">
          <span className="agentry-web__list-title">{user.getName() || user.getUid()}</span>
          <span className="agentry-web__list-sub">{isAgent ? "Agent" : presenceText(user) || user.getUid()}</span>
        </span>
        {badge ? <span className="agentry-web__unread" aria-label={`${badge} unread`}>{badge}</span> : null}
      </button>
    </li>
  );
}

/** "You're offline" at once, "Reconnecting…" after a moment (a socket reconnects quickly). */
export function ConnectionBanner() {
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
export function previewOf(c: Chat.Conversation, me: string): string {
  const last = c.getLastMessage();
  const w = c.getConversationWith();
  if (!last) return w instanceof Chat.Group ? "Group" : "Conversation";
  const who = last.getSender()?.getUid() === me ? "You: " : w instanceof Chat.Group && last.getCategory() !== "action" ? `${last.getSender()?.getName() ?? ""}: ` : "";
  if (last.getDeletedAt()) return `${who}Message deleted`;
  // A run's step (a tool call or result, the user's frontend result too) has no text to show.
  if (last instanceof Chat.AgenticMessage && !last.getText().trim()) return last.getType() === "agent_error" ? "The agent could not answer" : "Used a tool";
  if (last instanceof Chat.TextMessage || last instanceof Chat.AgenticMessage) return who + last.getText();
  if (last instanceof Chat.MediaMessage) return `${who}📎 ${last.getCaption() || last.getAttachment()?.getName() || last.getType()}`;
  if (last instanceof Chat.Action) return last.getMessage() || "Group update";
  if (last instanceof Chat.CustomMessage) return who + (last.getConversationText() || last.getType());
  return w instanceof Chat.Group ? "Group" : "Conversation";
}

