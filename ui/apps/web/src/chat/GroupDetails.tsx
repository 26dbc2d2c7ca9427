// A group's details beside the conversation: what it is, its members with their roles (live),
// and for its admins and moderators the member actions the service allows them (role changes,
// remove, ban), adding people or agents, the banned list; for everyone, leaving it.
import { Chat } from "@agentry/chat-sdk";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { errorText } from "../session";
import { useGroupMembers } from "./members";

const noMembers: readonly Chat.GroupMember[] = [];

type Scope = Chat.GroupMemberScope;
const rank: Record<Scope, number> = { participant: 0, moderator: 1, admin: 2 };
const scopeNames: Record<Scope, string> = { participant: "Member", moderator: "Moderator", admin: "Admin" };

export interface GroupDetailsProps {
  group: Chat.Group;
  me: Chat.User;
  /** People and agents of the directory (who can be added). */
  directory: readonly Chat.User[];
  onClose(): void;
  /** The user left the group (or was removed from it). */
  onLeft(): void;
  /** The member list changed (agents in it answer mentions). */
  onMembers?(members: readonly Chat.GroupMember[]): void;
}

/** The group's banned members (this panel's own list), live as members are banned and unbanned. */
function useBanned(guid: string, setError: (e: string) => void) {
  const [banned, setBanned] = useState<Chat.GroupMember[]>([]);
  const loadBanned = useCallback(async () => {
    try {
      setBanned(await new Chat.BannedMembersRequestBuilder(guid).setLimit(100).build().fetchNext().catch(() => [] as Chat.GroupMember[]));
    } catch (e) {
      setError(errorText(e));
    }
  }, [guid, setError]);
  useEffect(() => {
    void loadBanned();
    const id = `agentry-web-group-banned-${guid}`;
    const reload = (...args: unknown[]) => {
      const g = args.find((x): x is Chat.Group => x instanceof Chat.Group);
      if (!g || g.getGuid() === guid) void loadBanned();
    };
    Chat.addGroupListener(id, new Chat.GroupListener({ onGroupMemberBanned: reload, onGroupMemberUnbanned: reload }));
    return () => Chat.removeGroupListener(id);
  }, [guid, loadBanned]);
  return { banned, loadBanned };
}

type Act = (what: string, fn: () => Promise<unknown>) => Promise<void>;

export function GroupDetails({ group, me, directory, onClose, onLeft, onMembers }: GroupDetailsProps) {
  const guid = group.getGuid();
  // The members come from the shared list (the conversation uses it too).
  const shared = useGroupMembers(guid);
  const members = shared.members ?? noMembers;
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");
  const { banned, loadBanned } = useBanned(guid, setError);
  const closeRef = useRef<HTMLButtonElement>(null);
  const onMembersRef = useRef(onMembers);
  onMembersRef.current = onMembers;
  useEffect(() => {
    if (shared.members) onMembersRef.current?.(shared.members);
  }, [shared.members]);
  useEffect(() => closeRef.current?.focus(), []);

  const mine = members.find((m) => m.getUid() === me.getUid())?.getScope() ?? group.getScope() ?? "participant";
  const owner = group.getOwner();
  const act: Act = async (what, fn) => {
    setError("");
    setStatus("");
    try {
      await fn();
      setStatus(what);
      await Promise.all([shared.reload(), loadBanned()]);
    } catch (e) {
      setError(errorText(e));
    }
  };
  const memberIds = new Set(members.map((m) => m.getUid()));
  const nameOf = (uid: string) => (members.find((m) => m.getUid() === uid) ?? directory.find((d) => d.getUid() === uid))?.getName() || uid;
  return (
    <aside className="agentry-web__thread agentry-web__details" aria-label="Group details">
      <header className="agentry-web__thread-head">
        <div>
          <h2 className="agentry-web__section-title agentry-web__thread-title">{group.getName() || guid}</h2>
          <p className="agentry-web__thread-parent">
            {group.getType() === "public" ? "Public group" : group.getType() === "private" ? "Private group" : "Password group"} · {members.length} member{members.length === 1 ? "" : "s"}
          </p>
        </div>
        <button ref={closeRef} type="button" className="agentry-web__button agentry-web__button--quiet" onClick={onClose}>
          Close details
        </button>
      </header>
      <div className="agentry-web__details-body">
        {group.getDescription() ? <p className="agentry-web__details-description">{group.getDescription()}</p> : null}
        <p className="agentry-web__sr-only" role="status">{status}</p>
        {error ? <p className="agentry-web__error" role="alert">{error}</p> : null}
        <h3 className="agentry-web__section-title">Members</h3>
        <ul className="agentry-web__members" aria-label="Members">
          {members.map((m) => <MemberRow key={m.getUid()} m={m} guid={guid} me={me.getUid()} mine={mine} owner={owner} act={act} />)}
        </ul>
        {rank[mine] >= rank.admin ? (
          <AddMember guid={guid} candidates={directory.filter((u) => !memberIds.has(u.getUid()) && u.getUid() !== me.getUid())} nameOf={nameOf} act={act} />
        ) : null}
        {banned.length && rank[mine] >= rank.moderator ? (
          <>
            <h3 className="agentry-web__section-title">Banned</h3>
            <ul className="agentry-web__members" aria-label="Banned">
              {banned.map((m) => (
                <li key={m.getUid()} className="agentry-web__member">
                  <span className="agentry-web__member-name">{m.getName() || m.getUid()}</span>
                  <button type="button" className="agentry-web__link-button" aria-label={`Unban ${m.getName() || m.getUid()}`}
                    onClick={() => void act(`${m.getName() || m.getUid()} was unbanned`, () => Chat.unbanGroupMember(guid, m.getUid()))}>Unban</button>
                </li>
              ))}
            </ul>
          </>
        ) : null}
        {me.getUid() !== owner ? (
          <button type="button" className="agentry-web__button agentry-web__button--secondary agentry-web__leave"
            onClick={() => void Chat.leaveGroup(guid).then(onLeft, (e: unknown) => setError(errorText(e)))}>
            Leave group
          </button>
        ) : null}
      </div>
    </aside>
  );
}

