import type { ChatClient } from "../client";
import type { GroupMemberScope } from "../constants";
import { memberFromWire } from "../mapping";
import type { GroupMember, User, UserKind } from "../models/user";
import { sessionOf } from "../registry";
import type { Session } from "../session";
import type { WireMember, WirePage, WireUser } from "../wire";
import { CursorRequest } from "./cursor";

const enc = encodeURIComponent;
const clamp = (n: number): number => Math.max(1, Math.min(100, Math.floor(n)));

/** The user directory (agents without an enabled configuration are hidden). */
export class UsersRequestBuilder {
  limit = 30;
  searchKeyword = "";
  kind: UserKind | undefined;

  setLimit(limit: number): this {
    this.limit = clamp(limit);
    return this;
  }
  setSearchKeyword(keyword: string): this {
    this.searchKeyword = keyword;
    return this;
  }
  /** Only people ("user") or only agents ("agent"). */
  setKind(kind: UserKind): this {
    this.kind = kind;
    return this;
  }
  build(client?: ChatClient): UsersRequest { return new UsersRequest({ ...this }, sessionOf(client)); }
}

export class UsersRequest extends CursorRequest<User, WireUser> {
  constructor(
    private readonly b: { readonly limit: number; readonly searchKeyword: string; readonly kind: UserKind | undefined },
    private readonly s: Session,
  ) {
    super();
  }
  protected load(cursor: string | undefined): Promise<WirePage<WireUser>> {
    const { limit, searchKeyword, kind } = this.b;
    return this.s.http.json<WirePage<WireUser>>("GET", "/users", { query: { limit, cursor, searchKeyword, kind } });
  }
  protected async map(items: readonly WireUser[]): Promise<User[]> {
    return items.map((w) => this.s.directory.putWireUser(w));
  }
}

/** A group's members (members only), or with banned() its banned users (admins and moderators). */
export class GroupMembersRequestBuilder {
  guid: string;
  limit = 30;
  scopes: GroupMemberScope[] = [];
  bannedOnly = false;

  constructor(guid: string) { this.guid = guid; }
  setLimit(limit: number): this {
    this.limit = clamp(limit);
    return this;
  }
  setScopes(scopes: readonly GroupMemberScope[]): this {
    this.scopes = [...scopes];
    return this;
  }
  build(client?: ChatClient): GroupMembersRequest { return new GroupMembersRequest({ ...this, scopes: [...this.scopes] }, sessionOf(client)); }
}

/** The banned users of a group (admins and moderators). */
export class BannedMembersRequestBuilder extends GroupMembersRequestBuilder {
  constructor(guid: string) {
    super(guid);
    this.bannedOnly = true;
  }
}

export class GroupMembersRequest extends CursorRequest<GroupMember, WireMember> {
  constructor(
    private readonly b: { readonly guid: string; readonly limit: number; readonly scopes: readonly GroupMemberScope[]; readonly bannedOnly: boolean },
    private readonly s: Session,
  ) {
    super();
  }
  protected load(cursor: string | undefined): Promise<WirePage<WireMember>> {
    const { guid, limit, scopes, bannedOnly } = this.b;
    return this.s.http.json<WirePage<WireMember>>("GET", `/groups/${enc(guid)}/${bannedOnly ? "bans" : "members"}`, {
      query: { limit, cursor, scopes: scopes.length > 0 && !bannedOnly ? scopes : undefined },
    });
  }
  protected async map(items: readonly WireMember[]): Promise<GroupMember[]> {
    const dir = this.s.directory;
    await dir.resolveUsers(items.map((m) => m.uid));
    return items.map((m) => memberFromWire({ ...m, guid: m.guid ?? this.b.guid }, dir.knowsUser(m.uid) ? dir.user(m.uid) : undefined));
  }
}
