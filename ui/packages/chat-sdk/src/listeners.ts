import type { GroupMemberScope } from "./constants";
import type { ChatException } from "./exception";
import type { Action } from "./models/action";
import type { AgenticMessage } from "./models/agentic";
import type { AgentEvent } from "./models/agent";
import type { Group } from "./models/group";
import type { BaseMessage, CustomMessage, MediaMessage, TextMessage } from "./models/message";
import type { ReactionEvent } from "./models/reaction";
import type { MessageReceipt, TypingIndicator } from "./models/receipt";
import type { User } from "./models/user";

/** Live message events. Every message of the user's conversations arrives once, the user's
 * own included (sent here or from another session). */
export interface MessageListenerCallbacks {
  onTextMessageReceived?(message: TextMessage): void;
  onMediaMessageReceived?(message: MediaMessage): void;
  onCustomMessageReceived?(message: CustomMessage): void;
  /** Agent run output (assistant, tool_result, agent_error); live only, never from history. */
  onAgenticMessageReceived?(message: AgenticMessage): void;
  onMessageEdited?(message: BaseMessage): void;
  /** The message is a tombstone: getDeletedAt() set, content cleared. */
  onMessageDeleted?(message: BaseMessage): void;
  onTypingStarted?(indicator: TypingIndicator): void;
  onTypingEnded?(indicator: TypingIndicator): void;
  onMessagesDelivered?(receipt: MessageReceipt): void;
  onMessagesRead?(receipt: MessageReceipt): void;
  onMessagesDeliveredToAll?(receipt: MessageReceipt): void;
  onMessagesReadByAll?(receipt: MessageReceipt): void;
  /** The user moved their own read watermark back (markAsUnread, this or another session). */
  onMessageMarkedUnread?(receipt: MessageReceipt): void;
  onMessageModerated?(message: BaseMessage): void;
  onMessageReactionAdded?(reaction: ReactionEvent): void;
  onMessageReactionRemoved?(reaction: ReactionEvent): void;
}

/** Live group events. Groups carry the member count after the change and the logged-in
 * user's hasJoined and scope. */
export interface GroupListenerCallbacks {
  onGroupMemberJoined?(action: Action, joinedUser: User, joinedGroup: Group): void;
  onGroupMemberLeft?(action: Action, leftUser: User, leftGroup: Group): void;
  onGroupMemberKicked?(action: Action, kickedUser: User, kickedBy: User, kickedFrom: Group): void;
  onGroupMemberBanned?(action: Action, bannedUser: User, bannedBy: User, bannedFrom: Group): void;
  onGroupMemberUnbanned?(action: Action, unbannedUser: User, unbannedBy: User, unbannedFrom: Group): void;
  onGroupMemberScopeChanged?(action: Action, changedUser: User, newScope: GroupMemberScope, oldScope: GroupMemberScope, changedGroup: Group): void;
  onMemberAddedToGroup?(action: Action, userAdded: User, userAddedBy: User, userAddedIn: Group): void;
  /** Ownership moved to newOwner (ours; the commercial SDK has none). */
  onOwnershipChanged?(action: Action, newOwner: User, group: Group): void;
  onGroupCreated?(group: Group): void;
  /** Name, description, icon, tags or type changed (ours). */
  onGroupUpdated?(group: Group): void;
  onGroupDeleted?(group: Group): void;
}

export interface ConnectionListenerCallbacks {
  /** The socket is ready (first connection and every reconnection; missed events are replayed). */
  onConnected?(): void;
  /** Connecting or reconnecting. */
  inConnecting?(): void;
  /** The session's socket stopped for good: logout, or the token was refused (4001). */
  onDisconnected?(): void;
  /** A connection attempt failed; the SDK retries (unless onDisconnected follows). */
  onConnectionError?(error: ChatException): void;
  /** The service could not replay what was missed: reload lists. Without this callback the
   * SDK calls onConnected again instead. */
  onReset?(): void;
}

