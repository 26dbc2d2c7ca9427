/** Wire shapes → model objects. */
import type { GroupMemberScope, ReceiptType, ReceiverType } from "./constants";
import { Action } from "./models/action";
import { AgenticMessage } from "./models/agentic";
import { Conversation } from "./models/conversation";
import { Group } from "./models/group";
import { Attachment, BaseMessage, CustomMessage, MediaMessage, TextMessage } from "./models/message";
import { Reaction, ReactionCount } from "./models/reaction";
import { MessageReceipt } from "./models/receipt";
import { GroupMember, User } from "./models/user";
import {
  isObject,
  seconds,
  type WireConversation,
  type WireGroup,
  type WireMember,
  type WireMemberEvent,
  type WireMessage,
  type WireReaction,
  type WireReceipt,
  type WireUser,
} from "./wire";

/** What mapping needs to know: users and groups by id, and where relative URLs point. */
export interface Resolver {
  user(uid: string): User;
  group(guid: string): Group;
  /** The service's origin, for media URLs ("/chat/v1/media/…"). */
  readonly origin: string;
}

function fillUser(u: User, w: WireUser): void {
  if (w.name !== undefined) u.setName(w.name);
  if (w.avatar) u.setAvatar(w.avatar);
  if (w.role) u.setRole(w.role);
  if (w.kind) u.setKind(w.kind);
  if (w.metadata) u.setMetadata(w.metadata);
  const at = seconds(w.createdAt);
  if (at !== undefined) u.setCreatedAt(at);
  if (w.status) u.setStatus(w.status);
  const active = seconds(w.lastActiveAt);
  if (active !== undefined) u.setLastActiveAt(active);
  u.setDeactivated(w.deactivated === true);
}

export function userFromWire(w: WireUser): User {
  const u = new User(w.uid);
  fillUser(u, w);
  return u;
}

/** A member with the user's details when known. */
export function memberFromWire(w: WireMember, user?: User): GroupMember {
  const m = new GroupMember(w.uid, w.scope);
  if (user) {
    const { uid: _uid, ...rest } = userToWire(user);
    fillUser(m, { uid: w.uid, ...rest });
  }
  if (w.guid) m.setGuid(w.guid);
  const at = seconds(w.joinedAt);
  if (at !== undefined) m.setJoinedAt(at);
  return m;
}

export function userToWire(u: User): WireUser {
  const w: WireUser = { uid: u.getUid(), name: u.getName(), kind: u.getKind() };
  const avatar = u.getAvatar();
  const role = u.getRole();
  const metadata = u.getMetadata();
  const created = u.getCreatedAt();
  if (avatar) w.avatar = avatar;
  if (role) w.role = role;
  if (metadata) w.metadata = metadata;
  if (created !== undefined) w.createdAt = new Date(created * 1000).toISOString();
  const status = u.getStatus();
  const active = u.getLastActiveAt();
  if (status) w.status = status;
  if (active !== undefined) w.lastActiveAt = new Date(active * 1000).toISOString();
  if (u.isDeactivated()) w.deactivated = true;
  return w;
}

export function groupFromWire(w: WireGroup): Group {
  const g = new Group(w.guid, w.name ?? w.guid, w.type ?? "public");
  if (w.description) g.setDescription(w.description);
  if (w.icon) g.setIcon(w.icon);
  if (w.tags) g.setTags(w.tags);
  if (w.owner) g.setOwner(w.owner);
  g.setMembersCount(w.membersCount ?? 0);
  g.setHasJoined(w.hasJoined ?? false);
  g.setScope(w.scope || undefined);
  const c = seconds(w.createdAt);
  const u = seconds(w.updatedAt);
  if (c !== undefined) g.setCreatedAt(c);
  if (u !== undefined) g.setUpdatedAt(u);
  return g;
}

function absolute(origin: string, url: string): string {
  return /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : origin + (url.startsWith("/") ? "" : "/") + url;
}

const MEDIA_TYPES = new Set(["image", "video", "audio", "file"]);

function create(w: WireMessage, r: Resolver): BaseMessage {
  const rt = w.receiverType;
  switch (w.category) {
    case "message":
      if (w.type === "text") return new TextMessage(w.receiver, w.text ?? "", rt);
      if (MEDIA_TYPES.has(w.type)) {
        const m = new MediaMessage(w.receiver, undefined, w.type as "image", rt);
        if (w.attachment) {
          const a = w.attachment;
          m.setAttachment(new Attachment(absolute(r.origin, a.url), a.name ?? "", a.mimeType ?? "", a.size ?? 0));
        }
        return m;
      }
      break;
    case "custom":
      return new CustomMessage(w.receiver, rt, w.type, w.data ?? {});
    case "agentic":
      return new AgenticMessage(w.receiver, rt, w.type);
    case "action":
      return actionFromData(w.receiver, w.data, r);
  }
  return new BaseMessage(w.receiver, rt, w.category, w.type);
}

