import type { ReceiptType, ReceiverType } from "../constants";
import type { JSONObject } from "../wire";
import type { User } from "./user";

/**
 * A delivery or read receipt: every message up to getMessageId() of the conversation was
 * delivered to (read by) getSender(). "To all" receipts name the highest message every other
 * member of a group has reached; their sender is that message's sender.
 */
export class MessageReceipt {
  protected messageId: number;
  protected sender: User;
  protected receiverId: string;
  protected receiverType: ReceiverType;
  protected receiptType: ReceiptType;
  protected conversationId: string;
  protected timestamp?: number;
  protected deliveredAt?: number;
  protected readAt?: number;

  constructor(f: {
    messageId: number;
    sender: User;
    receiverId: string;
    receiverType: ReceiverType;
    receiptType: ReceiptType;
    conversationId: string;
    timestamp?: number | undefined;
    deliveredAt?: number | undefined;
    readAt?: number | undefined;
  }) {
    this.messageId = f.messageId;
    this.sender = f.sender;
    this.receiverId = f.receiverId;
    this.receiverType = f.receiverType;
    this.receiptType = f.receiptType;
    this.conversationId = f.conversationId;
    if (f.timestamp !== undefined) this.timestamp = f.timestamp;
    if (f.deliveredAt !== undefined) this.deliveredAt = f.deliveredAt;
    if (f.readAt !== undefined) this.readAt = f.readAt;
  }
  getMessageId(): number { return this.messageId; }
  /** Who delivered or read. */
  getSender(): User { return this.sender; }
  /** The group's guid, or in a one-to-one conversation the other party. */
  getReceiverId(): string { return this.receiverId; }
  getReceiverType(): ReceiverType { return this.receiverType; }
  getReceiptType(): ReceiptType { return this.receiptType; }
  getConversationId(): string { return this.conversationId; }
  /** Seconds since the epoch. */
  getTimestamp(): number | undefined { return this.timestamp; }
  getDeliveredAt(): number | undefined { return this.deliveredAt; }
  getReadAt(): number | undefined { return this.readAt; }
}

/** A typing indicator: built for startTyping/endTyping, received in onTypingStarted/Ended. */
export class TypingIndicator {
  protected receiverId: string;
  protected receiverType: ReceiverType;
  protected sender?: User;
  protected metadata?: JSONObject;
  protected conversationId?: string;

  constructor(receiverId: string, receiverType: ReceiverType, metadata?: JSONObject) {
    this.receiverId = receiverId;
    this.receiverType = receiverType;
    if (metadata) this.metadata = metadata;
  }
  getReceiverId(): string { return this.receiverId; }
  getReceiverType(): ReceiverType { return this.receiverType; }
  /** Who types (received indicators only). */
  getSender(): User | undefined { return this.sender; }
  getConversationId(): string | undefined { return this.conversationId; }
  /** Local only: the service relays no metadata with typing indicators. */
  getMetadata(): JSONObject | undefined { return this.metadata; }
  setSender(sender: User): void { this.sender = sender; }
  setConversationId(id: string): void { this.conversationId = id; }
  setMetadata(metadata: JSONObject): void { this.metadata = metadata; }
}
