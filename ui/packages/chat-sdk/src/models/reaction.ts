import type { ReceiverType } from "../constants";
import type { User } from "./user";

/** One reaction on a message with how many reacted and whether the logged-in user did. */
export class ReactionCount {
  protected reaction: string;
  protected count: number;
  protected reactedByMe: boolean;

  constructor(reaction: string, count: number, reactedByMe = false) {
    this.reaction = reaction;
    this.count = count;
    this.reactedByMe = reactedByMe;
  }
  getReaction(): string { return this.reaction; }
  getCount(): number { return this.count; }
  getReactedByMe(): boolean { return this.reactedByMe; }
  setCount(count: number): void { this.count = count; }
  setReactedByMe(reacted: boolean): void { this.reactedByMe = reacted; }
}

/** One user's reaction to a message. */
export class Reaction {
  protected messageId: number;
  protected reaction: string;
  protected uid: string;
  protected reactedAt: number;
  protected reactedBy?: User;

  constructor(messageId: number, reaction: string, uid: string, reactedAt: number, reactedBy?: User) {
    this.messageId = messageId;
    this.reaction = reaction;
    this.uid = uid;
    this.reactedAt = reactedAt;
    if (reactedBy) this.reactedBy = reactedBy;
  }
  getMessageId(): number { return this.messageId; }
  getReaction(): string { return this.reaction; }
  getUid(): string { return this.uid; }
  /** Seconds since the epoch. */
  getReactedAt(): number { return this.reactedAt; }
  /** The user who reacted (with name and avatar when the SDK knows them). */
  getReactedBy(): User | undefined { return this.reactedBy; }
}

/** A live reaction change (onMessageReactionAdded / onMessageReactionRemoved). */
export class ReactionEvent {
  protected reaction: Reaction;
  protected conversationId: string;
  protected receiverId: string;
  protected receiverType: ReceiverType;

  constructor(reaction: Reaction, conversationId: string, receiverId: string, receiverType: ReceiverType) {
    this.reaction = reaction;
    this.conversationId = conversationId;
    this.receiverId = receiverId;
    this.receiverType = receiverType;
  }
  getReaction(): Reaction { return this.reaction; }
  getMessageId(): number { return this.reaction.getMessageId(); }
  getConversationId(): string { return this.conversationId; }
  /** The group's guid, or in a one-to-one conversation the party who did not react. */
  getReceiverId(): string { return this.receiverId; }
  getReceiverType(): ReceiverType { return this.receiverType; }
}
