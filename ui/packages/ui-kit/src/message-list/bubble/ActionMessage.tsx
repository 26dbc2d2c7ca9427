import { Chat } from "@agentry/chat-sdk";

/** actionText tells a membership change in words, with display names (the service's own text
 * uses uids). */
export function actionText(m: Chat.BaseMessage, me: string): string {
  if (!(m instanceof Chat.Action)) return "";
  const name = (u: Chat.User | undefined) => (u ? (u.getUid() === me ? "You" : u.getName()) : "Someone");
  const by = name(m.getActionBy());
  const on = name(m.getActionOn());
  switch (m.getAction()) {
    case "joined":
      return `${on} joined`;
    case "left":
      return `${on} left`;
    case "kicked":
      return `${by} removed ${on}`;
    case "banned":
      return `${by} banned ${on}`;
    case "unbanned":
      return `${by} unbanned ${on}`;
    case "added":
      return `${by} added ${on}`;
    case "scopeChanged":
      return `${by} made ${on} ${m.getNewScope() ?? "a participant"}`;
    case "ownershipTransferred":
      return `${by} made ${on} the owner`;
  }
  return m.getMessage() || `${by} changed the group`;
}

/** A group action message: a centred line between the bubbles. */
export function ActionMessage({ message, me }: { message: Chat.BaseMessage; me: string }) {
  return (
    <div className="chat-message-list__action-message">
      <span className="chat-action-bubble">{actionText(message, me)}</span>
    </div>
  );
}
