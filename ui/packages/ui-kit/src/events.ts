import type { Chat } from "@agentry/chat-sdk";

/** A subscription to a subject; call unsubscribe on cleanup. */
export interface Subscription {
  unsubscribe(): void;
}

/**
 * A minimal observable subject, shaped like RxJS's: `subscribe(handler)` returns a
 * subscription with `unsubscribe()`. Handlers run synchronously in subscription order; one
 * that throws does not stop the others.
 */
export class Subject<T> {
  private readonly handlers = new Set<(value: T) => void>();

  subscribe(handler: (value: T) => void): Subscription {
    // Wrap so subscribing the same function twice gives two independent subscriptions.
    const h = (value: T) => handler(value);
    this.handlers.add(h);
    return { unsubscribe: () => void this.handlers.delete(h) };
  }

  next(value: T): void {
    for (const h of [...this.handlers]) {
      try {
        h(value);
      } catch (err) {
        // A broken subscriber must not break the component that emitted.
        console.error("ui-kit: event subscriber failed", err);
      }
    }
  }

  /** How many subscribers are attached (tests check components clean up). */
  get observers(): number {
    return this.handlers.size;
  }
}

export enum MessageStatus {
  inprogress = 0,
  success = 1,
  error = 2,
}

export interface IMessages {
  message: Chat.BaseMessage;
  status: MessageStatus;
}

export interface IOpenChat {
  user?: Chat.User;
  group?: Chat.Group;
}

export interface IActiveChatChanged {
  user?: Chat.User;
  group?: Chat.Group;
  message?: Chat.BaseMessage;
  unreadMessageCount?: number;
}

export interface IGroupMemberJoined {
  joinedGroup: Chat.Group;
  joinedUser: Chat.User;
}

export interface IGroupLeft {
  leftGroup: Chat.Group;
  userLeft: Chat.User;
}

export interface IGroupMemberAdded {
  userAddedIn: Chat.Group;
  usersAdded: Chat.User[];
  userAddedBy?: Chat.User;
}

export interface IGroupMemberScopeChanged {
  group: Chat.Group;
  updatedUser: Chat.User;
  scopeChangedTo: string;
  scopeChangedFrom: string;
}

export interface IGroupMemberKickedBanned {
  kickedFrom: Chat.Group;
  kickedUser: Chat.User;
  kickedBy?: Chat.User;
}

export interface IGroupMemberUnBanned {
  kickedFrom: Chat.Group;
  unbannedUser: Chat.User;
  unbannedBy?: Chat.User;
}

export interface IOwnershipChanged {
  group: Chat.Group;
  newOwner: Chat.User;
}

/** Message events other components (composer, threads) raise and the message list follows. */
export const ChatMessageEvents = {
  ccMessageEdited: new Subject<IMessages>(),
  ccMessageDeleted: new Subject<Chat.BaseMessage>(),
  ccMessageRead: new Subject<Chat.BaseMessage>(),
  ccReplyToMessage: new Subject<IMessages>(),
  /** Raised by a composer after sending, so the list shows the message at once. */
  ccMessageSent: new Subject<IMessages>(),
};

export const ChatUIEvents = {
  ccOpenChat: new Subject<IOpenChat>(),
  ccActiveChatChanged: new Subject<IActiveChatChanged>(),
};

export const ChatGroupEvents = {
  ccGroupCreated: new Subject<Chat.Group>(),
  ccGroupDeleted: new Subject<Chat.Group>(),
  ccGroupMemberJoined: new Subject<IGroupMemberJoined>(),
  ccGroupLeft: new Subject<IGroupLeft>(),
  ccGroupMemberAdded: new Subject<IGroupMemberAdded>(),
  ccGroupMemberScopeChanged: new Subject<IGroupMemberScopeChanged>(),
  ccGroupMemberKicked: new Subject<IGroupMemberKickedBanned>(),
  ccGroupMemberBanned: new Subject<IGroupMemberKickedBanned>(),
  ccGroupMemberUnbanned: new Subject<IGroupMemberUnBanned>(),
  ccOwnershipChanged: new Subject<IOwnershipChanged>(),
};
