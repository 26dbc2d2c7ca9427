/**
 * A stand-in for the SDK's Chat namespace in the list's unit tests (jsdom): the real model
 * classes, with the session, listeners, request builders and a few calls replaced by an
 * in-memory conversation the test controls. Install it with vi.mock (see
 * ChatMessageList.test.tsx); it takes the real module as an argument because importing
 * "@agentry/chat-sdk" here would import the mock itself.
 */
import type * as SDK from "@agentry/chat-sdk";

type Real = typeof SDK;
type Chat = Real["Chat"];
type Msg = SDK.BaseMessage;

export interface FakeChat {
  Chat: Chat;
  real: Real;
  me: SDK.User | null;
  /** Every stored message of every conversation, any order. */
  store: Msg[];
  conversations: SDK.Conversation[];
  message: Map<string, SDK.MessageListenerCallbacks>;
  group: Map<string, SDK.GroupListenerCallbacks>;
  connection: Map<string, SDK.ConnectionListenerCallbacks>;
  /** Each page request: what and the builder's settings. */
  pages: { kind: "previous" | "next" | "around"; uid?: string | undefined; guid?: string | undefined; parentId: number; anchor: number }[];
  /** The next page requests fail with this (each failure consumes one). */
  failures: Error[];
  /** Pages wait for this before answering, when set. */
  gate: Promise<void> | undefined;
  markedRead: number[];
  markedDelivered: number[];
  mediaFetched: string[];
  reset(): void;
  /** Calls a message listener callback on every registered listener. */
  emit<K extends keyof SDK.MessageListenerCallbacks>(name: K, ...args: Parameters<NonNullable<SDK.MessageListenerCallbacks[K]>>): void;
}

let current: FakeChat | undefined;

/** The installed fake (after vi.mock ran the factory). */
export function fake(): FakeChat {
  if (!current) throw new Error("fakeChat is not installed: vi.mock(\"@agentry/chat-sdk\", …) first");
  return current;
}

/** What reset() empties. */
const emptied = () => ({
  me: null,
  store: [],
  conversations: [],
  pages: [],
  failures: [],
  gate: undefined,
  markedRead: [],
  markedDelivered: [],
  mediaFetched: [],
});

/** A message request over the fake's store: pages before, after and around the anchor, as the service answers them. */
class FakeRequest {
  private oldest: number | undefined;
  private newest: number | undefined;
  constructor(
    private readonly f: FakeChat,
    private readonly b: SDK.MessagesRequestBuilder,
  ) {}
  private all(): Msg[] {
    const b = this.b;
    return this.f.store
      .filter((m) => {
        const conv = m.getConversationId();
        const me = this.f.me?.getUid() ?? "";
        const want = b.guid ? `group_${b.guid}` : `user_${[me, b.uid].sort().join("_user_")}`;
        if (conv !== want) return false;
        if (b.parentMessageId) return m.getParentMessageId() === b.parentMessageId;
        return b.replies || !m.getParentMessageId();
      })
      .sort((a, c) => a.getId() - c.getId());
  }
  private async answer(kind: "previous" | "next" | "around", pick: (all: Msg[]) => Msg[]): Promise<Msg[]> {
    const f = this.f;
    f.pages.push({ kind, uid: this.b.uid, guid: this.b.guid, parentId: this.b.parentMessageId, anchor: this.b.messageId });
    if (f.gate) await f.gate;
    await Promise.resolve();
    const failure = f.failures.shift();
    if (failure) throw failure;
    const page = pick(this.all());
    for (const m of page) {
      if (this.oldest === undefined || m.getId() < this.oldest) this.oldest = m.getId();
      if (this.newest === undefined || m.getId() > this.newest) this.newest = m.getId();
    }
    return page.map((m) => m.clone());
  }
  getLimit() {
    return this.b.limit;
  }
  fetchPrevious() {
    return this.answer("previous", (all) => {
      const before = this.oldest ?? (this.b.messageId ? this.b.messageId + 1 : Infinity);
      return all.filter((m) => m.getId() < before).slice(-this.b.limit);
    });
  }
  fetchNext() {
    return this.answer("next", (all) => {
      const after = this.newest ?? this.b.messageId;
      return all.filter((m) => m.getId() > after).slice(0, this.b.limit);
    });
  }
  fetchAround() {
    return this.answer("around", (all) => {
      const a = this.b.messageId;
      const before = all.filter((m) => m.getId() < a).slice(-Math.floor(this.b.limit / 2));
      const from = all.filter((m) => m.getId() >= a).slice(0, this.b.limit - before.length);
      return [...before, ...from];
    });
  }
}

/** The request builders, building over the fake's store. */
function fakeBuilders(real: Real, f: FakeChat) {
  class FakeMessagesRequestBuilder extends real.Chat.MessagesRequestBuilder {
    override build(): SDK.MessagesRequest {
      return new FakeRequest(f, this) as unknown as SDK.MessagesRequest;
    }
  }
  class FakeConversationsRequestBuilder extends real.Chat.ConversationsRequestBuilder {
    override build(): SDK.ConversationsRequest {
      let done = false;
      return {
        fetchNext: async () => {
          if (done) return [];
          done = true;
          return f.conversations.filter((c) => !this.type || c.getConversationType() === this.type);
        },
      } as unknown as SDK.ConversationsRequest;
    }
  }
  return { MessagesRequestBuilder: FakeMessagesRequestBuilder, ConversationsRequestBuilder: FakeConversationsRequestBuilder };
}

