import { Chat } from "@agentry/chat-sdk";
import { useId, useRef, useState, type FormEvent, type KeyboardEvent, type RefObject } from "react";
import { useConnection } from "../connection";
import { useDraft } from "../drafts";
import { errorText, isNetworkError } from "../session";
import { Attachments, useAttachments, type AttachmentsModel } from "./Attachments";
import { deliver, useMentions, useOutbox, useQuoting, useTypingIndicator, type Waiting } from "./composerHooks";
import { absentAgents, type Mentionable } from "./mentions";

export type { Mentionable } from "./mentions";

export interface ComposerProps {
  receiverId: string;
  receiverType: Chat.ReceiverType;
  /** Replies in this message's thread. */
  parentMessageId?: number;
  /** The field's accessible name, e.g. "Message General". */
  label: string;
  placeholder?: string;
  /** Who @ suggests (people and agents). */
  mentionables?: readonly Mentionable[];
}

function quoteLine(m: Chat.BaseMessage): string {
  if (m instanceof Chat.TextMessage || m instanceof Chat.AgenticMessage) return m.getText();
  if (m instanceof Chat.MediaMessage) return m.getCaption() || m.getAttachment()?.getName() || "an attachment";
  return "a message";
}

/** A failed message's text comes back to the field, before what was typed meanwhile. */
const before = (typed: string) => (cur: string) => (cur.trim() === "" ? typed : `${typed}\n${cur}`);

/** The composer: Enter sends, Shift+Enter starts a new line; a quote reply shows what it
 * answers; files are picked, pasted or dropped; a send without a connection waits for it. */
