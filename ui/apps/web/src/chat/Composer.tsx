import { Chat } from "@agentry/chat-sdk";
import { ChatMessageEvents, MessageStatus } from "@agentry/ui-kit";
import { useCallback, useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { useConnection } from "../connection";
import { errorText, isNetworkError } from "../session";
import { Attachments, useAttachments } from "./Attachments";
import { absentAgents, insertMention, mentionAt, suggest, type Mentionable } from "./mentions";

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

/** A message that could not go out for want of a connection: sent again (same muid, so never
 * twice) as soon as the connection is back, or by hand. */
interface Waiting {
  key: string;
  message: Chat.TextMessage;
}

/** Whether a message the kit offers to quote belongs to this composer's conversation. */
function belongsHere(m: Chat.BaseMessage, receiverId: string, receiverType: Chat.ReceiverType, parentMessageId: number): boolean {
  if ((m.getParentMessageId() || 0) !== parentMessageId || m.getReceiverType() !== receiverType) return false;
  return receiverType === Chat.RECEIVER_TYPE.GROUP ? m.getReceiverId() === receiverId : m.getReceiverId() === receiverId || m.getSender()?.getUid() === receiverId;
}

function quoteLine(m: Chat.BaseMessage): string {
  if (m instanceof Chat.TextMessage || m instanceof Chat.AgenticMessage) return m.getText();
  if (m instanceof Chat.MediaMessage) return m.getCaption() || m.getAttachment()?.getName() || "an attachment";
  return "a message";
}

/** The composer: Enter sends, Shift+Enter starts a new line; a quote reply shows what it
 * answers; files are picked, pasted or dropped; a send without a connection waits for it. */
export function Composer({ receiverId, receiverType, parentMessageId, label, placeholder, mentionables = [] }: ComposerProps) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [error, setError] = useState("");
  const [quoting, setQuoting] = useState<Chat.BaseMessage>();
  const [waiting, setWaiting] = useState<Waiting[]>([]);
  const connection = useConnection();
  const files = useAttachments({ receiverId, receiverType, parentMessageId, onError: setError });
  const field = useRef<HTMLTextAreaElement>(null);
  const typingSince = useRef(0);
  const indicator = useCallback(
    () => new Chat.TypingIndicator(receiverId, receiverType, parentMessageId ? { parentMessageId } : undefined),
    [receiverId, receiverType, parentMessageId],
  );
  /** Tells the others at most every 3 s while the user types; an emptied field ends it at once. */
  const typing = (value: string) => {
    if (!value.trim()) {
      stopTyping();
      return;
    }
    const now = Date.now();
    if (now - typingSince.current > 3000) {
      typingSince.current = now;
      Chat.startTyping(indicator());
    }
  };
  const stopTyping = () => {
    if (!typingSince.current) return;
    typingSince.current = 0;
    Chat.endTyping(indicator());
  };
  // Leaving the conversation (or the page) while typing: the others' indicator ends now.
  useEffect(
    () => () => {
      if (!typingSince.current) return;
      typingSince.current = 0;
      Chat.endTyping(indicator());
    },
    [indicator],
  );

  // The list's "Reply" (quote) on a message of this conversation.
  useEffect(() => {
    const s = ChatMessageEvents.ccReplyToMessage.subscribe(({ message }) => {
      if (!belongsHere(message, receiverId, receiverType, parentMessageId ?? 0)) return;
      setQuoting(message);
      field.current?.focus();
    });
    return () => s.unsubscribe();
  }, [receiverId, receiverType, parentMessageId]);

  const deliver = useCallback(async (m: Chat.TextMessage) => {
    const sent = await Chat.sendMessage(m);
    ChatMessageEvents.ccMessageSent.next({ message: sent, status: MessageStatus.success });
  }, []);

  // Back online: what waited goes out, in order; an error about the connection is over.
  const flushing = useRef(false);
  useEffect(() => {
    if (connection !== "online" || flushing.current || !waiting.length) return;
    flushing.current = true;
    void (async () => {
      for (const w of waiting) {
        try {
          await deliver(w.message);
          setWaiting((list) => list.filter((x) => x.key !== w.key));
        } catch (e) {
          if (!isNetworkError(e)) {
            setWaiting((list) => list.filter((x) => x.key !== w.key));
            setText((cur) => (cur.trim() === "" ? w.message.getText() : `${w.message.getText()}\n${cur}`));
            setError(errorText(e));
          }
          break;
        }
      }
      flushing.current = false;
    })();
  }, [connection, waiting, deliver]);
  useEffect(() => {
    if (connection === "online") setError((e) => (e && e === errorText(new Chat.ChatException(Chat.SDK_ERROR.NETWORK, "")) ? "" : e));
  }, [connection]);

  const id = useId();
  const errorId = useId();
  const listId = useId();
  const absentId = useId();

  // The mention being typed at the caret, and its suggestions.
  const [mention, setMention] = useState<{ start: number; query: string; caret: number; active: number }>();
  const suggestions = mention ? suggest(mentionables, mention.query) : [];
  const suggesting = !!mention && suggestions.length > 0;
  const updateMention = (el: HTMLTextAreaElement) => {
    const at = el.selectionStart === el.selectionEnd ? mentionAt(el.value, el.selectionStart) : undefined;
    setMention((cur) => (at ? { ...at, caret: el.selectionStart, active: cur && cur.start === at.start ? cur.active : 0 } : undefined));
  };
  const pick = (m: Mentionable) => {
    if (!mention) return;
    const next = insertMention(text, mention.start, mention.caret, m.uid);
    setText(next.text);
    setMention(undefined);
    requestAnimationFrame(() => {
      field.current?.focus();
      field.current?.setSelectionRange(next.caret, next.caret);
    });
  };
  const absent = absentAgents(text, mentionables);

  const send = async () => {
    const typed = text;
    const t = typed.trim();
    if ((!t && !files.items.length) || sending) return;
    setSending(true);
    setError("");
    stopTyping();
    const quote = quoting;
    // The field clears at once, so the next message can be typed while this one is sent; a
    // failed one comes back (before what was typed meanwhile).
    setText("");
    setQuoting(undefined);
    setMention(undefined);
    try {
      if (files.items.length) await files.sendAll(t);
      else {
        const m = new Chat.TextMessage(receiverId, t, receiverType);
        if (parentMessageId) m.setParentMessageId(parentMessageId);
        if (quote) m.setQuotedMessageId(quote.getId());
        try {
          await deliver(m);
        } catch (e) {
          if (!isNetworkError(e)) throw e;
          setWaiting((list) => [...list, { key: `${Date.now()}-${list.length}`, message: m }]);
        }
      }
    } catch (e) {
      if (!files.items.length) {
        setText((cur) => (cur.trim() === "" ? typed : `${typed}\n${cur}`));
        setQuoting(quote);
      }
      setError(errorText(e));
    } finally {
      setSending(false);
      field.current?.focus();
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (suggesting && mention) {
      const n = suggestions.length;
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        setMention({ ...mention, active: (mention.active + (e.key === "ArrowDown" ? 1 : n - 1)) % n });
        return;
      }
      if ((e.key === "Enter" || e.key === "Tab") && !e.nativeEvent.isComposing) {
        e.preventDefault();
        pick(suggestions[Math.min(mention.active, n - 1)]!);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        setMention(undefined);
        return;
      }
    }
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
  const quotedName = quoting ? (quoting.getSender()?.getName() || quoting.getSender()?.getUid() || "a message") : "";

  return (
    <form className={`agentry-web__composer${files.dragging ? " agentry-web__composer--drop" : ""}`} onSubmit={onSubmit} {...files.dropHandlers}>
      {waiting.length ? (
        <ul className="agentry-web__outbox" aria-label="Messages waiting to be sent">
          {waiting.map((w) => (
            <li key={w.key} className="agentry-web__outbox-item">
              <span className="agentry-web__outbox-text">{w.message.getText()}</span>
              <span className="agentry-web__outbox-state">{connection === "online" ? "Sending…" : "Waiting for the connection"}</span>
              <button type="button" className="agentry-web__link-button" onClick={() => setWaiting((l) => l.filter((x) => x.key !== w.key))}>
                Discard
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {quoting ? (
        <div className="agentry-web__quoting" role="group" aria-label={`Replying to ${quotedName}`}>
          <div className="agentry-web__quoting-text">
            <span className="agentry-web__quoting-title">Replying to {quotedName}</span>
            <span className="agentry-web__quoting-line">{quoteLine(quoting)}</span>
          </div>
          <button type="button" className="agentry-web__button agentry-web__button--quiet" onClick={() => { setQuoting(undefined); field.current?.focus(); }}
            aria-label="Cancel the reply">
            <span aria-hidden="true">✕</span>
          </button>
        </div>
      ) : null}
      <Attachments files={files} />
      {suggesting ? (
        <ul id={listId} className="agentry-web__mentions" role="listbox" aria-label="People and agents to mention">
          {suggestions.map((m, i) => (
            <li key={m.uid} id={`${listId}-${i}`} role="option" aria-selected={i === mention!.active} className="agentry-web__mention-option"
              onMouseDown={(e) => {
                e.preventDefault();
                pick(m);
              }}>
              <span className="agentry-web__mention-name">{m.name}</span>
              <span className="agentry-web__muted"> @{m.uid}{m.agent ? " · agent" : ""}{m.agent && !m.member ? " · not in this group" : ""}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {absent.length ? (
        <p id={absentId} className="agentry-web__mention-note" role="status">
          {absent.map((a) => a.name).join(", ")} {absent.length === 1 ? "is" : "are"} not in this group, so {absent.length === 1 ? "it" : "they"} will not answer. Add{" "}
          {absent.length === 1 ? "it" : "them"} in Group details.
        </p>
      ) : null}
      <div className="agentry-web__composer-row">
        <files.PickButton />
        <label htmlFor={id} className="agentry-web__sr-only">
          {label}
        </label>
        <textarea id={id} ref={field} className="agentry-web__composer-input" rows={1} value={text} placeholder={placeholder ?? label}
          onChange={(e) => {
            setText(e.target.value);
            typing(e.target.value);
            updateMention(e.target);
          }}
          onSelect={(e) => updateMention(e.currentTarget)}
          onPaste={files.onPaste}
          onBlur={() => {
            stopTyping();
            setMention(undefined);
          }}
          onKeyDown={onKeyDown}
          aria-autocomplete={mentionables.length ? "list" : undefined}
          aria-controls={suggesting ? listId : undefined}
          aria-activedescendant={suggesting ? `${listId}-${mention!.active}` : undefined}
          aria-describedby={[error ? errorId : "", absent.length ? absentId : ""].filter(Boolean).join(" ") || undefined} />
        <button type="submit" className="agentry-web__button" disabled={sending || (!text.trim() && !files.items.length)}>
          Send
        </button>
      </div>
      {error ? (
        <p id={errorId} className="agentry-web__error agentry-web__composer-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}