/** vi.mock's factory: the real SDK with a copy of its Chat namespace, whose functions tests spy on. */
export async function spyableChatSDK(importOriginal: () => Promise<unknown>): Promise<Real> {
  const real = (await importOriginal()) as Real;
  return { ...real, Chat: { ...real.Chat } };
}

/** vi.mock's factory: the real SDK with the fake Chat namespace. */
export async function mockChatSDK(importOriginal: () => Promise<unknown>): Promise<Real> {
  const real = (await importOriginal()) as Real;
  return { ...real, Chat: installFakeChat(real) };
}

export function installFakeChat(real: Real): Chat {
  const f: FakeChat = {
    ...emptied(),
    Chat: undefined as unknown as Chat,
    real,
    message: new Map(),
    group: new Map(),
    connection: new Map(),
    reset() {
      Object.assign(f, emptied());
      f.message.clear();
      f.group.clear();
      f.connection.clear();
    },
    emit(name, ...args) {
      for (const l of [...f.message.values()]) (l[name] as ((...a: unknown[]) => void) | undefined)?.(...args);
    },
  };
  const chat = {
    ...real.Chat,
    getLoggedinUser: async () => f.me,
    addMessageListener: (id: string, l: SDK.MessageListenerCallbacks) => void f.message.set(id, l),
    removeMessageListener: (id: string) => void f.message.delete(id),
    addGroupListener: (id: string, l: SDK.GroupListenerCallbacks) => void f.group.set(id, l),
    removeGroupListener: (id: string) => void f.group.delete(id),
    addConnectionListener: (id: string, l: SDK.ConnectionListenerCallbacks) => void f.connection.set(id, l),
    removeConnectionListener: (id: string) => void f.connection.delete(id),
    addAgentListener: () => undefined,
    removeAgentListener: () => undefined,
    followAgentRuns: () => () => undefined,
    markAsRead: async (m: Msg | number) => void f.markedRead.push(typeof m === "number" ? m : m.getId()),
    markAsDelivered: async (m: Msg | number) => void f.markedDelivered.push(typeof m === "number" ? m : m.getId()),
    fetchMedia: async (url: string) => {
      f.mediaFetched.push(url);
      return new Blob(["x"], { type: "image/png" });
    },
    ...fakeBuilders(real, f),
  } as unknown as Chat;
  f.Chat = chat;
  current = f;
  return chat;
}

/** Helpers to make stored messages. */
export function makeMessages(real: Real) {
  const C = real.Chat;
  const conv = (from: string, to: string, group: boolean) => (group ? `group_${to}` : `user_${[from, to].sort().join("_user_")}`);
  const stamp = <M extends Msg>(m: M, id: number, from: string, to: string, o: MsgOpts): M => {
    m.setId(id);
    m.setSender(new C.User(from, o.name ?? from[0]!.toUpperCase() + from.slice(1)));
    m.setConversationId(conv(from, to, !!o.group));
    m.setSentAt(o.sentAt ?? 1_700_000_000 + id * 60);
    if (o.parentId) m.setParentMessageId(o.parentId);
    if (o.replyCount) m.setReplyCount(o.replyCount);
    if (o.deliveredAt) m.setDeliveredAt(o.deliveredAt);
    if (o.readAt) m.setReadAt(o.readAt);
    return m;
  };
  return {
    text(id: number, from: string, to: string, text: string, o: MsgOpts = {}): SDK.TextMessage {
      return stamp(new C.TextMessage(to, text, o.group ? "group" : "user"), id, from, to, o);
    },
    image(id: number, from: string, to: string, url: string, o: MsgOpts = {}): SDK.MediaMessage {
      const m = stamp(new C.MediaMessage(to, undefined, "image", o.group ? "group" : "user"), id, from, to, o);
      m.setAttachment(new C.Attachment(url, "photo.png", "image/png", 1234));
      return m;
    },
    custom(id: number, from: string, to: string, type: string, data: SDK.JSONObject, o: MsgOpts = {}): SDK.CustomMessage {
      return stamp(new C.CustomMessage(to, o.group ? "group" : "user", type, data), id, from, to, o);
    },
    action(id: number, guid: string, action: string, by: string, on: string, o: MsgOpts = {}): SDK.Action {
      const a = stamp(new C.Action(guid, action), id, by, guid, { ...o, group: true });
      a.setActionBy(new C.User(by, by[0]!.toUpperCase() + by.slice(1)));
      a.setActionOn(new C.User(on, on[0]!.toUpperCase() + on.slice(1)));
      return a;
    },
  };
}

export interface MsgOpts {
  group?: boolean;
  name?: string;
  sentAt?: number;
  parentId?: number;
  replyCount?: number;
  deliveredAt?: number;
  readAt?: number;
}
