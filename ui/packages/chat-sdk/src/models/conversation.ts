import type { ReceiverType } from "../constants";
import type { Group } from "./group";
import type { BaseMessage } from "./message";
import type { User } from "./user";

/** An entry of the logged-in user's conversation list. */
export class Conversation {
  protected conversationId: string;
  protected conversationType: ReceiverType;
  protected conversationWith: User | Group;
  protected lastMessage?: BaseMessage;
  protected unreadMessageCount: number;
  protected updatedAt?: number;
  protected lastReadMessageId: number;
  protected lastDeliveredMessageId: number;

  constructor(f: {
    conversationId: string;
    conversationType: ReceiverType;
    conversationWith: User | Group;
    lastMessage?: BaseMessage | undefined;
    unreadMessageCount: number;
    updatedAt?: number | undefined;
    lastReadMessageId?: number | undefined;
    lastDeliveredMessageId?: number | undefined;
  }) {
    this.conversationId = f.conversationId;
    this.conversationType = f.conversationType;
    this.conversationWith = f.conversationWith;
    if (f.lastMessage) this.lastMessage = f.lastMessage;
    this.unreadMessageCount = f.unreadMessageCount;
    if (f.updatedAt !== undefined) this.updatedAt = f.updatedAt;
    this.lastReadMessageId = f.lastReadMessageId ?? 0;
    this.lastDeliveredMessageId = f.lastDeliveredMessageId ?? 0;
  }
  getConversationId(): string { return this.conversationId; }
  getConversationType(): ReceiverType { return this.conversationType; }
  /** The other user, or the group. */
  getConversationWith(): User | Group { return this.conversationWith; }
  getLastMessage(): BaseMessage | undefined { return this.lastMessage; }
  getUnreadMessageCount(): number { return this.unreadMessageCount; }
  getUpdatedAt(): number | undefined { return this.updatedAt; }
  getLastReadMessageId(): number { return this.lastReadMessageId; }
  getLastDeliveredMessageId(): number { return this.lastDeliveredMessageId; }
}
