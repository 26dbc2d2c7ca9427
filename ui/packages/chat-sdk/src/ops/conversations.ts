import type { Session } from "../session";
import type { WireConversation, WirePage } from "../wire";

/** Every conversation of the user of one type (pages of 100). */
async function all(s: Session, type: "user" | "group"): Promise<WireConversation[]> {
  const out: WireConversation[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await s.http.json<WirePage<WireConversation>>("GET", "/conversations", { query: { type, limit: 100, cursor } });
    out.push(...(page.items ?? []));
    if (!page.next || (page.items ?? []).length === 0) return out;
    cursor = page.next;
  }
}

function counts(cs: readonly WireConversation[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of cs) if (c.unreadMessageCount > 0) out[c.conversationWith] = c.unreadMessageCount;
  return out;
}

/** { [uid]: unread messages } for one user (0 when none). */
export async function getUnreadMessageCountForUser(s: Session, uid: string): Promise<Record<string, number>> {
  return { [uid]: counts(await all(s, "user"))[uid] ?? 0 };
}

/** { [guid]: unread messages } for one group (0 when none). */
export async function getUnreadMessageCountForGroup(s: Session, guid: string): Promise<Record<string, number>> {
  return { [guid]: counts(await all(s, "group"))[guid] ?? 0 };
}

/** { [uid]: unread messages } of every one-to-one conversation with unread messages. */
export async function getUnreadMessageCountForAllUsers(s: Session): Promise<Record<string, number>> {
  return counts(await all(s, "user"));
}

/** { [guid]: unread messages } of every group with unread messages. */
export async function getUnreadMessageCountForAllGroups(s: Session): Promise<Record<string, number>> {
  return counts(await all(s, "group"));
}