/** A member with their role, and the actions the signed-in user's role allows on them. */
function MemberRow({ m, guid, me, mine, owner, act }: { m: Chat.GroupMember; guid: string; me: string; mine: Scope; owner: string | undefined; act: Act }) {
  const uid = m.getUid();
  const name = m.getName() || uid;
  const canManage = uid !== me && uid !== owner && rank[mine] >= rank.moderator && rank[m.getScope()] < rank.admin && (mine === "admin" || rank[m.getScope()] <= rank.moderator);
  return (
    <li className="agentry-web__member">
      <span className="agentry-web__member-name">
        {name}
        {uid === me ? <span className="agentry-web__muted"> (you)</span> : null}
        {m.getKind() === "agent" ? <span className="agentry-web__muted"> · agent</span> : null}
      </span>
      {canManage ? (
        <span className="agentry-web__member-actions">
          <select aria-label={`Role of ${name}`} className="agentry-web__input agentry-web__input--small" value={m.getScope()}
            onChange={(e) => void act(`${name} is now ${scopeNames[e.target.value as Scope].toLowerCase()}`, () => Chat.updateGroupMemberScope(guid, uid, e.target.value as Scope))}>
            {(Object.keys(scopeNames) as Scope[]).filter((s) => mine === "admin" || rank[s] <= rank.moderator).map((s) => (
              <option key={s} value={s}>{scopeNames[s]}</option>
            ))}
          </select>
          <button type="button" className="agentry-web__link-button" aria-label={`Remove ${name}`}
            onClick={() => void act(`${name} was removed`, () => Chat.kickGroupMember(guid, uid))}>Remove</button>
          <button type="button" className="agentry-web__link-button" aria-label={`Ban ${name}`}
            onClick={() => void act(`${name} was banned`, () => Chat.banGroupMember(guid, uid))}>Ban</button>
        </span>
      ) : (
        <span className="agentry-web__member-role">{uid === owner ? "Owner" : scopeNames[m.getScope()]}</span>
      )}
    </li>
  );
}

/** Admins add a person or an agent of the directory. */
function AddMember({ guid, candidates, nameOf, act }: { guid: string; candidates: readonly Chat.User[]; nameOf(uid: string): string; act: Act }) {
  const [adding, setAdding] = useState("");
  const addId = useId();
  if (!candidates.length) return null;
  return (
    <form className="agentry-web__add-member" onSubmit={(e) => {
      e.preventDefault();
      if (adding) void act(`${nameOf(adding)} was added`, () => Chat.addMembersToGroup(guid, [new Chat.GroupMember(adding, "participant")]).then((r) => {
        if (r[adding] !== "success") throw new Error(`${nameOf(adding)} could not be added (${r[adding] ?? "unknown error"})`);
        setAdding("");
      }));
    }}>
      <label htmlFor={addId} className="agentry-web__label">Add a member or an agent</label>
      <div className="agentry-web__add-row">
        <select id={addId} className="agentry-web__input" value={adding} onChange={(e) => setAdding(e.target.value)}>
          <option value="">Choose…</option>
          {candidates.map((u) => (
            <option key={u.getUid()} value={u.getUid()}>{(u.getName() || u.getUid()) + (u.getKind() === "agent" ? " (agent)" : "")}</option>
          ))}
        </select>
        <button type="submit" className="agentry-web__button" disabled={!adding}>Add</button>
      </div>
    </form>
  );
}
