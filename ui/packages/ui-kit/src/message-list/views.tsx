/** The list's built-in state views and small overlays. */
import type { Chat } from "@agentry/chat-sdk";

/** Default loadingView: bubble-shaped shimmer bars. */
export function LoadingView() {
  const rows = ["incoming", "incoming", "outgoing", "incoming", "outgoing", "outgoing"] as const;
  return (
    <div className="chat-message-list__shimmer" role="status" aria-label="Loading messages">
      {rows.map((side, i) => (
        <div key={i} className={`chat-message-list__shimmer-item chat-message-list__shimmer-item--${side}`} style={{ width: `${[52, 38, 46, 64, 30, 42][i]}%` }} />
      ))}
    </div>
  );
}

/** Default emptyView. */
export function EmptyView() {
  return (
    <div className="chat-message-list__empty-state-view">
      <p className="chat-message-list__empty-state-view-body-title">No messages yet</p>
      <p className="chat-message-list__empty-state-view-body-description">Messages you send and receive show up here.</p>
    </div>
  );
}

/** Default errorView, with a retry. */
export function ErrorView({ error, onRetry }: { error: Chat.ChatException | undefined; onRetry(): void }) {
  const offline = error?.code === "ERR_NETWORK";
  return (
    <div className="chat-message-list__error-state-view" role="alert">
      <p className="chat-message-list__error-state-view-body-title">Could not load messages</p>
      <p className="chat-message-list__error-state-view-body-description">
        {offline ? "The chat service cannot be reached. Check your connection and try again." : "Something went wrong. Try again in a moment."}
      </p>
      <button type="button" className="chat-message-list__retry" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}

/** "Alice is typing…", "Alice and Bob are typing…", "Alice, Bob and 2 others are typing…". */
export function typingText(users: readonly Chat.User[]): string {
  const names = users.map((u) => u.getName());
  if (names.length === 0) return "";
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length === 2) return `${names[0]} and ${names[1]} are typing…`;
  const others = names.length - 2;
  return `${names[0]}, ${names[1]} and ${others} ${others === 1 ? "other" : "others"} are typing…`;
}

/** The jump-down button shown when messages arrived while the reader was scrolled up. */
export function NewMessagesIndicator({ count, onClick }: { count: number; onClick(): void }) {
  return (
    <button type="button" className="chat-message-list__new-message-indicator" onClick={onClick}>
      <svg width="14" height="14" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
        <path d="M12 5v14M5 12l7 7 7-7" />
      </svg>
      {count === 1 ? "1 new message" : `${count} new messages`}
    </button>
  );
}

/** Over the top of the list while the first unread message is above the view. */
export function JumpToUnread({ onClick }: { onClick(): void }) {
  return (
    <button type="button" className="chat-message-list__jump-unread" onClick={onClick}>
      <svg width="14" height="14" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
        <path d="M12 19V5M5 12l7-7 7 7" />
      </svg>
      Jump to first unread
    </button>
  );
}