export function Composer({ receiverId, receiverType, parentMessageId, label, placeholder, mentionables = [] }: ComposerProps) {
  const [text, setText] = useDraft(`${receiverType}:${receiverId}:${parentMessageId ?? ""}`);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState("");
  const connection = useConnection();
  const files = useAttachments({ receiverId, receiverType, parentMessageId, onError: setError });
  const field = useRef<HTMLTextAreaElement>(null);
  const typing = useTypingIndicator(receiverId, receiverType, parentMessageId);
  const [quoting, setQuoting] = useQuoting(receiverId, receiverType, parentMessageId, field);
  const outbox = useOutbox(connection, (t) => setText(before(t)), setError);
  const mentions = useMentions(mentionables, text, setText, field);
  const ids = { input: useId(), error: useId(), list: useId(), absent: useId() };
  const absent = absentAgents(text, mentionables);

  const send = () => sendTyped({ text, setText, sending, setSending, setError, files, quoting, setQuoting, outbox, field, clear: () => (typing.stop(), mentions.close()),
    to: { receiverId, receiverType, parentMessageId } });
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (mentions.onKeyDown(e)) return;
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    } else if (e.key === "Escape" && quoting) {
      e.preventDefault();
      setQuoting(undefined);
    }
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void send();
  };

  return (
    <form className={`agentry-web__composer${files.dragging ? " agentry-web__composer--drop" : ""}`} onSubmit={onSubmit} {...files.dropHandlers}>
      <Outbox waiting={outbox.waiting} online={connection === "online"} onDiscard={outbox.drop} />
      {quoting ? <QuoteBar quoting={quoting} onCancel={() => { setQuoting(undefined); field.current?.focus(); }} /> : null}
      <Attachments files={files} />
      {mentions.suggesting ? <MentionList id={ids.list} mentions={mentions} /> : null}
      {absent.length ? <AbsentNote id={ids.absent} absent={absent} /> : null}
      <div className="agentry-web__composer-row">
        <files.PickButton />
        <label htmlFor={ids.input} className="agentry-web__sr-only">
          {label}
        </label>
        <textarea id={ids.input} ref={field} className="agentry-web__composer-input" rows={1} value={text} placeholder={placeholder ?? label}
          onChange={(e) => {
            setText(e.target.value);
            typing.typed(e.target.value);
            mentions.update(e.target);
          }}
          onSelect={(e) => mentions.update(e.currentTarget)}
          onPaste={files.onPaste}
          onBlur={() => {
            typing.stop();
            mentions.close();
          }}
          onKeyDown={onKeyDown}
          aria-autocomplete={mentionables.length ? "list" : undefined}
          aria-controls={mentions.suggesting ? ids.list : undefined}
          aria-activedescendant={mentions.suggesting ? `${ids.list}-${mentions.active}` : undefined}
          aria-describedby={[error ? ids.error : "", absent.length ? ids.absent : ""].filter(Boolean).join(" ") || undefined} />
        <button type="submit" className="agentry-web__button" disabled={sending || (!text.trim() && !files.items.length)}>
          Send
        </button>
      </div>
      {error ? (
        <p id={ids.error} className="agentry-web__error agentry-web__composer-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}

/** Sends what was typed (or the files, with it as the caption). The field clears at once, so the
 * next message can be typed while this one is sent; a failed one comes back (before what was
 * typed meanwhile), and one that finds no connection waits in the outbox. */
async function sendTyped(c: {
  text: string;
  setText(update: string | ((cur: string) => string)): void;
  sending: boolean;
  setSending(on: boolean): void;
  setError(e: string): void;
  files: AttachmentsModel;
  quoting: Chat.BaseMessage | undefined;
  setQuoting(m: Chat.BaseMessage | undefined): void;
  outbox: { add(m: Chat.TextMessage): void };
  field: RefObject<HTMLTextAreaElement | null>;
  clear(): void;
  to: { receiverId: string; receiverType: Chat.ReceiverType; parentMessageId: number | undefined };
}): Promise<void> {
  const typed = c.text;
  const t = typed.trim();
  if ((!t && !c.files.items.length) || c.sending) return;
  c.setSending(true);
  c.setError("");
  const quote = c.quoting;
  c.clear();
  c.setText("");
  c.setQuoting(undefined);
  try {
    if (c.files.items.length) await c.files.sendAll(t);
    else {
      const m = new Chat.TextMessage(c.to.receiverId, t, c.to.receiverType);
      if (c.to.parentMessageId) m.setParentMessageId(c.to.parentMessageId);
      if (quote) m.setQuotedMessageId(quote.getId());
      await deliver(m).catch((e: unknown) => {
        if (!isNetworkError(e)) throw e;
        c.outbox.add(m);
      });
    }
  } catch (e) {
    if (!c.files.items.length) {
      c.setText(before(typed));
      c.setQuoting(quote);
    }
    c.setError(errorText(e));
  } finally {
    c.setSending(false);
    c.field.current?.focus();
  }
}

function AbsentNote({ id, absent }: { id: string; absent: readonly Mentionable[] }) {
  const one = absent.length === 1;
  return (
    <p id={id} className="agentry-web__mention-note" role="status">
      {absent.map((a) => a.name).join(", ")} {one ? "is" : "are"} not in this group, so {one ? "it" : "they"} will not answer. Add{" "}
      {one ? "it" : "them"} in Group details.
    </p>
  );
}

function Outbox({ waiting, online, onDiscard }: { waiting: readonly Waiting[]; online: boolean; onDiscard(key: string): void }) {
  if (!waiting.length) return null;
  return (
    <ul className="agentry-web__outbox" aria-label="Messages waiting to be sent">
      {waiting.map((w) => (
        <li key={w.key} className="agentry-web__outbox-item">
          <span className="agentry-web__outbox-text">{w.message.getText()}</span>
          <span className="agentry-web__outbox-state">{online ? "Sending…" : "Waiting for the connection"}</span>
          <button type="button" className="agentry-web__link-button" onClick={() => onDiscard(w.key)}>
            Discard
          </button>
        </li>
      ))}
    </ul>
  );
}

function QuoteBar({ quoting, onCancel }: { quoting: Chat.BaseMessage; onCancel(): void }) {
  const name = quoting.getSender()?.getName() || quoting.getSender()?.getUid() || "a message";
  return (
    <div className="agentry-web__quoting" role="group" aria-label={`Replying to ${name}`}>
      <div className="agentry-web__quoting-text">
        <span className="agentry-web__quoting-title">Replying to {name}</span>
        <span className="agentry-web__quoting-line">{quoteLine(quoting)}</span>
      </div>
      <button type="button" className="agentry-web__button agentry-web__button--quiet" onClick={onCancel} aria-label="Cancel the reply">
        <span aria-hidden="true">✕</span>
      </button>
    </div>
  );
}

function MentionList({ id, mentions }: { id: string; mentions: ReturnType<typeof useMentions> }) {
  return (
    <ul id={id} className="agentry-web__mentions" role="listbox" aria-label="People and agents to mention">
      {mentions.suggestions.map((m, i) => (
        <li key={m.uid} id={`${id}-${i}`} role="option" aria-selected={i === mentions.active} className="agentry-web__mention-option"
          onMouseDown={(e) => {
            e.preventDefault();
            mentions.pick(m);
          }}>
          <span className="agentry-web__mention-name">{m.name}</span>
          <span className="agentry-web__muted"> @{m.uid}{m.agent ? " · agent" : ""}{m.agent && !m.member ? " · not in this group" : ""}</span>
        </li>
      ))}
    </ul>
  );
}
