/** The loaded list: the pinned date or unread jump over it, the log with its windowed items, the agent's live answer and the jump-down button. */
import type { Chat } from "@agentry/chat-sdk";
import { AgentView } from "./agent/AgentView";
import { StepsBlock } from "./agent/StepsBlock";
import { MessageBubble } from "./bubble/MessageBubble";
import type { MessageListView } from "./ChatMessageList";
import { MessageListProvider } from "./context";
import { DateSeparator, StickyDate, UnreadDivider } from "./DateSeparator";
import type { ListItem } from "./items";
import type { ChatMessageListProps } from "./props";
import { JumpToUnread, NewMessagesIndicator } from "./views";

export function MessageLog({ view: v, props }: { view: MessageListView; props: ChatMessageListProps }) {
  const { model, scroll, conv, win } = v;
  const sticky = scroll.sticky.stickyId !== undefined ? model.state.byId.get(scroll.sticky.stickyId) : undefined;
  const label = !conv ? "Messages" : conv.parentId ? `Replies in the thread` : conv.type === "user" ? `Messages with ${conv.name}` : `Messages in ${conv.name}`;
  const unreadAbove = model.unreadBefore || (model.firstUnreadId !== undefined && scroll.topId !== undefined && scroll.topId > model.firstUnreadId);
  const jumpDown = () => {
    v.arrivals.clearNew();
    if (model.state.hasNewer) model.reload("latest");
    else scroll.keeper.toBottom();
  };
  return (
    <>
      {!scroll.unreadSeen && unreadAbove ? (
        <JumpToUnread onClick={model.jumpToUnread} />
      ) : !props.hideStickyDate && sticky ? <StickyDate date={new Date(sticky.getSentAt() * 1000)} format={props.stickyDateTimeFormat} idle={scroll.sticky.idle} /> : null}
      <div
        ref={scroll.scroller}
        className="chat-message-list__list"
        role="log"
        aria-live="polite"
        aria-label={label}
        aria-busy={model.loadingOlder || model.loadingNewer || undefined}
        onScroll={scroll.keeper.onScroll}
      >
        <div ref={scroll.content} className="chat-message-list__content" onKeyDown={v.focus.onKeyDown}>
          {model.loadingOlder ? <div className="chat-message-list__loading-more" role="status" aria-label="Loading older messages" /> : null}
          {model.pagingError ? (
            <button type="button" className="chat-message-list__paging-retry" onClick={model.retryPaging}>
              Could not load more messages. Try again
            </button>
          ) : null}
          <div className="chat-message-list__spacer chat-message-list__spacer--top" style={{ height: win.range.top }} aria-hidden="true" />
          <MessageListProvider value={v.context}>{v.items.slice(win.range.start, win.range.end).map((it) => <Item key={it.key} it={it} v={v} />)}</MessageListProvider>
          <div className="chat-message-list__spacer chat-message-list__spacer--bottom" style={{ height: win.range.bottom }} aria-hidden="true" />
          {model.loadingNewer ? <div className="chat-message-list__loading-more" role="status" aria-label="Loading newer messages" /> : null}
          <AgentView props={props} user={props.user} group={props.group} loggedInUser={v.me!} isEmpty={v.isEmpty} onGrow={scroll.keeper.keep} onError={v.onFeatureError}
            onRunning={v.setAgentRunning} />
        </div>
      </div>
      {v.arrivals.newCount > 0 && (!scroll.atBottom || model.state.hasNewer) ? <NewMessagesIndicator count={v.arrivals.newCount} onClick={jumpDown} /> : null}
    </>
  );
}

function Item({ it, v }: { it: ListItem; v: MessageListView }) {
  const p = v.props;
  if (it.kind === "date") return <DateSeparator itemKey={it.key} date={it.date} format={p.separatorDateTimeFormat} />;
  if (it.kind === "unread") return <UnreadDivider itemKey={it.key} />;
  if (it.kind === "steps") {
    const footer = it.answer ? v.context?.templateOf(it.answer)?.footerView?.(it.answer) : undefined;
    return <StepsBlock itemKey={it.key} steps={it.steps} lastId={it.messages[it.messages.length - 1]!.getId()} noReply={it.noReply} agentName={agentNameOf(it.messages, it.agentId, p.user)}
      footer={footer ?? undefined} />;
  }
  const id = it.message.getId();
  const b = v.bubbles;
  return (
    <MessageBubble message={it.message} firstOfRun={it.firstOfRun} toolCallsInSteps={!!it.toolCallsInSteps} highlighted={v.highlightId === id}
      tabbable={v.focus.tabStop === id} translation={b.translations.get(id)} editing={b.editingId === id} />
  );
}

/** Who ran the steps: the agent's name from its own messages, else the chat's agent, else its id. */
function agentNameOf(messages: readonly Chat.AgenticMessage[], agentId: string | undefined, user: Chat.User | undefined): string {
  const own = messages.find((m) => m.getSender()?.getUid() === agentId)?.getSender()?.getName();
  return own || (user && user.getUid() === agentId ? user.getName() : "") || agentId || "The agent";
}
