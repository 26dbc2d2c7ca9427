import type { GroupMemberScope, GroupType } from "../constants";
import type { Group } from "../models/group";
import type { GroupMember } from "../models/user";
import type { Session } from "../session";
import type { WireGroup } from "../wire";

const enc = encodeURIComponent;
const path = (guid: string, rest = ""): string => `/groups/${enc(guid)}${rest}`;

function groupBody(g: Group): Record<string, unknown> {
  const body: Record<string, unknown> = { guid: g.getGuid(), name: g.getName(), type: g.getType() };
  const pw = g.getPassword();
  const desc = g.getDescription();
  const icon = g.getIcon();
  if (pw) body["password"] = pw;
  if (desc !== undefined) body["description"] = desc;
  if (icon !== undefined) body["icon"] = icon;
  if (g.getTags().length > 0) body["tags"] = g.getTags();
  return body;
}

export async function getGroup(s: Session, guid: string): Promise<Group> {
  return s.directory.putWireGroup(await s.http.json<WireGroup>("GET", path(guid)));
}

/** Creates a group (the caller becomes its owner and an admin), optionally with members. */
export async function createGroup(s: Session, group: Group, members: readonly GroupMember[] = []): Promise<Group> {
  const body = groupBody(group);
  if (members.length > 0) body["members"] = members.map((m) => ({ uid: m.getUid(), scope: m.getScope() }));
  return s.directory.putWireGroup(await s.http.json<WireGroup>("POST", "/groups", { body }));
}

/** Updates name, description, icon, tags, type or password (admins). */
export async function updateGroup(s: Session, group: Group): Promise<Group> {
  const body = groupBody(group);
  delete body["guid"];
  return s.directory.putWireGroup(await s.http.json<WireGroup>("PUT", path(group.getGuid()), { body }));
}

export async function joinGroup(s: Session, guid: string, _type?: GroupType, password?: string): Promise<Group> {
  const body = password ? { password } : {};
  return s.directory.putWireGroup(await s.http.json<WireGroup>("POST", path(guid, "/join"), { body }));
}

export async function leaveGroup(s: Session, guid: string): Promise<boolean> {
  await s.http.request("POST", path(guid, "/leave"));
  return true;
}

export async function deleteGroup(s: Session, guid: string): Promise<boolean> {
  await s.http.request("DELETE", path(guid));
  return true; // the group.deleted event forgets it (with its last known details for the listeners)
}

interface AddResult {
  results: Record<string, { success?: boolean; error?: { code: string; message: string } }>;
}

/**
 * Adds members (admins) and bans bannedUids. Each uid gets "success" or the error code it got
 * (ERR_BANNED, ERR_ALREADY_JOINED, ERR_UID_NOT_FOUND, …).
 */
export async function addMembersToGroup(
  s: Session,
  guid: string,
  members: readonly GroupMember[],
  bannedUids: readonly string[] = [],
): Promise<Record<string, "success" | string>> {
  const out: Record<string, string> = {};
  if (members.length > 0) {
    const body = { members: members.map((m) => ({ uid: m.getUid(), scope: m.getScope() })) };
    const res = await s.http.json<AddResult>("POST", path(guid, "/members"), { body });
    for (const [uid, r] of Object.entries(res.results ?? {})) out[uid] = r.success ? "success" : (r.error?.code ?? "ERR_INTERNAL");
  }
  for (const uid of bannedUids) {
    try {
      await banGroupMember(s, guid, uid);
      out[uid] = "success";
    } catch (err) {
      out[uid] = (err as { code?: string }).code ?? "ERR_INTERNAL";
    }
  }
  return out;
}

export async function kickGroupMember(s: Session, guid: string, uid: string): Promise<boolean> {
  await s.http.request("DELETE", path(guid, `/members/${enc(uid)}`));
  return true;
}

export async function banGroupMember(s: Session, guid: string, uid: string): Promise<boolean> {
  await s.http.request("POST", path(guid, `/bans/${enc(uid)}`));
  return true;
}

export async function unbanGroupMember(s: Session, guid: string, uid: string): Promise<boolean> {
  await s.http.request("DELETE", path(guid, `/bans/${enc(uid)}`));
  return true;
}

export async function updateGroupMemberScope(s: Session, guid: string, uid: string, scope: GroupMemberScope): Promise<boolean> {
  await s.http.request("PUT", path(guid, `/members/${enc(uid)}`), { body: { scope } });
  return true;
}

export async function transferGroupOwnership(s: Session, guid: string, uid: string): Promise<boolean> {
  await s.http.request("PUT", path(guid, "/owner"), { body: { uid } });
  return true;
}
