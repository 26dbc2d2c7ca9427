import type { ChatClient } from "../client";
import { ChatException, SDK_ERROR } from "../exception";
import { reactionFromWire } from "../mapping";
import type { Reaction } from "../models/reaction";
import { sessionOf } from "../registry";
import type { Session } from "../session";
import type { WirePage, WireReaction } from "../wire";
import { CursorRequest } from "./cursor";

/** Who reacted to a message, oldest first. */
export class ReactionsRequestBuilder {
  messageId = 0;
  reaction = "";
  limit = 30;

  setMessageId(id: number): this {
    this.messageId = id;
    return this;
  }
  /** Only this reaction (default: all). */
  setReaction(reaction: string): this {
    this.reaction = reaction;
    return this;
  }
  setLimit(limit: number): this {
    this.limit = Math.max(1, Math.min(100, Math.floor(limit)));
    return this;
  }
  build(client?: ChatClient): ReactionsRequest {
    if (!this.messageId) throw new ChatException(SDK_ERROR.VALIDATION, "setMessageId first");
    return new ReactionsRequest({ ...this }, sessionOf(client));
  }
}

export class ReactionsRequest extends CursorRequest<Reaction, WireReaction> {
  constructor(
    private readonly b: { readonly messageId: number; readonly reaction: string; readonly limit: number },
    private readonly s: Session,
  ) {
    super();
  }
  protected load(cursor: string | undefined): Promise<WirePage<WireReaction>> {
    return this.s.http.json<WirePage<WireReaction>>("GET", `/messages/${this.b.messageId}/reactions`, {
      query: { limit: this.b.limit, cursor, reaction: this.b.reaction || undefined },
    });
  }
  protected async map(items: readonly WireReaction[]): Promise<Reaction[]> {
    const dir = this.s.directory;
    await dir.resolveUsers(items.map((r) => r.uid));
    return items.map((r) => reactionFromWire({ ...r, messageId: r.messageId || this.b.messageId }, dir));
  }
}
