/** The groups list's built-in views: header, loading shimmer, empty and error states. */

export function DefaultHeader({ titleId }: { titleId: string }) {
  return (
    <div className="chat-list__header">
      <h2 className="chat-list__header-title" id={titleId}>
        Groups
      </h2>
    </div>
  );
}

/** rows: how many placeholder rows. label: the status text for screen readers (none: hidden). */
export function Shimmer({ rows, label, className }: { rows: number; label?: string; className?: string }) {
  const cls = "chat-groups__shimmer" + (className ? " " + className : "");
  const items = Array.from({ length: rows }, (_, i) => (
    <div className="chat-groups__shimmer-item" key={i} aria-hidden="true">
      <div className="chat-groups__shimmer-item-avatar" />
      <div className="chat-groups__shimmer-item-body">
        <div className="chat-groups__shimmer-item-body-title" style={{ width: `${55 - ((i * 17) % 30)}%` }} />
        <div className="chat-groups__shimmer-item-body-subtitle" style={{ width: `${30 - ((i * 7) % 12)}%` }} />
      </div>
    </div>
  ));
  if (!label) {
    return (
      <div className={cls} aria-hidden="true">
        {items}
      </div>
    );
  }
  return (
    <div className={cls} role="status" aria-busy="true">
      <span className="chat-visually-hidden">{label}</span>
      {items}
    </div>
  );
}

export function DefaultEmpty({ keyword }: { keyword: string }) {
  return (
    <div className="chat-groups__empty-state-view" role="status">
      <div className="chat-groups__empty-state-view-body-title">{keyword ? "No groups found" : "No groups available"}</div>
      <div className="chat-groups__empty-state-view-body-description">
        {keyword ? `No group name contains “${keyword}”.` : "Groups you can join, and the ones you are in, appear here."}
      </div>
    </div>
  );
}

export function DefaultError({ onRetry, inline }: { onRetry: () => void; inline?: boolean }) {
  return (
    <div className={"chat-groups__error-state-view" + (inline ? " chat-groups__error-state-view--inline" : "")} role="alert">
      <div className="chat-groups__error-state-view-body-title">{inline ? "Couldn’t load more groups" : "Couldn’t load groups"}</div>
      {inline ? null : (
        <div className="chat-groups__error-state-view-body-description">Something went wrong while loading. Check the connection and try again.</div>
      )}
      <button type="button" className="chat-groups__error-state-view-retry" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}
