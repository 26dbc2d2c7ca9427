// ChatMessageList for the browser tests. Params:
//   user | group        the conversation (uid / guid; looked up before mounting)
//   parentMessageId     a thread
//   limit               page size of the messagesRequestBuilder
//   height              the list's height in px (default: the page's)
//   mountOnClick        render a "Show messages" button first (so a test can take the service
//                       down after the case logged in, then mount)
//   noOnError           onError={null}
//   props               any other ChatMessageList props as JSON (booleans, formats, goToMessageId…)
//   errorView, emptyView, loadingView  text of custom views
// Records onError (code), onThreadRepliesClick (id) and ccMessageRead (id).
import { useEffect, useState } from "react";
import { Chat } from "@agentry/chat-sdk";
import { ChatMessageEvents, ChatMessageList, type ChatMessageListProps } from "@agentry/ui-kit";
import { defineCase, record } from "../case";

const onError = record("onError", (e: Chat.ChatException) => [e.code]);
const onThreadRepliesClick = record("onThreadRepliesClick", (m: Chat.BaseMessage) => [m.getId()]);
const onRead = record("ccMessageRead", (m: Chat.BaseMessage) => [m.getId()]);

function Host({ listProps, mountOnClick, height }: { listProps: ChatMessageListProps; mountOnClick: boolean; height: number | undefined }) {
  const [shown, setShown] = useState(!mountOnClick);
  useEffect(() => {
    const sub = ChatMessageEvents.ccMessageRead.subscribe(onRead);
    return () => sub.unsubscribe();
  }, []);
  return (
    <div className="case-message-list" style={{ height: height ?? "100%", display: "flex", flexDirection: "column" }}>
      {shown ? (
        <ChatMessageList {...listProps} />
      ) : (
        <button type="button" onClick={() => setShown(true)}>
          Show messages
        </button>
      )}
    </div>
  );
}

export default defineCase(async ({ host, token, params }) => {
  await Chat.init("test", { host });
  await Chat.login(token!);
  const p = params as {
    user?: string; group?: string; parentMessageId?: number; limit?: number; height?: number; mountOnClick?: boolean;
    props?: Partial<ChatMessageListProps>; errorView?: string; emptyView?: string; loadingView?: string; noOnError?: boolean;
  };
  const listProps: ChatMessageListProps = { ...p.props, onThreadRepliesClick, onError: p.noOnError ? null : onError };
  if (p.user) listProps.user = await Chat.getUser(p.user);
  if (p.group) listProps.group = await Chat.getGroup(p.group);
  if (p.parentMessageId) listProps.parentMessageId = p.parentMessageId;
  if (p.limit) listProps.messagesRequestBuilder = new Chat.MessagesRequestBuilder().setLimit(p.limit);
  if (p.errorView) listProps.errorView = <p className="case-error-view">{p.errorView}</p>;
  if (p.loadingView) listProps.loadingView = <p className="case-loading-view">{p.loadingView}</p>;
  if (p.emptyView) listProps.emptyView = <p className="case-empty-view">{p.emptyView}</p>;
  return <Host listProps={listProps} mountOnClick={!!p.mountOnClick} height={p.height} />;
});
