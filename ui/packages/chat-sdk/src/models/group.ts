import type { GroupMemberScope, GroupType } from "../constants";

/** A group's directory entry; hasJoined and scope are the logged-in user's. */
export class Group {
  protected guid: string;
  protected name: string;
  protected type: GroupType;
  protected password?: string;
  protected description?: string;
  protected icon?: string;
  protected tags: string[] = [];
  protected owner?: string;
  protected membersCount = 0;
  protected hasJoined = false;
  protected scope?: GroupMemberScope;
  protected createdAt?: number;
  protected updatedAt?: number;

  constructor(guid: string, name: string, type: GroupType = "public", password?: string) {
    this.guid = guid;
    this.name = name;
    this.type = type;
    if (password !== undefined) this.password = password;
  }

  getGuid(): string { return this.guid; }
  getName(): string { return this.name; }
  getType(): GroupType { return this.type; }
  /** Only set on a group built for createGroup; the service never returns passwords. */
  getPassword(): string | undefined { return this.password; }
  getDescription(): string | undefined { return this.description; }
  getIcon(): string | undefined { return this.icon; }
  getTags(): string[] { return this.tags; }
  /** The owner's uid. */
  getOwner(): string | undefined { return this.owner; }
  getMembersCount(): number { return this.membersCount; }
  getHasJoined(): boolean { return this.hasJoined; }
  /** The logged-in user's scope (undefined when not a member). */
  getScope(): GroupMemberScope | undefined { return this.scope; }
  /** Seconds since the epoch. */
  getCreatedAt(): number | undefined { return this.createdAt; }
  getUpdatedAt(): number | undefined { return this.updatedAt; }

  setGuid(guid: string): void { this.guid = guid; }
  setName(name: string): void { this.name = name; }
  setType(type: GroupType): void { this.type = type; }
  setPassword(password: string): void { this.password = password; }
  setDescription(description: string): void { this.description = description; }
  setIcon(icon: string): void { this.icon = icon; }
  setTags(tags: string[]): void { this.tags = [...tags]; }
  setOwner(owner: string): void { this.owner = owner; }
  setMembersCount(count: number): void { this.membersCount = count; }
  setHasJoined(joined: boolean): void { this.hasJoined = joined; }
  setScope(scope: GroupMemberScope | undefined): void {
    if (scope === undefined) delete this.scope;
    else this.scope = scope;
  }
  setCreatedAt(at: number): void { this.createdAt = at; }
  setUpdatedAt(at: number): void { this.updatedAt = at; }

  /** A copy (React state wants a new object for a changed group). */
  clone(): Group {
    const c = Object.create(Object.getPrototypeOf(this) as object) as Group;
    Object.assign(c, this);
    c.tags = [...this.tags];
    return c;
  }
}
