import type { MediaType, ReceiverType } from "../constants";
import type { JSONObject } from "../wire";
import type { ReactionCount } from "./reaction";
import type { User } from "./user";

export type ModerationStatus = "approved" | "pending" | "disapproved";

/**
 * What every message has. Times are seconds since the epoch (fractional). Reactions,
 * deliveredAt and readAt are the logged-in user's view. Messages are mutable through their
 * setters, as in the commercial SDK; clone() gives a copy for immutable state (React).
 */
export class BaseMessage {
  protected id = 0;
  protected conversationId = "";
  protected sender?: User;
  protected receiverId: string;
  protected receiverType: ReceiverType;
  protected category: string;
  protected type: string;
  protected text?: string;
  protected data: JSONObject = {};
  protected metadata?: JSONObject;
  protected parentMessageId = 0;
  protected quotedMessageId = 0;
  protected quotedMessage?: BaseMessage;
  protected replyCount = 0;
  protected moderationStatus?: ModerationStatus;
  protected sentAt = 0;
  protected editedAt?: number;
  protected editedBy?: string;
  protected deletedAt?: number;
  protected deletedBy?: string;
  protected reactions: ReactionCount[] = [];
  protected deliveredAt?: number;
  protected readAt?: number;
  protected agentRunId?: string;
  protected muid?: string;

  constructor(receiverId: string, receiverType: ReceiverType, category: string, type: string) {
    this.receiverId = receiverId;
    this.receiverType = receiverType;
    this.category = category;
    this.type = type;
  }

  /** 0 until the service stored the message. */
  getId(): number { return this.id; }
  getConversationId(): string { return this.conversationId; }
  getSender(): User | undefined { return this.sender; }
  getReceiverId(): string { return this.receiverId; }
  getReceiverType(): ReceiverType { return this.receiverType; }
  getCategory(): string { return this.category; }
  getType(): string { return this.type; }
  /** The service's data object: custom data, action details or agent run details ({} if none). */
  getData(): JSONObject { return this.data; }
  getMetadata(): JSONObject | undefined { return this.metadata; }
  /** The thread's root message id (0 outside threads). */
  getParentMessageId(): number { return this.parentMessageId; }
  getReplyCount(): number { return this.replyCount; }
  getModerationStatus(): ModerationStatus | undefined { return this.moderationStatus; }
  getSentAt(): number { return this.sentAt; }
  getEditedAt(): number | undefined { return this.editedAt; }
  getEditedBy(): string | undefined { return this.editedBy; }
  getDeletedAt(): number | undefined { return this.deletedAt; }
  getDeletedBy(): string | undefined { return this.deletedBy; }
  getReactions(): ReactionCount[] { return this.reactions; }
  getDeliveredAt(): number | undefined { return this.deliveredAt; }
  getReadAt(): number | undefined { return this.readAt; }
  /** The agent run a sent message started (the X-Agent-Run answer header), if any. */
  getAgentRunId(): string | undefined { return this.agentRunId; }

  setId(id: number): void { this.id = id; }
  setConversationId(id: string): void { this.conversationId = id; }
  setSender(sender: User): void { this.sender = sender; }
  setReceiverId(id: string): void { this.receiverId = id; }
  setReceiverType(t: ReceiverType): void { this.receiverType = t; }
  setData(data: JSONObject): void { this.data = data; }
  setMetadata(metadata: JSONObject): void { this.metadata = metadata; }
  setParentMessageId(id: number): void { this.parentMessageId = id; }
  /** Makes this a quote reply to the message with this id (same conversation). */
  setQuotedMessageId(id: number): void { this.quotedMessageId = id; }
  getQuotedMessageId(): number { return this.quotedMessageId; }
  /** The quoted message as it stood when this one was read (a tombstone once deleted). */
  setQuotedMessage(m: BaseMessage | undefined): void {
    this.quotedMessage = m;
    if (m) this.quotedMessageId = m.getId();
  }
  getQuotedMessage(): BaseMessage | undefined { return this.quotedMessage; }
  setReplyCount(n: number): void { this.replyCount = n; }
  setModerationStatus(s: ModerationStatus): void { this.moderationStatus = s; }
  setSentAt(at: number): void { this.sentAt = at; }
  setEditedAt(at: number | undefined): void { this.editedAt = at; }
  setEditedBy(uid: string | undefined): void { this.editedBy = uid; }
  setDeletedAt(at: number | undefined): void { this.deletedAt = at; }
  setDeletedBy(uid: string | undefined): void { this.deletedBy = uid; }
  setReactions(reactions: ReactionCount[]): void { this.reactions = [...reactions]; }
  setDeliveredAt(at: number | undefined): void { this.deliveredAt = at; }
  setReadAt(at: number | undefined): void { this.readAt = at; }
  setAgentRunId(id: string): void { this.agentRunId = id; }
  /** The client's id for the message. Sending sets one when there is none; a send repeated
   * with the same muid (after a lost answer) is stored once and answers the first message. */
  getMuid(): string | undefined { return this.muid; }
  setMuid(muid: string): void { this.muid = muid; }

