// The options' dialogs: confirm delete, message information (receipts), report (flag).
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useId, useState, type RefObject } from "react";
import { messageInfoDefaults, formatCalendar } from "../../dates";
import { ChatMessageEvents } from "../../events";
import type { CalendarObject } from "../../types";
import { Dialog } from "./Dialog";
import { messageText, traceIdOf } from "./optionList";

interface BaseDialogProps {
  message: Chat.BaseMessage;
  anchor: RefObject<HTMLElement | null>;
  onClose(): void;
  onError(error: unknown): void;
}

function errorText(e: unknown): string {
  const m = (e as { message?: unknown } | null)?.message;
  return typeof m === "string" && m ? m : "Something went wrong. Try again.";
}

/** A short quote of the message the dialog is about. */
function Quote({ message }: { message: Chat.BaseMessage }) {
  const text = messageText(message);
  if (!text) return null;
  return <blockquote className="chat-dialog__quote">{text.length > 160 ? text.slice(0, 157) + "…" : text}</blockquote>;
}

/** A dialog's one request: busy while it runs; done, it closes the dialog, else its error shows. */
function useDialogRequest(onClose: () => void, onError: (error: unknown) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const run = async (request: () => Promise<void>) => {
    setBusy(true);
    setError("");
    try {
      await request();
      onClose();
    } catch (e) {
      setBusy(false);
      setError(errorText(e));
      onError(e);
    }
  };
  return { busy, error, run };
}

export function DeleteDialog({ message, anchor, onClose, onError }: BaseDialogProps) {
  const { busy, error, run } = useDialogRequest(onClose, onError);
  const remove = () => run(async () => ChatMessageEvents.ccMessageDeleted.next(await Chat.deleteMessage(message.getId())));
  return (
    <Dialog
      title="Delete message"
      description="Delete this message for everyone? This cannot be undone."
      anchor={anchor}
      onClose={onClose}
      className="chat-delete-dialog"
      footer={
        <>
          <button type="button" className="chat-ui-button" data-autofocus onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="chat-ui-button chat-ui-button--danger" disabled={busy} onClick={() => void remove()}>
            Delete
          </button>
        </>
      }
    >
      <Quote message={message} />
      {error ? <p role="alert" className="chat-dialog__error">{error}</p> : null}
    </Dialog>
  );
}

export function InfoDialog({ message, anchor, onClose, onError, format, own = true, showTraceIds = false }: BaseDialogProps & {
  format: CalendarObject | undefined;
  /** The user's own message: its receipts are shown. */
  own?: boolean;
  /** The trace id of an agent's answer is shown (admins). */
  showTraceIds?: boolean;
}) {
  const [receipts, setReceipts] = useState<Chat.MessageReceipt[] | undefined>();
  const [error, setError] = useState("");
  const trace = showTraceIds ? traceIdOf(message) : "";
  useEffect(() => {
    if (!own) return;
    let live = true;
    Chat.getMessageReceipts(message.getId()).then(
      (r) => live && setReceipts(r),
      (e: unknown) => {
        if (!live) return;
        setError(errorText(e));
        onError(e);
      },
    );
    return () => {
      live = false;
    };
  }, [message, own]);
  const when = (sec: number | undefined) => (sec ? formatCalendar(new Date(sec * 1000), format, messageInfoDefaults) : "—");
  return (
    <Dialog title="Message info" anchor={anchor} onClose={onClose} className="chat-info-dialog">
      <Quote message={message} />
      <p className="chat-info-dialog__sent">Sent {when(message.getSentAt())}</p>
      {trace ? (
        <p className="chat-info-dialog__trace">
          Trace <code className="chat-info-dialog__trace-id">{trace}</code>
        </p>
      ) : null}
      {error ? <p role="alert" className="chat-dialog__error">{error}</p> : null}
      {own && !receipts && !error ? <p className="chat-dialog__loading" role="status">Loading receipts…</p> : null}
      {receipts && receipts.length === 0 ? <p className="chat-info-dialog__empty">Not delivered yet.</p> : null}
      {receipts && receipts.length > 0 ? (
        <ul className="chat-info-dialog__receipts" aria-label="Receipts">
          {receipts.map((r) => (
            <li key={r.getSender().getUid()} className="chat-info-dialog__receipt">
              <span className="chat-info-dialog__name">{r.getSender().getName()}</span>
              <span className="chat-info-dialog__times">
                <span className="chat-info-dialog__time" data-kind="delivered">Delivered {when(r.getDeliveredAt())}</span>
                <span className="chat-info-dialog__time" data-kind="read">Read {when(r.getReadAt())}</span>
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </Dialog>
  );
}

export const flagReasons: readonly (readonly [value: string, label: string])[] = [
  ["spam", "Spam"],
  ["harassment", "Harassment"],
  ["hate", "Hate speech"],
  ["inappropriate", "Inappropriate content"],
  ["other", "Something else"],
];

export function FlagDialog({ message, anchor, onClose, onError, hideRemark }: BaseDialogProps & { hideRemark: boolean }) {
  const [reason, setReason] = useState(flagReasons[0]![0]);
  const [remark, setRemark] = useState("");
  const { busy, error, run } = useDialogRequest(onClose, onError);
  const reasonId = useId();
  const remarkId = useId();
  const submit = () =>
    run(async () => {
      const flag: { reason: string; remark?: string } = { reason };
      if (!hideRemark && remark.trim()) flag.remark = remark.trim();
      await Chat.flagMessage(message.getId(), flag);
    });
  return (
    <Dialog
      title="Report message"
      anchor={anchor}
      onClose={onClose}
      className="chat-flag-dialog"
      footer={
        <>
          <button type="button" className="chat-ui-button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form={reasonId + "-form"} className="chat-ui-button chat-ui-button--primary" disabled={busy}>
            Report
          </button>
        </>
      }
    >
      <Quote message={message} />
      <form
        id={reasonId + "-form"}
        className="chat-flag-dialog__form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <label htmlFor={reasonId} className="chat-field__label">
          Reason
        </label>
        <select id={reasonId} className="chat-field__select" value={reason} onChange={(e) => setReason(e.target.value)}>
          {flagReasons.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        {hideRemark ? null : (
          <>
            <label htmlFor={remarkId} className="chat-field__label">
              Remark (optional)
            </label>
            <textarea id={remarkId} className="chat-field__textarea" rows={3} maxLength={1000} value={remark} onChange={(e) => setRemark(e.target.value)} />
          </>
        )}
      </form>
      {error ? <p role="alert" className="chat-dialog__error">{error}</p> : null}
    </Dialog>
  );
}
