import type { Chat } from "@agentry/chat-sdk";
import { formatCalendar, sentAtDefaults } from "../../dates";
import { CheckIcon, ClockIcon, DoubleCheckIcon } from "../../base/Icons";
import type { CalendarObject } from "../../types";

/** receiptOf names an outgoing message's state: sending (no id yet), sent, delivered, read. */
export function receiptOf(m: Chat.BaseMessage): "sending" | "sent" | "delivered" | "read" {
  if (!m.getId()) return "sending";
  if (m.getReadAt() !== undefined) return "read";
  if (m.getDeliveredAt() !== undefined) return "delivered";
  return "sent";
}

/** The receipt icon of an outgoing message; its title is its accessible name. */
export function Receipt({ message }: { message: Chat.BaseMessage }) {
  const state = receiptOf(message);
  const cls = `chat-receipt chat-receipt--${state}`;
  if (state === "sending") return <ClockIcon className={cls} title="Sending" />;
  if (state === "sent") return <CheckIcon className={cls} title="Sent" />;
  return <DoubleCheckIcon className={cls} title={state === "read" ? "Read" : "Delivered"} />;
}

export interface StatusInfoProps {
  message: Chat.BaseMessage;
  showReceipt: boolean;
  format?: CalendarObject | undefined;
}

/** .chat-message-bubble__status-info-view: "edited", the sent-at time (.chat-date), the receipt. */
export function StatusInfo({ message, showReceipt, format }: StatusInfoProps) {
  const sent = new Date(message.getSentAt() * 1000);
  return (
    <div className="chat-message-bubble__status-info-view">
      {message.getEditedAt() && !message.getDeletedAt() ? <span className="chat-message-bubble__edited">edited</span> : null}
      <time className="chat-date" dateTime={sent.toISOString()}>
        {formatCalendar(sent, format, sentAtDefaults)}
      </time>
      {showReceipt ? <Receipt message={message} /> : null}
    </div>
  );
}