  /** A copy of the same class (reactions copied), for immutable state updates. */
  clone(): this {
    const c = Object.create(Object.getPrototypeOf(this) as object) as this;
    Object.assign(c, this);
    c.reactions = [...this.reactions];
    return c;
  }
}

/** A text message: new TextMessage(receiverId, text, receiverType). */
export class TextMessage extends BaseMessage {
  constructor(receiverId: string, text: string, receiverType: ReceiverType) {
    super(receiverId, receiverType, "message", "text");
    this.text = text;
  }
  getText(): string { return this.text ?? ""; }
  setText(text: string): void { this.text = text; }
}

/** The file of a media message. */
export class Attachment {
  protected url: string;
  protected name: string;
  protected mimeType: string;
  protected size: number;

  constructor(url: string, name: string, mimeType: string, size: number) {
    this.url = url;
    this.name = name;
    this.mimeType = mimeType;
    this.size = size;
  }
  /** Absolute URL; fetching it needs the session's token (Chat.fetchMedia does that). */
  getUrl(): string { return this.url; }
  getName(): string { return this.name; }
  getMimeType(): string { return this.mimeType; }
  getSize(): number { return this.size; }
  getExtension(): string {
    const dot = this.name.lastIndexOf(".");
    return dot >= 0 ? this.name.slice(dot + 1).toLowerCase() : "";
  }
}

/** A media message: new MediaMessage(receiverId, file, type, receiverType). */
export class MediaMessage extends BaseMessage {
  protected file?: Blob;
  protected attachment?: Attachment;
  protected onProgress?: ((fraction: number) => void) | undefined;

  constructor(receiverId: string, file: Blob | undefined, type: MediaType, receiverType: ReceiverType) {
    super(receiverId, receiverType, "message", type);
    if (file) this.file = file;
  }
  /** The file to upload (outgoing messages only). */
  getFile(): Blob | undefined { return this.file; }
  getAttachment(): Attachment | undefined { return this.attachment; }
  getCaption(): string { return this.text ?? ""; }
  setCaption(caption: string): void { this.text = caption; }
  setAttachment(a: Attachment | undefined): void { this.attachment = a; }
  /** Called with the upload's progress (0 to 1) while sendMediaMessage uploads the file. */
  setUploadProgressListener(fn: ((fraction: number) => void) | undefined): void {
    this.onProgress = fn;
  }
  getUploadProgressListener(): ((fraction: number) => void) | undefined {
    return this.onProgress;
  }
}

/** A custom message: new CustomMessage(receiverId, receiverType, customType, data). */
export class CustomMessage extends BaseMessage {
  constructor(receiverId: string, receiverType: ReceiverType, customType: string, customData: JSONObject) {
    super(receiverId, receiverType, "custom", customType);
    this.data = customData;
  }
  getCustomData(): JSONObject { return this.data; }
  setCustomData(data: JSONObject): void { this.data = data; }
  /** A finer kind within the custom type; kept in metadata.subType (the service has no field). */
  getSubType(): string | undefined {
    const s = this.metadata?.["subType"];
    return typeof s === "string" ? s : undefined;
  }
  setSubType(subType: string): void { this.metadata = { ...this.metadata, subType }; }
  /** The text conversation lists show for this message. */
  getConversationText(): string { return this.text ?? ""; }
  setConversationText(text: string): void { this.text = text; }
}
