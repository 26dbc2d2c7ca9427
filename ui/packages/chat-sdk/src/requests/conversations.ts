import type { ChatClient } from "../client";
import { conversationFromWire } from "../mapping";
import type { Conversation } from "../models/conversation";
import { sessionOf } from "../registry";
import type { Session } from "../session";
import type { WireConversation, WirePage } from "../wire";
import { CursorRequest } from "./cursor";

/** The user's conversations, most recent first, with unread counts. */
export class ConversationsRequestBuilder {
  limit = 30;
  type: "user" | "group" | undefined;

  setLimit(limit: number): this {
    this.limit = Math.max(1, Math.min(100, Math.floor(limit)));
    return this;
  }
  /** Only one-to-one ("user") or only group conversations. */
  setConversationType(type: "user" | "group"): this {
    this.type = type;
    return this;
  }
  build(client?: ChatClient): ConversationsRequest { return new ConversationsRequest({ ...this }, sessionOf(client)); }
}

export class ConversationsRequest extends CursorRequest<Conversation, WireConversation> {
  constructor(
    private readonly b: { readonly limit: number; readonly type: "user" | "group" | undefined },
    private readonly s: Session,
  ) {
    super();
  }
  protected load(cursor: string | undefined): Promise<WirePage<WireConversation>> {
    return this.s.http.json<WirePage<WireConversation>>("GET", "/conversations", { query: { limit: this.b.limit, cursor, type: this.b.type } });
  }
  protected async map(items: readonly WireConversation[]): Promise<Conversation[]> {
    const dir = this.s.directory;
    const users = items.flatMap((c) => [c.conversationType === "user" ? c.conversationWith : undefined, c.lastMessage?.sender]);
    const groups = items.filter((c) => c.conversationType === "group").map((c) => c.conversationWith);
    await Promise.all([dir.resolveUsers(users), dir.resolveGroups(groups)]);
    return items.map((c) => conversationFromWire(c, dir));
  }
}
