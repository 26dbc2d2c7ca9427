/**
 * Live updates of the groups list: the SDK's group listener (membership, per the
 * specification's state table; created, updated, deleted), its connection listener (reset →
 * reload; back after a failure → retry) and the UI events ccGroupCreated / ccGroupDeleted.
 * One listener id per list instance (useId), so React strict mode's second effect replaces the
 * first listener instead of adding one; everything is removed on unmount.
 */
import { useEffect, useId, useRef } from "react";
import { Chat } from "@agentry/chat-sdk";
import { ChatGroupEvents } from "../events";
import type { GroupFilter, GroupsAction, MemberChange } from "./state";

export interface LiveHandlers {
  /** The service could not replay what was missed. */
  onReset(): void;
  /** The socket is (again) ready. */
  onConnected(): void;
}

export function useGroupsLive(dispatch: (a: GroupsAction) => void, filter: { readonly current: GroupFilter }, handlers: LiveHandlers): string {
  const id = `chat-groups-${useId()}`;
  const h = useRef(handlers);
  h.current = handlers;

  useEffect(() => {
    let alive = true;
    // Who "the current user" is (asked again while unknown: the list may mount before login).
    // Every event waits on the same chain, so events keep their order.
    const whoAmI = (): Promise<string | undefined> =>
      Chat.getLoggedinUser().then(
        (u) => u?.getUid(),
        () => undefined,
      );
    let me = whoAmI();
    const later = (fn: (uid: string | undefined) => void) => {
      me = me.then((uid) => uid ?? whoAmI());
      void me.then((uid) => {
        if (alive) fn(uid);
      });
    };
    const member = (change: MemberChange, user: Chat.User, group: Chat.Group, scope?: string) =>
      later((uid) => {
        const a: GroupsAction = { type: "member", change, uid: user.getUid(), me: uid, group, filter: filter.current };
        if (scope !== undefined) a.scope = scope;
        dispatch(a);
      });
    const created = (group: Chat.Group) => later(() => dispatch({ type: "created", group, filter: filter.current }));
    const removed = (group: Chat.Group) => later(() => dispatch({ type: "removed", guid: group.getGuid() }));

    try {
      Chat.addGroupListener(
        id,
        new Chat.GroupListener({
          onGroupMemberJoined: (_a, user, group) => member("joined", user, group),
          onGroupMemberLeft: (_a, user, group) => member("left", user, group),
          onGroupMemberKicked: (_a, user, _by, group) => member("kicked", user, group),
          onGroupMemberBanned: (_a, user, _by, group) => member("banned", user, group),
          onMemberAddedToGroup: (_a, user, _by, group) => member("added", user, group),
          onGroupMemberScopeChanged: (_a, user, scope, _old, group) => member("scopeChanged", user, group, scope),
          onGroupCreated: created,
          onGroupUpdated: (group) => later(() => dispatch({ type: "updated", group })),
          onGroupDeleted: removed,
        }),
      );
      Chat.addConnectionListener(
        id,
        new Chat.ConnectionListener({
          onReset: () => h.current.onReset(),
          onConnected: () => h.current.onConnected(),
        }),
      );
    } catch (err) {
      // The SDK is not set up: the first load reports it through onError and the error view.
      void err;
    }
    const subscriptions = [ChatGroupEvents.ccGroupCreated.subscribe(created), ChatGroupEvents.ccGroupDeleted.subscribe(removed)];

    return () => {
      alive = false;
      try {
        Chat.removeGroupListener(id);
        Chat.removeConnectionListener(id);
      } catch {
        // nothing was added
      }
      for (const s of subscriptions) s.unsubscribe();
    };
  }, [id, dispatch, filter]);

  return id;
}