export interface AgentListenerCallbacks {
  onAgentEvent?(event: AgentEvent): void;
  /** An admin enabled, disabled, deleted or renamed an agent (or changed its icon): reload the
   * agent list (`UsersRequestBuilder().setKind("agent")`). Live only, best effort: keep another
   * refresh (focus, an interval) for a session that missed it. */
  onAgentsChanged?(agentId: string): void;
}

/** Listener objects: `new Chat.MessageListener({ onTextMessageReceived: (m) => … })`. */
export interface MessageListener extends MessageListenerCallbacks {}
export class MessageListener {
  constructor(callbacks: MessageListenerCallbacks) { Object.assign(this, callbacks); }
}
export interface GroupListener extends GroupListenerCallbacks {}
export class GroupListener {
  constructor(callbacks: GroupListenerCallbacks) { Object.assign(this, callbacks); }
}
export interface ConnectionListener extends ConnectionListenerCallbacks {}
export class ConnectionListener {
  constructor(callbacks: ConnectionListenerCallbacks) { Object.assign(this, callbacks); }
}
export interface AgentListener extends AgentListenerCallbacks {}
export class AgentListener {
  constructor(callbacks: AgentListenerCallbacks) { Object.assign(this, callbacks); }
}

export type Callback<L> = { [K in keyof L]-?: L[K] extends ((...args: infer A) => void) | undefined ? (...args: A) => void : never };

/** Listeners keyed by id: adding an id again replaces its listener, so effects that run twice
 * (React strict mode) never leave two. Calls run in insertion order; one that throws is
 * reported and does not stop the others. */
/** What event handling needs of a listener set. */
export interface Emitter<L extends object> {
  emit<K extends keyof L>(name: K, ...args: Parameters<Callback<L>[K]>): void;
  forEach(fn: (l: L) => void): void;
}

export class ListenerSet<L extends object> implements Emitter<L> {
  private readonly byId = new Map<string, L>();

  set(id: string, listener: L): void {
    this.byId.delete(id); // re-adding moves it last, like a fresh add
    this.byId.set(id, listener);
  }
  delete(id: string): void { this.byId.delete(id); }
  clear(): void { this.byId.clear(); }
  get size(): number { return this.byId.size; }

  emit<K extends keyof L>(name: K, ...args: Parameters<Callback<L>[K]>): void {
    for (const l of [...this.byId.values()]) {
      const fn = l[name];
      if (typeof fn !== "function") continue;
      try {
        (fn as (...a: unknown[]) => void).apply(l, args);
      } catch (err) {
        console.error(`chat-sdk: listener ${String(name)} failed`, err);
      }
    }
  }

  /** has says whether any listener implements name. */
  has(name: keyof L): boolean {
    for (const l of this.byId.values()) if (typeof l[name] === "function") return true;
    return false;
  }

  forEach(fn: (l: L) => void): void {
    for (const l of [...this.byId.values()]) fn(l);
  }
}

export interface Emitters {
  readonly message: Emitter<MessageListenerCallbacks>;
  readonly group: Emitter<GroupListenerCallbacks>;
  readonly connection: Emitter<ConnectionListenerCallbacks>;
  readonly agent: Emitter<AgentListenerCallbacks>;
}

export class Listeners implements Emitters {
  readonly message = new ListenerSet<MessageListenerCallbacks>();
  readonly group = new ListenerSet<GroupListenerCallbacks>();
  readonly connection = new ListenerSet<ConnectionListenerCallbacks>();
  readonly agent = new ListenerSet<AgentListenerCallbacks>();
}

function gateOne<L extends object>(set: Emitter<L>, live: () => boolean): Emitter<L> {
  return {
    emit: (name, ...args) => {
      if (live()) set.emit(name, ...args);
    },
    forEach: (fn) => {
      if (live()) set.forEach(fn);
    },
  };
}

/** Emitters that stay silent once live() is false (a session that logged out). */
export function gate(l: Emitters, live: () => boolean): Emitters {
  return {
    message: gateOne(l.message, live),
    group: gateOne(l.group, live),
    connection: gateOne(l.connection, live),
    agent: gateOne(l.agent, live),
  };
}
