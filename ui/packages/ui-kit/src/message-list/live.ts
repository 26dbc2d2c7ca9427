/**
 * The list's live inputs: the SDK's message, group and connection listeners and the
 * composer's ChatMessageEvents, all forwarded to one sink. Listeners are registered under the
 * instance's own id (two lists never replace each other's) and removed on cleanup; the SDK
 * replaces a listener added again under the same id, so React strict mode's second effect run
 * leaves exactly one.
 */
import { useEffect, type RefObject } from "react";
import { Chat } from "@agentry/chat-sdk";
import { ChatMessageEvents, MessageStatus } from "../events";

export interface LiveSink {
  /** A new message (listener or composer). */
  message(m: Chat.BaseMessage): void;
  changed(m: Chat.BaseMessage, kind: "edited" | "deleted" | "moderated"): void;
  receipt(r: Chat.MessageReceipt): void;
  markedUnread(r: Chat.MessageReceipt): void;
  reaction(e: Chat.ReactionEvent, change: "added" | "removed"): void;
  typing(t: Chat.TypingIndicator, started: boolean): void;
  /** A group action message (membership change) with its id. */
  action(a: Chat.Action): void;
  connected(): void;
  reset(): void;
}

export function useLiveEvents(listenerId: string, sink: RefObject<LiveSink>, enabled: boolean): void {
  useEffect(() => {
    if (!enabled) return;
    // Always call the latest sink: the listeners stay registered across renders.
    const s = () => sink.current;
    const msg = (m: Chat.BaseMessage) => s()?.message(m);
    Chat.addMessageListener(
      listenerId,
      new Chat.MessageListener({
        onTextMessageReceived: msg,
        onMediaMessageReceived: msg,
        onCustomMessageReceived: msg,
        onAgenticMessageReceived: msg,
        onMessageEdited: (m) => s()?.changed(m, "edited"),
        onMessageDeleted: (m) => s()?.changed(m, "deleted"),
        onMessageModerated: (m) => s()?.changed(m, "moderated"),
        onMessagesDelivered: (r) => s()?.receipt(r),
        onMessagesRead: (r) => s()?.receipt(r),
        onMessagesDeliveredToAll: (r) => s()?.receipt(r),
        onMessagesReadByAll: (r) => s()?.receipt(r),
        onMessageMarkedUnread: (r) => s()?.markedUnread(r),
        onMessageReactionAdded: (e) => s()?.reaction(e, "added"),
        onMessageReactionRemoved: (e) => s()?.reaction(e, "removed"),
        onTypingStarted: (t) => s()?.typing(t, true),
        onTypingEnded: (t) => s()?.typing(t, false),
      }),
    );
    const act = (a: Chat.Action) => s()?.action(a);
    Chat.addGroupListener(
      listenerId,
      new Chat.GroupListener({
        onGroupMemberJoined: act,
        onGroupMemberLeft: act,
        onGroupMemberKicked: act,
        onGroupMemberBanned: act,
        onGroupMemberUnbanned: act,
        onGroupMemberScopeChanged: act,
        onMemberAddedToGroup: act,
        onOwnershipChanged: act,
      }),
    );
    Chat.addConnectionListener(
      listenerId,
      new Chat.ConnectionListener({ onConnected: () => s()?.connected(), onReset: () => s()?.reset() }),
    );
    const subs = [
      ChatMessageEvents.ccMessageSent.subscribe((e) => {
        if (e.status === MessageStatus.success) s()?.message(e.message);
      }),
      ChatMessageEvents.ccMessageEdited.subscribe((e) => {
        if (e.status === MessageStatus.success) s()?.changed(e.message, "edited");
      }),
      ChatMessageEvents.ccMessageDeleted.subscribe((m) => s()?.changed(m, "deleted")),
    ];
    return () => {
      Chat.removeMessageListener(listenerId);
      Chat.removeGroupListener(listenerId);
      Chat.removeConnectionListener(listenerId);
      for (const sub of subs) sub.unsubscribe();
    };
  }, [listenerId, sink, enabled]);
}
