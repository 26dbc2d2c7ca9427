import { formatCalendar, separatorDefaults } from "../dates";
import type { CalendarObject } from "../types";

/** A day's heading between messages (separatorDateTimeFormat). Its text is its name. */
export function DateSeparator({ date, format, itemKey }: { date: Date; format: CalendarObject | undefined; itemKey?: string }) {
  const text = formatCalendar(date, format, separatorDefaults);
  return (
    <div className="chat-message-list__date-separator" role="separator" aria-label={text} data-item-key={itemKey}>
      <span className="chat-message-list__date-separator-text" aria-hidden="true">
        {text}
      </span>
    </div>
  );
}

/**
 * The date of the topmost visible message, pinned over the list while it is scrolled
 * (stickyDateTimeFormat). It repeats what the separators say, so it is hidden from assistive
 * technology.
 */
export function StickyDate({ date, format, idle = false }: { date: Date; format: CalendarObject | undefined; idle?: boolean }) {
  return (
    <div className={`chat-message-list__sticky-date${idle ? " chat-message-list__sticky-date--idle" : ""}`} aria-hidden="true">
      <span className="chat-message-list__sticky-date-text">{formatCalendar(date, format, separatorDefaults)}</span>
    </div>
  );
}

/** Where the unread messages start (startFromUnreadMessages). */
export function UnreadDivider({ itemKey }: { itemKey?: string } = {}) {
  return (
    <div className="chat-message-list__new-messages-divider" role="separator" aria-label="New messages" data-unread-divider="" data-item-key={itemKey}>
      <span className="chat-message-list__new-messages-divider-text" aria-hidden="true">
        New messages
      </span>
    </div>
  );
}