/** actionFromData builds the Action of a membership change (without message fields). */
export function actionFromData(guid: string, data: unknown, r: Resolver): Action {
  const d = (isObject(data) ? data : {}) as Partial<WireMemberEvent>;
  const a = new Action(guid, typeof d.action === "string" ? d.action : "");
  if (typeof d.by === "string") a.setActionBy(r.user(d.by));
  if (typeof d.on === "string") a.setActionOn(r.user(d.on));
  a.setActionFor(r.group(typeof d.guid === "string" ? d.guid : guid));
  a.setNewScope(d.scope as GroupMemberScope | undefined);
  a.setOldScope(d.oldScope as GroupMemberScope | undefined);
  return a;
}

export function messageFromWire(w: WireMessage, r: Resolver): BaseMessage {
  const m = create(w, r);
  m.setId(w.id);
  m.setConversationId(w.conversationId);
  m.setSender(r.user(w.sender));
  if (w.text !== undefined) {
    if (m instanceof TextMessage || m instanceof AgenticMessage) m.setText(w.text);
    else if (m instanceof MediaMessage) m.setCaption(w.text);
    else if (m instanceof CustomMessage) m.setConversationText(w.text);
    else if (m instanceof Action) m.setMessage(w.text);
  }
  if (w.data && !(m instanceof CustomMessage)) m.setData(w.data);
  if (w.metadata) m.setMetadata(w.metadata);
  if (w.parentId) m.setParentMessageId(w.parentId);
  if (w.quotedMessageId) m.setQuotedMessageId(w.quotedMessageId);
  if (w.quotedMessage) m.setQuotedMessage(messageFromWire({ ...w.quotedMessage, quotedMessage: undefined }, r));
  if (w.muid) m.setMuid(w.muid);
  if (w.replyCount) m.setReplyCount(w.replyCount);
  if (w.moderationStatus) m.setModerationStatus(w.moderationStatus);
  m.setSentAt(seconds(w.sentAt) ?? 0);
  m.setEditedAt(seconds(w.editedAt));
  m.setEditedBy(w.editedBy);
  m.setDeletedAt(seconds(w.deletedAt));
  m.setDeletedBy(w.deletedBy);
  m.setReactions((w.reactions ?? []).map((c) => new ReactionCount(c.reaction, c.count, c.reactedByMe ?? false)));
  m.setDeliveredAt(seconds(w.deliveredAt));
  m.setReadAt(seconds(w.readAt));
  return m;
}

export function reactionFromWire(w: WireReaction, r: Resolver): Reaction {
  return new Reaction(w.messageId, w.reaction, w.uid, seconds(w.reactedAt) ?? 0, r.user(w.uid));
}

/**
 * conversationTarget names, for something actor did in a conversation, the receiver: the
 * group's guid, or in a one-to-one conversation the party who is not the actor.
 */
export function conversationTarget(conversationId: string, actor: string): { receiverId: string; receiverType: ReceiverType } {
  if (conversationId.startsWith("group_")) return { receiverId: conversationId.slice(6), receiverType: "group" };
  const rest = conversationId.startsWith("user_") ? conversationId.slice(5) : conversationId;
  if (rest.startsWith(`${actor}_user_`)) return { receiverId: rest.slice(actor.length + 6), receiverType: "user" };
  if (rest.endsWith(`_user_${actor}`)) return { receiverId: rest.slice(0, rest.length - actor.length - 6), receiverType: "user" };
  const i = rest.indexOf("_user_");
  return { receiverId: i >= 0 ? rest.slice(i + 6) : rest, receiverType: "user" };
}

/** The conversation id the service gives a group or two users (chat/model.ConversationID). */
export function conversationIdOf(receiverType: ReceiverType, me: string, receiverId: string): string {
  if (receiverType === "group") return `group_${receiverId}`;
  const [a, b] = me < receiverId ? [me, receiverId] : [receiverId, me];
  return `user_${a}_user_${b}`;
}

export function receiptFromWire(w: WireReceipt, type: ReceiptType, r: Resolver): MessageReceipt {
  const at = seconds(w.at);
  return new MessageReceipt({
    messageId: w.messageId,
    sender: r.user(w.uid),
    ...conversationTarget(w.conversationId, w.uid),
    receiptType: type,
    conversationId: w.conversationId,
    timestamp: at,
    deliveredAt: type === "delivered" || type === "deliveredToAll" ? at : undefined,
    readAt: type === "read" || type === "readByAll" ? at : undefined,
  });
}

export function conversationFromWire(w: WireConversation, r: Resolver): Conversation {
  return new Conversation({
    conversationId: w.conversationId,
    conversationType: w.conversationType,
    conversationWith: w.conversationType === "group" ? r.group(w.conversationWith) : r.user(w.conversationWith),
    lastMessage: w.lastMessage ? messageFromWire(w.lastMessage, r) : undefined,
    unreadMessageCount: w.unreadMessageCount,
    updatedAt: seconds(w.updatedAt),
    lastReadMessageId: w.lastReadMessageId,
    lastDeliveredMessageId: w.lastDeliveredMessageId,
  });
}
