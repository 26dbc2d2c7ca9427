import type { ChatClient } from "../client";
import { ChatException, SDK_ERROR } from "../exception";
import type { BaseMessage } from "../models/message";
import { sessionOf } from "../registry";
import type { Session } from "../session";
import type { WireMessage } from "../wire";
import { Serial } from "./serial";

const enc = encodeURIComponent;

/** A conversation's history: pages in id order (oldest first), older with fetchPrevious, newer
 * with fetchNext. */
export class MessagesRequestBuilder {
  uid: string | undefined;
  guid: string | undefined;
  limit = 30;
  parentMessageId = 0;
  replies = true;
  messageId = 0;
  types: string[] = [];
  categories: string[] = [];
  deleted = true;
  searchKeyword = "";

  /** The one-to-one conversation with uid (clears a guid). */
  setUID(uid: string): this {
    this.uid = uid;
    this.guid = undefined;
    return this;
  }
  /** The group's conversation (clears a uid). */
  setGUID(guid: string): this {
    this.guid = guid;
    this.uid = undefined;
    return this;
  }
  /** Page size (default 30, at most 100). */
  setLimit(limit: number): this {
    this.limit = Math.max(1, Math.min(100, Math.floor(limit)));
    return this;
  }
  /** The replies of this thread only. */
  setParentMessageId(id: number): this {
    this.parentMessageId = id;
    return this;
  }
  /** Leave thread replies out (the main conversation only). */
  hideReplies(hide: boolean): this {
    this.replies = !hide;
    return this;
  }
  /** An anchor: fetchPrevious starts at this message (included), fetchNext after it,
   * fetchAround around it. */
  setMessageId(id: number): this {
    this.messageId = id;
    return this;
  }
  /** Only these types (text, image, …, a custom type, assistant, groupMember). */
  setTypes(types: readonly string[]): this {
    this.types = [...types];
    return this;
  }
  /** Only these categories (message, custom, action, agentic). */
  setCategories(categories: readonly string[]): this {
    this.categories = [...categories];
    return this;
  }
  /** Leave deleted messages (tombstones) out. */
  hideDeletedMessages(hide: boolean): this {
    this.deleted = !hide;
    return this;
  }
  /** Only messages whose text contains this (case-insensitive). Without setUID or setGUID it
   * searches every conversation the user can read (at least 2 characters; fetchPrevious pages
   * back from the newest). */
  setSearchKeyword(keyword: string): this {
    this.searchKeyword = keyword.trim();
    return this;
  }
  /** client: another ChatClient than the Chat namespace's. */
  build(client?: ChatClient): MessagesRequest {
    const everywhere = !this.uid && !this.guid && this.searchKeyword !== "";
    if (!everywhere && !this.uid === !this.guid) throw new ChatException(SDK_ERROR.VALIDATION, "set exactly one of setUID and setGUID (or a search keyword alone)");
    return new MessagesRequest(this, sessionOf(client));
  }
}

export class MessagesRequest {
  private readonly b: Readonly<MessagesRequestBuilder>;
  private oldest: number | undefined;
  private newest: number | undefined;
  private reachedStart = false;
  private readonly fetches = new Serial();

  constructor(
    b: MessagesRequestBuilder,
    private readonly s: Session,
  ) {
    this.b = Object.assign(new MessagesRequestBuilder(), b, { types: [...b.types], categories: [...b.categories] });
  }

  getLimit(): number { return this.b.limit; }

  /** The page before the oldest message fetched so far (the newest page first); [] at the start. */
  fetchPrevious(): Promise<BaseMessage[]> {
    return this.fetches.run(async () => {
      for (let i = 0; i < 20 && !this.reachedStart; i++) {
        const before = this.oldest ?? (this.b.messageId ? this.b.messageId + 1 : undefined);
        const raw = await this.page(before === undefined ? {} : { before });
        if (raw.length < this.b.limit) this.reachedStart = true;
        this.track(raw);
        const kept = this.keep(raw);
        if (kept.length > 0) return this.s.messages(kept);
      }
      return [];
    });
  }

  /** The page after the newest message fetched so far (the newest page when nothing was
   * fetched and there is no anchor); [] when there is nothing newer yet. */
  fetchNext(): Promise<BaseMessage[]> {
    return this.fetches.run(async () => {
      this.conversationOnly("fetchNext");
      for (let i = 0; i < 20; i++) {
        const after = this.newest ?? (this.b.messageId || undefined);
        const raw = await this.page(after === undefined ? {} : { after });
        if (after === undefined && raw.length < this.b.limit) this.reachedStart = true;
        this.track(raw);
        const kept = this.keep(raw);
        if (kept.length > 0 || raw.length < this.b.limit) return this.s.messages(kept);
      }
      return [];
    });
  }

  /** The page around the anchor (setMessageId): half older, half from the anchor on. Later
   * fetchPrevious / fetchNext continue from its ends. */
  fetchAround(): Promise<BaseMessage[]> {
    return this.fetches.run(async () => {
      this.conversationOnly("fetchAround");
      if (!this.b.messageId) throw new ChatException(SDK_ERROR.VALIDATION, "fetchAround needs setMessageId");
      const raw = await this.page({ around: this.b.messageId });
      this.track(raw);
      return this.s.messages(this.keep(raw));
    });
  }

  private conversationOnly(what: string): void {
    if (!this.b.uid && !this.b.guid) throw new ChatException(SDK_ERROR.VALIDATION, `${what} needs setUID or setGUID: a search across conversations pages with fetchPrevious`);
  }

  private track(raw: readonly WireMessage[]): void {
    for (const m of raw) {
      if (this.oldest === undefined || m.id < this.oldest) this.oldest = m.id;
      if (this.newest === undefined || m.id > this.newest) this.newest = m.id;
    }
  }

  private keep(raw: readonly WireMessage[]): WireMessage[] {
    return this.b.deleted ? [...raw] : raw.filter((m) => !m.deletedAt);
  }

  private async page(cursor: { before?: number; after?: number; around?: number }): Promise<WireMessage[]> {
    const b = this.b;
    if (!b.uid && !b.guid) {
      // Across conversations: the service answers newest first; pages are in id order.
      const res = await this.s.http.json<{ items?: WireMessage[] }>("GET", "/messages", {
        query: { searchKeyword: b.searchKeyword, limit: b.limit, before: cursor.before },
      });
      return [...(res.items ?? [])].reverse();
    }
    const path = b.uid ? `/users/${enc(b.uid)}/messages` : `/groups/${enc(b.guid ?? "")}/messages`;
    const res = await this.s.http.json<{ items?: WireMessage[] }>("GET", path, {
      query: {
        limit: b.limit,
        ...cursor,
        parentId: b.parentMessageId || undefined,
        hideReplies: b.replies ? undefined : true,
        types: b.types.length > 0 ? b.types : undefined,
        categories: b.categories.length > 0 ? b.categories : undefined,
        searchKeyword: b.searchKeyword || undefined,
      },
    });
    return res.items ?? [];
  }
}
