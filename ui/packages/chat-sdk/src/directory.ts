import { ChatException } from "./exception";
import type { Http } from "./http";
import { groupFromWire, userFromWire, type Resolver } from "./mapping";
import { Group } from "./models/group";
import { User } from "./models/user";
import type { WireGroup, WireUser } from "./wire";

const enc = encodeURIComponent;

/**
 * The session's users and groups, so messages and events (which carry only uids and guids)
 * come with names, avatars and member counts. Unknown users are looked up once (GET
 * /users/{uid}); a user the service hides (404) stays a bare uid.
 */
export class Directory implements Resolver {
  private readonly users = new Map<string, User>();
  private readonly hidden = new Set<string>();
  private readonly pending = new Map<string, Promise<void>>();
  /** fetchedAfter: the receive counter when the fetch started (-1: not from a fetch for events). */
  private readonly groups = new Map<string, { group: Group; fetchedAfter: number }>();

  constructor(
    private readonly http: Http,
    readonly origin: string,
  ) {}

  user(uid: string): User { return this.users.get(uid) ?? new User(uid); }
  putUser(u: User): void {
    this.users.set(u.getUid(), u);
    this.hidden.delete(u.getUid());
  }
  putWireUser(w: WireUser): User {
    const u = userFromWire(w);
    this.putUser(u);
    return u;
  }
  knowsUser(uid: string): boolean { return this.users.has(uid) || this.hidden.has(uid); }

  /** unknownUsers filters uids to those not looked up yet. */
  unknownUsers(uids: Iterable<string | undefined>): string[] {
    const out = new Set<string>();
    for (const u of uids) if (u && !this.knowsUser(u)) out.add(u);
    return [...out];
  }

  /** resolveUsers looks up the users not known yet, in parallel; failures leave bare uids. */
  async resolveUsers(uids: Iterable<string | undefined>): Promise<void> {
    const todo = this.unknownUsers(uids);
    if (todo.length > 0) await Promise.all(todo.map((uid) => this.fetchUser(uid)));
  }

  private fetchUser(uid: string): Promise<void> {
    let p = this.pending.get(uid);
    if (!p) {
      p = this.http
        .json<WireUser>("GET", `/users/${enc(uid)}`)
        .then((w) => void this.putWireUser(w))
        .catch((err: unknown) => {
          if (err instanceof ChatException && err.code === "ERR_UID_NOT_FOUND") this.hidden.add(uid);
        })
        .finally(() => this.pending.delete(uid));
      this.pending.set(uid, p);
    }
    return p;
  }

  /** resolveGroups looks up the groups not known yet (GET /groups/{guid}), in parallel. */
  async resolveGroups(guids: Iterable<string>): Promise<void> {
    const todo = [...new Set(guids)].filter((g) => !this.groups.has(g));
    await Promise.all(
      todo.map((guid) =>
        this.http.json<WireGroup>("GET", `/groups/${enc(guid)}`).then(
          (w) => void this.putWireGroup(w),
          () => undefined,
        ),
      ),
    );
  }

  /** A copy of the known group, or a bare one (guid as its name). */
  group(guid: string): Group { return this.groups.get(guid)?.group.clone() ?? new Group(guid, guid); }
  hasGroup(guid: string): boolean { return this.groups.has(guid); }
  putGroup(g: Group, fetchedAfter = -1): void { this.groups.set(g.getGuid(), { group: g.clone(), fetchedAfter }); }
  putWireGroup(w: WireGroup): Group {
    const g = groupFromWire(w);
    this.putGroup(g);
    return g;
  }
  forgetGroup(guid: string): void { this.groups.delete(guid); }

  /**
   * freshGroup answers the group as the service has it after the event received as number
   * recv: a copy fetched after that event arrived, else a new fetch (counter() is the receive
   * counter now). undefined when the service will not show it (a private group one left).
   */
  async freshGroup(guid: string, recv: number, counter: () => number): Promise<Group | undefined> {
    const e = this.groups.get(guid);
    if (e && e.fetchedAfter >= recv) return e.group.clone();
    const at = counter();
    try {
      const g = groupFromWire(await this.http.json<WireGroup>("GET", `/groups/${enc(guid)}`));
      this.putGroup(g, at);
      return g.clone();
    } catch {
      return undefined;
    }
  }

  /** Stores a group a live event changed, keeping how fresh the cached copy was. */
  storeGroup(g: Group): void { this.putGroup(g, this.groups.get(g.getGuid())?.fetchedAfter ?? -1); }

  clear(): void {
    this.users.clear();
    this.hidden.clear();
    this.groups.clear();
  }
}
