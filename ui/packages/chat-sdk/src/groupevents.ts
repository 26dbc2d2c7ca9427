/**
 * Membership and group events → the group listener. Every membership change is stored as an
 * action message (category action) plus a member.* event, in one transaction: the member event
 * comes first for arrivals (joined, added) and right after the action message otherwise, with
 * consecutive seq in the group's conversation. The action message drives the listeners (it has
 * an id, so lists can show it); a member event whose action message did not reach this user (a
 * targeted event: banned or unbanned while not a member, a replay after leaving) drives them
 * with an Action built from the event (id 0). Each change calls the listeners once.
 */
import { BoundedSet } from "./dedupe";
import type { Directory } from "./directory";
import type { Emitters } from "./listeners";
import { actionFromData, groupFromWire, messageFromWire, type Resolver } from "./mapping";
import type { Action } from "./models/action";
import type { Group } from "./models/group";
import { isObject, seconds, type WireEvent, type WireGroup, type WireMemberEvent, type WireMessage } from "./wire";

export interface EventContext {
  me(): string | undefined;
  readonly directory: Directory;
  readonly listeners: Emitters;
  /** How many frames the socket received so far (orders group fetches after events). */
  received(): number;
}

function memberData(v: unknown): WireMemberEvent | undefined {
  if (!isObject(v)) return undefined;
  const { action, by, on, guid } = v;
  if (typeof action !== "string" || typeof by !== "string" || typeof on !== "string" || typeof guid !== "string") return undefined;
  return v as unknown as WireMemberEvent;
}

const JOINS = new Set(["joined", "added"]);
const DEPARTURES = new Set(["left", "kicked", "banned"]);

export class GroupEvents {
  private readonly actionSeqs = new BoundedSet<string>(4096);

  constructor(private readonly ctx: EventContext) {}

  /** A membership action message arrived (message.created, category action). */
  async action(ev: WireEvent, w: WireMessage, recv: number): Promise<void> {
    if (ev.conversationId && ev.seq) this.actionSeqs.add(`${ev.conversationId}#${ev.seq}`);
    const d = memberData(w.data);
    if (!d) return;
    await this.emit(d, recv, (r) => messageFromWire(w, r) as Action, [w.sender]);
  }

  /** A member.* event arrived. */
  async member(ev: WireEvent, recv: number): Promise<void> {
    const d = memberData(ev.data);
    if (!d || JOINS.has(d.action)) return; // the action message follows and drives the listeners
    if (ev.conversationId && ev.seq && this.actionSeqs.has(`${ev.conversationId}#${ev.seq - 1}`)) return;
    await this.emit(d, recv, (r) => {
      const a = actionFromData(d.guid, d, r);
      if (ev.conversationId) a.setConversationId(ev.conversationId);
      a.setSentAt(seconds(ev.at) ?? Date.now() / 1000);
      a.setSender(r.user(d.by));
      a.setMessage(d.by === d.on ? `${d.on} ${d.action}` : `${d.by} ${d.action} ${d.on}`);
      return a;
    });
  }

  /** group.created / updated / deleted / ownership_changed. */
  async group(ev: WireEvent, recv: number): Promise<void> {
    const { directory: dir, listeners } = this.ctx;
    const d = ev.data;
    if (!isObject(d) || typeof d["guid"] !== "string") return;
    const guid = d["guid"];
    switch (ev.type) {
      case "group.created": {
        // Only members hear of it: a fresh copy has the viewer's scope and the final count.
        const g = (await dir.freshGroup(guid, recv, this.ctx.received)) ?? groupFromWire(d as unknown as WireGroup);
        if (!g.getHasJoined()) {
          g.setHasJoined(true);
          if (g.getOwner() === this.ctx.me()) g.setScope("admin");
        }
        dir.storeGroup(g);
        listeners.group.emit("onGroupCreated", g.clone());
        return;
      }
      case "group.updated": {
        const g = groupFromWire(d as unknown as WireGroup);
        const old = dir.hasGroup(guid) ? dir.group(guid) : undefined;
        g.setHasJoined(old?.getHasJoined() ?? true); // only members hear of it
        g.setScope(old?.getScope());
        dir.storeGroup(g);
        listeners.group.emit("onGroupUpdated", g.clone());
        return;
      }
      case "group.deleted": {
        const g = dir.group(guid);
        g.setHasJoined(false);
        g.setScope(undefined);
        dir.forgetGroup(guid);
        listeners.group.emit("onGroupDeleted", g);
        return;
      }
      case "group.ownership_changed": {
        // The ownershipTransferred action message drove the listeners; keep the cache right.
        if (dir.hasGroup(guid) && typeof d["owner"] === "string") {
          const g = dir.group(guid);
          g.setOwner(d["owner"]);
          dir.storeGroup(g);
        }
        return;
      }
    }
  }

  /** The group as it is after change d, with the viewer's flags as the change left them. */
  private async groupAfter(d: WireMemberEvent, recv: number): Promise<Group> {
    const { directory: dir } = this.ctx;
    let g = await dir.freshGroup(d.guid, recv, this.ctx.received);
    if (!g) {
      // Not visible any more (a private group the user left): count the change ourselves.
      g = dir.group(d.guid);
      if (JOINS.has(d.action)) g.setMembersCount(g.getMembersCount() + 1);
      if (DEPARTURES.has(d.action)) g.setMembersCount(Math.max(0, g.getMembersCount() - 1));
    }
    if (d.on === this.ctx.me()) {
      if (JOINS.has(d.action)) {
        g.setHasJoined(true);
        g.setScope(d.scope ?? "participant");
      } else if (DEPARTURES.has(d.action)) {
        g.setHasJoined(false);
        g.setScope(undefined);
      } else if (d.action === "scopeChanged" || d.action === "ownershipTransferred") {
        g.setScope(d.scope ?? "admin");
      }
    }
    if (d.action === "ownershipTransferred") g.setOwner(d.on);
    dir.storeGroup(g);
    return g;
  }

  private async emit(d: WireMemberEvent, recv: number, build: (r: Resolver) => Action, more: string[] = []): Promise<void> {
    const { directory: dir, listeners } = this.ctx;
    const [, group] = await Promise.all([dir.resolveUsers([d.by, d.on, ...more]), this.groupAfter(d, recv)]);
    const r: Resolver = { user: (uid) => dir.user(uid), group: () => group.clone(), origin: dir.origin };
    const a = build(r);
    const on = dir.user(d.on);
    const by = dir.user(d.by);
    const l = listeners.group;
    switch (d.action) {
      case "joined":
        return l.emit("onGroupMemberJoined", a, on, group);
      case "left":
        return l.emit("onGroupMemberLeft", a, on, group);
      case "kicked":
        return l.emit("onGroupMemberKicked", a, on, by, group);
      case "banned":
        return l.emit("onGroupMemberBanned", a, on, by, group);
      case "unbanned":
        return l.emit("onGroupMemberUnbanned", a, on, by, group);
      case "added":
        return l.emit("onMemberAddedToGroup", a, on, by, group);
      case "scopeChanged":
        return l.emit("onGroupMemberScopeChanged", a, on, d.scope ?? "participant", d.oldScope ?? "participant", group);
      case "ownershipTransferred":
        return l.emit("onOwnershipChanged", a, on, group);
    }
  }

  clear(): void { this.actionSeqs.clear(); }
}
