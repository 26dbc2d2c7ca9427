import type { ChatClient } from "../client";
import type { Group } from "../models/group";
import { sessionOf } from "../registry";
import type { Session } from "../session";
import type { WireGroup, WirePage } from "../wire";
import { CursorRequest } from "./cursor";

/** The group directory: public and password groups, and the private groups one is in. */
export class GroupsRequestBuilder {
  limit = 30;
  searchKeyword = "";
  joined = false;
  tags: string[] = [];
  includeTags = false;

  /** Page size (default 30, at most 100). */
  setLimit(limit: number): this {
    this.limit = Math.max(1, Math.min(100, Math.floor(limit)));
    return this;
  }
  /** Groups whose name contains the keyword (case-insensitive). */
  setSearchKeyword(keyword: string): this {
    this.searchKeyword = keyword;
    return this;
  }
  /** Only groups the user is a member of. */
  joinedOnly(joined: boolean): this {
    this.joined = joined;
    return this;
  }
  /** Groups with any of these tags. */
  setTags(tags: readonly string[]): this {
    this.tags = [...tags];
    return this;
  }
  /** Answer each group's tags (off by default). */
  withTags(withTags: boolean): this {
    this.includeTags = withTags;
    return this;
  }
  /** client: another ChatClient than the Chat namespace's. */
  build(client?: ChatClient): GroupsRequest { return new GroupsRequest(this, sessionOf(client)); }
}

export class GroupsRequest extends CursorRequest<Group, WireGroup> {
  private readonly b: Readonly<GroupsRequestBuilder>;

  constructor(
    b: GroupsRequestBuilder,
    private readonly s: Session,
  ) {
    super();
    this.b = Object.assign(new GroupsRequestBuilder(), b, { tags: [...b.tags] });
  }
  getLimit(): number { return this.b.limit; }
  protected load(cursor: string | undefined): Promise<WirePage<WireGroup>> {
    const b = this.b;
    return this.s.http.json<WirePage<WireGroup>>("GET", "/groups", {
      query: {
        limit: b.limit,
        cursor,
        searchKeyword: b.searchKeyword || undefined,
        joinedOnly: b.joined || undefined,
        tags: b.tags.length > 0 ? b.tags : undefined,
        withTags: b.includeTags || undefined,
      },
    });
  }
  protected async map(items: readonly WireGroup[]): Promise<Group[]> {
    return items.map((w) => this.s.directory.putWireGroup(w));
  }
}
