// The message list's features (options, reactions and their detail view, inline editing,
// translation, smart replies, conversation starters) on the real ChatMessageList. Params: user
// or group (uid / guid), any boolean or number prop of the list by name, reactionClick and
// reactionListItemClick (record those callbacks), reactionsLimit (a ReactionsRequestBuilder
// with that page size). The subjects the features raise are recorded too.
import { Chat } from "@agentry/chat-sdk";
import { ChatMessageEvents, ChatMessageList, ChatUIEvents, type ChatMessageListProps } from "@agentry/ui-kit";
import { defineCase, record } from "../case";

let subscribed = false;
function recordSubjects() {
  if (subscribed) return;
  subscribed = true;
  ChatMessageEvents.ccReplyToMessage.subscribe(record("ccReplyToMessage", (e) => [e.message.getId()]));
  ChatMessageEvents.ccMessageDeleted.subscribe(record("ccMessageDeleted", (m) => [m.getId(), !!m.getDeletedAt()]));
  ChatMessageEvents.ccMessageEdited.subscribe(record("ccMessageEdited", (e) => [e.message.getId(), (e.message as Chat.TextMessage).getText()]));
  ChatMessageEvents.ccMessageSent.subscribe(record("ccMessageSent", (e) => [(e.message as Chat.TextMessage).getText()]));
  ChatUIEvents.ccOpenChat.subscribe(record("ccOpenChat", (e) => [e.user?.getUid() ?? null, e.group?.getGuid() ?? null]));
}

export default defineCase(async ({ host, token, params }) => {
  await Chat.init(typeof params.appId === "string" ? params.appId : "test", { host });
  await Chat.login(token!);
  recordSubjects();
  const { user, group, reactionClick, reactionListItemClick, reactionsLimit, appId: _appId, ...rest } = params;
  const props: ChatMessageListProps = { ...(rest as Partial<ChatMessageListProps>) };
  if (typeof user === "string") props.user = await Chat.getUser(user);
  if (typeof group === "string") props.group = await Chat.getGroup(group);
  props.onThreadRepliesClick = record("onThreadRepliesClick", (m: Chat.BaseMessage) => [m.getId()]);
  props.onError = record("onError", (e: Chat.ChatException) => [e.code, e.message]);
  if (reactionClick) props.onReactionClick = record("onReactionClick", (r: Chat.ReactionCount, m: Chat.BaseMessage) => [r.getReaction(), r.getCount(), m.getId()]);
  if (reactionListItemClick) {
    props.onReactionListItemClick = record("onReactionListItemClick", (r: Chat.Reaction, m: Chat.BaseMessage) => [r.getReaction(), r.getUid(), m.getId()]);
  }
  if (typeof reactionsLimit === "number") props.reactionsRequestBuilder = new Chat.ReactionsRequestBuilder().setLimit(reactionsLimit);
  return (
    <div style={{ height: "calc(100vh - 16px)", display: "flex", flexDirection: "column" }}>
      <h1 style={{ fontSize: 16, margin: "0 0 8px" }}>Message list features</h1>
      <div style={{ flex: 1, minHeight: 0, border: "1px solid #ddd" }}>
        <ChatMessageList {...props} />
      </div>
    </div>
  );
});
