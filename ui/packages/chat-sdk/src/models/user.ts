import type { GroupMemberScope } from "../constants";
import type { JSONObject } from "../wire";

export type UserKind = "user" | "agent";

/** A person or an agent (an agent is a user of kind "agent"). */
export class User {
  protected uid: string;
  protected name?: string;
  protected avatar?: string;
  protected role?: string;
  protected kind: UserKind = "user";
  protected metadata?: JSONObject;
  protected createdAt?: number;
  protected status?: "online" | "offline";
  protected lastActiveAt?: number;
  protected deactivated = false;

  constructor(uid: string, name?: string) {
    this.uid = uid;
    if (name !== undefined) this.name = name;
  }

  getUid(): string { return this.uid; }
  /** The display name; the uid when the service did not tell it. */
  getName(): string { return this.name ?? this.uid; }
  getAvatar(): string | undefined { return this.avatar; }
  getRole(): string | undefined { return this.role; }
  getKind(): UserKind { return this.kind; }
  getMetadata(): JSONObject | undefined { return this.metadata; }
  /** Seconds since the epoch. */
  getCreatedAt(): number | undefined { return this.createdAt; }

  setUid(uid: string): void { this.uid = uid; }
  setName(name: string): void { this.name = name; }
  setAvatar(avatar: string): void { this.avatar = avatar; }
  setRole(role: string): void { this.role = role; }
  setKind(kind: UserKind): void { this.kind = kind; }
  setMetadata(metadata: JSONObject): void { this.metadata = metadata; }
  setCreatedAt(at: number): void { this.createdAt = at; }
  /** "online" while the user has the chat open somewhere, "offline" otherwise (as last read
   * from the service; presence is not pushed: read the user again to refresh it). */
  getStatus(): "online" | "offline" | undefined { return this.status; }
  /** When the user last had the chat open (seconds since the epoch). */
  getLastActiveAt(): number | undefined { return this.lastActiveAt; }
  setStatus(status: "online" | "offline"): void { this.status = status; }
  setLastActiveAt(at: number): void { this.lastActiveAt = at; }
  /** Deactivated by an admin: the person cannot sign in until reactivated. */
  isDeactivated(): boolean { return this.deactivated; }
  setDeactivated(deactivated: boolean): void { this.deactivated = deactivated; }
}

/** A user's membership of a group. */
export class GroupMember extends User {
  protected scope: GroupMemberScope;
  protected joinedAt?: number;
  protected guid?: string;

  constructor(uid: string, scope: GroupMemberScope = "participant") {
    super(uid);
    this.scope = scope;
  }

  getScope(): GroupMemberScope { return this.scope; }
  /** Seconds since the epoch (the ban's time for banned members). */
  getJoinedAt(): number | undefined { return this.joinedAt; }
  getGuid(): string | undefined { return this.guid; }
  setScope(scope: GroupMemberScope): void { this.scope = scope; }
  setJoinedAt(at: number): void { this.joinedAt = at; }
  setGuid(guid: string): void { this.guid = guid; }
}
