import { ChatException, SDK_ERROR } from "../exception";
import { conversationIdOf } from "../mapping";
import { CustomMessage, MediaMessage, TextMessage, type BaseMessage } from "../models/message";
import { MessageReceipt, type TypingIndicator } from "../models/receipt";
import type { Session } from "../session";
import { seconds, type WireMessage, type WireReceiptInfo } from "../wire";

const enc = encodeURIComponent;

function idOf(m: BaseMessage | number): number {
  const id = typeof m === "number" ? m : m.getId();
  if (!Number.isInteger(id) || id <= 0) throw new ChatException(SDK_ERROR.VALIDATION, "the message has no id yet (send it first)");
  return id;
}

/** The message's muid, set now when it has none: every try of this send carries the same one. */
function muidOf(m: BaseMessage): string {
  let muid = m.getMuid();
  if (!muid) {
    muid = globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
    m.setMuid(muid);
  }
  return muid;
}

function common(m: BaseMessage): Record<string, unknown> {
  const body: Record<string, unknown> = { receiver: m.getReceiverId(), receiverType: m.getReceiverType(), muid: muidOf(m) };
  const meta = m.getMetadata();
  if (meta) body["metadata"] = meta;
  if (m.getParentMessageId()) body["parentId"] = m.getParentMessageId();
  if (m.getQuotedMessageId()) body["quotedMessageId"] = m.getQuotedMessageId();
  return body;
}

async function post<T extends BaseMessage>(s: Session, body: Record<string, unknown>): Promise<T> {
  // Idempotent by muid, so a send whose answer was lost is sent again (retryNetwork).
  const res = await s.http.request<WireMessage>("POST", "/messages", { body, retryNetwork: true });
  const m = await s.message(res.body);
  const run = res.headers.get("x-agent-run");
  if (run) m.setAgentRunId(run);
  return m as T;
}

/** Sends a text message. To an agent (or mentioning one in a group) it starts a run:
 * getAgentRunId() of the answer names it. */
export function sendMessage(s: Session, m: TextMessage): Promise<TextMessage> {
  return post<TextMessage>(s, { ...common(m), category: "message", type: "text", text: m.getText() });
}

export function sendCustomMessage(s: Session, m: CustomMessage): Promise<CustomMessage> {
  const body: Record<string, unknown> = { ...common(m), category: "custom", type: m.getType(), data: m.getCustomData() };
  if (m.getConversationText()) body["text"] = m.getConversationText();
  return post<CustomMessage>(s, body);
}

/** Uploads the message's file and sends it as a media message. */
export async function sendMediaMessage(s: Session, m: MediaMessage): Promise<MediaMessage> {
  const file = m.getFile();
  if (!file) throw new ChatException(SDK_ERROR.VALIDATION, "a media message needs a file");
  const form = new FormData();
  const name = (file as { name?: unknown }).name;
  form.append("file", file, typeof name === "string" && name !== "" ? name : "file");
  form.append("receiver", m.getReceiverId());
  form.append("receiverType", m.getReceiverType());
  form.append("type", m.getType());
  if (m.getCaption()) form.append("text", m.getCaption());
  if (m.getParentMessageId()) form.append("parentId", String(m.getParentMessageId()));
  if (m.getQuotedMessageId()) form.append("quotedMessageId", String(m.getQuotedMessageId()));
  const meta = m.getMetadata();
  if (meta) form.append("metadata", JSON.stringify(meta));
  form.append("muid", muidOf(m));
  const progress = m.getUploadProgressListener();
  const w = await s.http.json<WireMessage>("POST", "/messages/media", { form, retryNetwork: true, ...(progress ? { onUploadProgress: progress } : {}) });
  return (await s.message(w)) as MediaMessage;
}

/** Edits a message (its sender only): the text of a text message, the caption of a media
 * message, the data (and conversation text) of a custom message. */
