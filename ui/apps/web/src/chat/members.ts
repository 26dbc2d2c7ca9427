// One live member list per group, shared by whoever shows it (the conversation's mentions and
// the details panel): one fetch per membership change, not one per component.
import { Chat } from "@agentry/chat-sdk";
import { useCallback, useSyncExternalStore } from "react";

interface Entry {
  members: readonly Chat.GroupMember[] | undefined;
  listeners: Set<() => void>;
  /** The newest load: an older answer arriving late is dropped. */
  seq: number;
}

const entries = new Map<string, Entry>();

function load(guid: string, e: Entry): Promise<void> {
  const seq = ++e.seq;
  return new Chat.GroupMembersRequestBuilder(guid)
    .setLimit(100)
    .build()
    .fetchNext()
    .then(
      (m) => {
        if (seq !== e.seq || entries.get(guid) !== e) return;
        e.members = m;
        e.listeners.forEach((l) => l());
      },
      () => undefined,
    );
}

/** Follows the group's members: the first follower loads them and listens to its events, the last one stops. */
export function subscribeMembers(guid: string, onChange: () => void): () => void {
  let e = entries.get(guid);
  const id = `agentry-web-members-${guid}`;
  if (!e) {
    const entry: Entry = { members: undefined, listeners: new Set(), seq: 0 };
    entries.set(guid, entry);
    // Member events name their group last; reload for this group's only.
    const reload = (...args: unknown[]) => {
      const g = args.find((x): x is Chat.Group => x instanceof Chat.Group);
      if (!g || g.getGuid() === guid) void load(guid, entry);
    };
    Chat.addGroupListener(id, new Chat.GroupListener({
      onGroupMemberJoined: reload, onGroupMemberLeft: reload, onGroupMemberKicked: reload, onGroupMemberBanned: reload,
      onGroupMemberUnbanned: reload, onMemberAddedToGroup: reload, onGroupMemberScopeChanged: reload,
    }));
    void load(guid, entry);
    e = entry;
  }
  const entry = e;
  entry.listeners.add(onChange);
  return () => {
    entry.listeners.delete(onChange);
    if (entry.listeners.size === 0 && entries.get(guid) === entry) {
      Chat.removeGroupListener(id);
      entries.delete(guid);
    }
  };
}

/** The group's members as last loaded (undefined before the first answer or without followers). */
export function membersOf(guid: string): readonly Chat.GroupMember[] | undefined {
  return entries.get(guid)?.members;
}

const none = () => () => {};

/** The group's members (undefined until loaded), live; reload fetches them again now. */
export function useGroupMembers(guid: string | undefined): { members: readonly Chat.GroupMember[] | undefined; reload(): Promise<void> } {
  const sub = useCallback((onChange: () => void) => (guid ? subscribeMembers(guid, onChange) : () => {}), [guid]);
  const members = useSyncExternalStore(guid ? sub : none, () => (guid ? membersOf(guid) : undefined));
  const reload = useCallback(async () => {
    const e = guid ? entries.get(guid) : undefined;
    if (guid && e) await load(guid, e);
  }, [guid]);
  return { members, reload };
}
