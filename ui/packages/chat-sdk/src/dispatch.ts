/** Server events → listener calls, with users (and groups) looked up first when unknown. */
import type { ReceiptType } from "./constants";
import { GroupEvents, type EventContext } from "./groupevents";
import { conversationTarget, messageFromWire, reactionFromWire, receiptFromWire } from "./mapping";
import { AgenticMessage } from "./models/agentic";
import { CustomMessage, MediaMessage, TextMessage } from "./models/message";
import { ReactionEvent } from "./models/reaction";
import { TypingIndicator } from "./models/receipt";
import { isObject, type WireEvent, type WireMessage, type WireReaction, type WireReceipt } from "./wire";

const RECEIPTS: Record<string, ReceiptType> = {
  "receipt.delivered": "delivered",
  "receipt.read": "read",
  "receipt.delivered_to_all": "deliveredToAll",
  "receipt.read_to_all": "readByAll",
};

export class Dispatcher {
  readonly groups: GroupEvents;
  private readonly typing = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly ctx: EventContext,
    /** A typing indicator not renewed within this time ends by itself. */
    private readonly typingTimeoutMs = 10_000,
  ) {
    this.groups = new GroupEvents(ctx);
  }

  async handle(ev: WireEvent, recv: number): Promise<void> {
    const { directory: dir, listeners } = this.ctx;
    const d = ev.data;
    if (!isObject(d)) return;
    const type = ev.type;
    if (type.startsWith("message.")) {
      const w = d as unknown as WireMessage;
      if (typeof w.id !== "number" || typeof w.sender !== "string") return;
      if (w.category === "action") {
        if (type === "message.created") await this.groups.action(ev, w, recv);
        return;
      }
      await dir.resolveUsers([w.sender, w.quotedMessage?.sender]);
      const m = messageFromWire(w, dir);
      const l = listeners.message;
      switch (type) {
        case "message.created":
          if (m instanceof TextMessage) l.emit("onTextMessageReceived", m);
          else if (m instanceof MediaMessage) l.emit("onMediaMessageReceived", m);
          else if (m instanceof CustomMessage) l.emit("onCustomMessageReceived", m);
          else if (m instanceof AgenticMessage) l.emit("onAgenticMessageReceived", m);
          return;
        case "message.edited":
          return l.emit("onMessageEdited", m);
        case "message.deleted":
          return l.emit("onMessageDeleted", m);
        case "message.moderated":
          return l.emit("onMessageModerated", m);
      }
      return;
    }
    if (type === "reaction.added" || type === "reaction.removed") {
      const w = d as unknown as WireReaction;
      await dir.resolveUsers([w.uid]);
      const conv = w.conversationId ?? ev.conversationId ?? "";
      const t = conversationTarget(conv, w.uid);
      const e = new ReactionEvent(reactionFromWire(w, dir), conv, t.receiverId, t.receiverType);
      return listeners.message.emit(type === "reaction.added" ? "onMessageReactionAdded" : "onMessageReactionRemoved", e);
    }
    const rt = RECEIPTS[type];
    if (rt) {
      const w = d as unknown as WireReceipt;
      await dir.resolveUsers([w.uid]);
      if (w.unread) return listeners.message.emit("onMessageMarkedUnread", receiptFromWire(w, "unread", dir));
      const r = receiptFromWire(w, rt, dir);
      const l = listeners.message;
      if (rt === "delivered") return l.emit("onMessagesDelivered", r);
      if (rt === "read") return l.emit("onMessagesRead", r);
      if (rt === "deliveredToAll") return l.emit("onMessagesDeliveredToAll", r);
      return l.emit("onMessagesReadByAll", r);
    }
    if (type === "typing.started" || type === "typing.ended") {
      const uid = d["uid"];
      const conv = d["conversationId"];
      if (typeof uid !== "string" || typeof conv !== "string") return;
      await dir.resolveUsers([uid]);
      return this.typingEvent(uid, conv, type === "typing.started");
    }
    if (type.startsWith("member.")) return this.groups.member(ev, recv);
    if (type.startsWith("group.")) return this.groups.group(ev, recv);
  }

  private typingEvent(uid: string, conv: string, started: boolean): void {
    const { directory: dir, listeners } = this.ctx;
    const t = conversationTarget(conv, uid);
    const indicator = new TypingIndicator(t.receiverId, t.receiverType);
    indicator.setSender(dir.user(uid));
    indicator.setConversationId(conv);
    const key = `${conv}\u0000${uid}`;
    const old = this.typing.get(key);
    if (old !== undefined) clearTimeout(old);
    this.typing.delete(key);
    // An ended indicator that timed out already (or never started here) is not told twice.
    if (!started) return old !== undefined ? listeners.message.emit("onTypingEnded", indicator) : undefined;
    const timer = setTimeout(() => {
      this.typing.delete(key);
      listeners.message.emit("onTypingEnded", indicator);
    }, this.typingTimeoutMs);
    (timer as { unref?: () => void }).unref?.();
    this.typing.set(key, timer);
    listeners.message.emit("onTypingStarted", indicator);
  }

  clear(): void {
    for (const t of this.typing.values()) clearTimeout(t);
    this.typing.clear();
    this.groups.clear();
  }
}