export async function editMessage(s: Session, m: BaseMessage): Promise<BaseMessage> {
  const body: Record<string, unknown> = {};
  if (m instanceof TextMessage) body["text"] = m.getText();
  else if (m instanceof MediaMessage) body["text"] = m.getCaption();
  else if (m instanceof CustomMessage) {
    body["data"] = m.getCustomData();
    if (m.getConversationText()) body["text"] = m.getConversationText();
  } else throw new ChatException(SDK_ERROR.VALIDATION, `a ${m.getCategory()} message cannot be edited`);
  return s.message(await s.http.json<WireMessage>("PUT", `/messages/${idOf(m)}`, { body }));
}

export async function deleteMessage(s: Session, id: number): Promise<BaseMessage> {
  return s.message(await s.http.json<WireMessage>("DELETE", `/messages/${idOf(id)}`));
}

export async function getMessageDetails(s: Session, id: number): Promise<BaseMessage> {
  return s.message(await s.http.json<WireMessage>("GET", `/messages/${idOf(id)}`));
}

export async function addReaction(s: Session, id: number, reaction: string): Promise<BaseMessage> {
  return s.message(await s.http.json<WireMessage>("POST", `/messages/${idOf(id)}/reactions/${enc(reaction)}`));
}

export async function removeReaction(s: Session, id: number, reaction: string): Promise<BaseMessage> {
  return s.message(await s.http.json<WireMessage>("DELETE", `/messages/${idOf(id)}/reactions/${enc(reaction)}`));
}

export async function mark(s: Session, m: BaseMessage | number, what: "delivered" | "read" | "unread"): Promise<void> {
  await s.http.request("POST", `/messages/${idOf(m)}/${what}`);
}

/** Each other member's receipts of a message (GET /messages/{id}/info). */
export async function getMessageReceipts(s: Session, id: number): Promise<MessageReceipt[]> {
  const [res, msg] = await Promise.all([
    s.http.json<{ items?: WireReceiptInfo[] }>("GET", `/messages/${idOf(id)}/info`),
    getMessageDetails(s, id),
  ]);
  const items = res.items ?? [];
  const dir = s.directory;
  await dir.resolveUsers(items.map((i) => i.uid));
  return items.map((i) => {
    const readAt = seconds(i.readAt);
    const deliveredAt = seconds(i.deliveredAt);
    return new MessageReceipt({
      messageId: id,
      sender: dir.user(i.uid),
      receiverId: msg.getReceiverType() === "group" ? msg.getReceiverId() : (msg.getSender()?.getUid() ?? ""),
      receiverType: msg.getReceiverType(),
      receiptType: readAt !== undefined ? "read" : "delivered",
      conversationId: msg.getConversationId(),
      timestamp: readAt ?? deliveredAt,
      deliveredAt,
      readAt,
    });
  });
}

export async function flagMessage(s: Session, id: number, flag: { reason: string; remark?: string }): Promise<void> {
  const body: Record<string, unknown> = { reason: flag.reason };
  if (flag.remark) body["remark"] = flag.remark;
  await s.http.request("POST", `/messages/${idOf(id)}/flag`, { body });
}

/** Tells the conversation the user types: a socket frame when connected, else REST. Never
 * throws (typing is best effort); failures are reported on the console. */
export function typing(s: Session, t: TypingIndicator, started: boolean): void {
  let me: string;
  try {
    me = s.me().getUid();
  } catch {
    return;
  }
  const conv = conversationIdOf(t.getReceiverType(), me, t.getReceiverId());
  if (s.realtime?.typing(conv, started)) return;
  s.http
    .request("POST", started ? "/typing/start" : "/typing/end", { body: { receiver: t.getReceiverId(), receiverType: t.getReceiverType() } })
    .catch((err: unknown) => console.warn("chat-sdk: typing indicator not sent", err));
}

/** Downloads a media message's file with the session's token. */
export function fetchMedia(s: Session, url: string): Promise<Blob> {
  const u = /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : (s.settings?.host ?? "") + url;
  return s.http.blob(u);
}
