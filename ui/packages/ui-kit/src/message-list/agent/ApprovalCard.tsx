// An approval request (approval_request message): the tool an agent run stopped for, its
// arguments and who asked; an approver approves, or declines with a reason. The first decision
// wins on the server; the card then shows who decided, live (the request is updated in place).
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useId, useRef, useState } from "react";
import type { ChatMessageListProps } from "../props";
import { humanize } from "./conversation";

export interface ApprovalCardProps {
  message: Chat.AgenticMessage;
  props: ChatMessageListProps;
  /** The signed-in user's uid: only approvers get the buttons. */
  me: string;
  /** Now, in seconds (tests); default the clock. */
  now?: number;
}

/** The arguments as readable JSON (any text that is not JSON, as it is). */
export function prettyArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

/** When a pending request expires, as people read it: a time today, else a date and time. */
export function expiryText(expiresAt: number, nowSeconds: number): string {
  const at = new Date(expiresAt * 1000);
  const now = new Date(nowSeconds * 1000);
  const time = at.toLocaleTimeString([], { hour: "numeric", minute: "2-digit" });
  return at.toDateString() === now.toDateString() ? time : `${at.toLocaleDateString([], { day: "numeric", month: "short" })}, ${time}`;
}

/** What the card says of a request's state. */
export function outcomeText(a: Chat.Approval, nowSeconds: number): string {
  switch (a.status) {
    case "approved":
      return `Approved by ${a.decidedBy ?? "an approver"}`;
    case "declined":
      return `Declined by ${a.decidedBy ?? "an approver"}${a.reason ? `: ${a.reason}` : ""}`;
    case "expired":
      return "Expired: nobody approved it in time";
  }
  if (a.expiresAt > 0 && a.expiresAt <= nowSeconds) return "Expired: nobody approved it in time";
  const who = a.approvers.length ? a.approvers.join(", ") : "an approver";
  return `Waiting for ${who}`;
}

const errorText = (e: unknown): string => {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === "ERR_APPROVAL_DECIDED") return "Someone decided this already.";
  if (code === "ERR_PERMISSION_DENIED") return "Only the agent's approvers can decide this.";
  const m = (e as { message?: unknown } | null)?.message;
  return typeof m === "string" && m ? m : "The decision could not be sent.";
};

/** The seconds now, again when a pending request expires, so the buttons go without waiting for the server. */
function useExpiryClock(stored: Chat.Approval | undefined, now: number | undefined): number {
  const [clock, setClock] = useState(() => Date.now() / 1000);
  useEffect(() => {
    if (now !== undefined || !stored || stored.status !== "pending" || stored.expiresAt <= 0) return;
    const ms = Math.max(0, stored.expiresAt * 1000 - Date.now()) + 50;
    if (ms > 2 ** 31 - 1) return;
    const t = setTimeout(() => setClock(Date.now() / 1000), ms);
    return () => clearTimeout(t);
  }, [now, stored?.status, stored?.expiresAt]);
  return now ?? clock;
}

export function ApprovalCard({ message, props, me, now }: ApprovalCardProps) {
  const stored = message.getApproval();
  // The server's answer to this card's own decision, until the updated request arrives live.
  const [answered, setAnswered] = useState<Chat.Approval | undefined>();
  const [busy, setBusy] = useState(false);
  const [declining, setDeclining] = useState(false);
  const [error, setError] = useState("");
  const titleId = useId();
  const nowSeconds = useExpiryClock(stored, now);
  if (!stored) return null;
  const a = stored.status === "pending" && answered ? answered : stored;
  const expired = a.status === "expired" || (a.status === "pending" && a.expiresAt > 0 && a.expiresAt <= nowSeconds);
  const open = a.status === "pending" && !expired;
  const decide = async (approved: boolean, reason = "") => {
    setBusy(true);
    setError("");
    try {
      const r = reason.trim();
      setAnswered(await Chat.decideApproval(a.id, r && !approved ? { approved, reason: r } : { approved }));
      setDeclining(false);
    } catch (e) {
      setError(errorText(e));
      props.onError?.(e as Chat.ChatException);
    } finally {
      setBusy(false);
    }
  };
  const state = expired ? "expired" : a.status;
  return (
    <section className="chat-approval" role="group" aria-labelledby={titleId} data-state={state} data-approval={a.id}>
      <header className="chat-approval__header">
        <span className="chat-approval__icon" aria-hidden="true">
          {state === "approved" ? "✓" : state === "pending" ? "?" : "✗"}
        </span>
        {/* Not a heading: a card in a message list has no place in the page's outline. */}
        <p className="chat-approval__title" id={titleId}>
          {open ? "Approval needed" : "Approval request"}: {humanize(a.toolName)}
        </p>
      </header>
      <dl className="chat-approval__facts">
        <dt>Asked by</dt>
        <dd>{a.requestedBy}</dd>
        <dt>Tool</dt>
        <dd>
          <code>{a.toolName}</code>
        </dd>
        {open && a.expiresAt > 0 ? (
          <>
            <dt>Expires</dt>
            <dd>
              <time dateTime={new Date(a.expiresAt * 1000).toISOString()}>{expiryText(a.expiresAt, nowSeconds)}</time>
            </dd>
          </>
        ) : null}
      </dl>
      <pre className="chat-approval__args" aria-label="Arguments" tabIndex={0}>
        {prettyArguments(a.arguments)}
      </pre>
      <p className="chat-approval__outcome" role="status">
        {outcomeText(a, nowSeconds)}
      </p>
      {a.approvers.includes(me) ? <Decision open={open} busy={busy} declining={declining} setDeclining={setDeclining} decide={decide} /> : null}
      {error ? (
        <p className="chat-approval__error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}

/** An approver's buttons, and the decline form with its reason. */
function Decision({ open, busy, declining, setDeclining, decide }: {
  open: boolean;
  busy: boolean;
  declining: boolean;
  setDeclining(on: boolean): void;
  decide(approved: boolean, reason?: string): Promise<void>;
}) {
  const [reason, setReason] = useState("");
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (declining) reasonRef.current?.focus();
  }, [declining]);
  if (!declining || !open) {
    return (
      <div className="chat-approval__buttons">
        <button type="button" className="chat-approval__button chat-approval__button--approve" disabled={!open || busy} aria-busy={busy} onClick={() => void decide(true)}>
          Approve
        </button>
        <button type="button" className="chat-approval__button chat-approval__button--decline" disabled={!open || busy} onClick={() => setDeclining(true)}>
          Decline…
        </button>
      </div>
    );
  }
  return (
    <form
      className="chat-approval__decline"
      onSubmit={(e) => {
        e.preventDefault();
        void decide(false, reason);
      }}
    >
      <label className="chat-approval__label">
        Reason (told to the agent)
        <textarea ref={reasonRef} className="chat-approval__reason" value={reason} maxLength={500} rows={2} onChange={(e) => setReason(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") setDeclining(false);
          }} />
      </label>
      <div className="chat-approval__buttons">
        <button type="submit" className="chat-approval__button chat-approval__button--decline" disabled={busy}>
          Decline
        </button>
        <button type="button" className="chat-approval__button" disabled={busy} onClick={() => setDeclining(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
