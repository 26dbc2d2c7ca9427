/**
 * The chat service's JSON shapes (chat/model, chat/api/openapi.yaml), as they arrive. Only the
 * SDK's mapping code reads these; everything public is a model class.
 */

export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };
export type JSONObject = { [key: string]: JSONValue };

export interface WireUser {
  uid: string;
  name?: string;
  avatar?: string;
  role?: string;
  kind?: "user" | "agent";
  metadata?: JSONObject;
  createdAt?: string;
  status?: "online" | "offline";
  lastActiveAt?: string;
  deactivated?: boolean;
}

export interface WireGroup {
  guid: string;
  name?: string;
  type?: "public" | "private" | "password";
  description?: string;
  icon?: string;
  tags?: string[];
  owner?: string;
  membersCount?: number;
  createdAt?: string;
  updatedAt?: string;
  hasJoined?: boolean;
  scope?: "admin" | "moderator" | "participant";
}

export interface WireMember {
  guid?: string;
  uid: string;
  scope: "admin" | "moderator" | "participant";
  joinedAt?: string;
}

export interface WireAttachment {
  url: string;
  name?: string;
  mimeType?: string;
  size?: number;
}

export interface WireReactionCount {
  reaction: string;
  count: number;
  reactedByMe?: boolean;
}

export interface WireMessage {
  id: number;
  muid?: string;
  conversationId: string;
  sender: string;
  receiver: string;
  receiverType: "user" | "group";
  category: string;
  type: string;
  text?: string;
  data?: JSONObject;
  attachment?: WireAttachment;
  metadata?: JSONObject;
  parentId?: number;
  quotedMessageId?: number;
  quotedMessage?: WireMessage;
  replyCount?: number;
  moderationStatus?: "approved" | "pending" | "disapproved";
  sentAt: string;
  editedAt?: string;
  editedBy?: string;
  deletedAt?: string;
  deletedBy?: string;
  reactions?: WireReactionCount[];
  deliveredAt?: string;
  readAt?: string;
}

export interface WireReaction {
  messageId: number;
  uid: string;
  reaction: string;
  reactedAt: string;
  conversationId?: string;
}

export interface WireReceipt {
  conversationId: string;
  uid: string;
  messageId: number;
  at: string;
  unread?: boolean;
}

export interface WireReceiptInfo {
  uid: string;
  deliveredAt?: string;
  readAt?: string;
}

/** The data of member.* events and of their action messages. */
export interface WireMemberEvent {
  action: string;
  by: string;
  on: string;
  guid: string;
  scope?: "admin" | "moderator" | "participant";
  oldScope?: "admin" | "moderator" | "participant";
}

export interface WireConversation {
  conversationId: string;
  conversationType: "user" | "group";
  conversationWith: string;
  lastMessage?: WireMessage;
  unreadMessageCount: number;
  updatedAt?: string;
  lastReadMessageId?: number;
  lastDeliveredMessageId?: number;
}

export interface WireEvent {
  pos: number;
  conversationId?: string;
  seq?: number;
  type: string;
  targetUid?: string;
  data: JSONValue;
  at?: string;
}

export interface WirePage<T> {
  items: T[];
  next?: string;
}

/** Frames the server sends on the WebSocket. */
export type ServerFrame =
  | { type: "ready"; uid: string; pos: number }
  | { type: "reset"; pos: number }
  | { type: "event"; event: WireEvent }
  | { type: "agent"; conversationId: string; agentId: string; runId: string; event: JSONObject }
  /** One part of the agent call in flight, sent to the socket that asked (a replay frame). */
  | { type: "agent.replay"; conversationId: string; agentId: string; runId: string; part: number; parts: number; events: JSONObject[] }
  | { type: "agents.changed"; agentId: string };

/** seconds turns an RFC 3339 time into seconds since the epoch (fractional; undefined when absent). */
export function seconds(t: string | undefined): number | undefined {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms / 1000;
}

export function isObject(v: unknown): v is JSONObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
