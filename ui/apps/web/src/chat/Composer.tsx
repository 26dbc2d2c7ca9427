import { Chat } from "@agentry/chat-sdk";
import { ChatMessageEvents, MessageStatus } from "@agentry/ui-kit";
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { errorText } from "../session";

export interface ComposerProps {
  receiverId: string;
  receiverType: Chat.ReceiverType;
  /** Replies in this message's thread. */
  parentMessageId?: number;
  /** The field's accessible name, e.g. "Message General". */
  label: string;
  placeholder?: string;
}

/** A text field: Enter sends, Shift+Enter starts a new line. */
export function Composer({ receiverId, receiverType, parentMessageId, label, placeholder }: ComposerProps) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [error, setError] = useState("");
  const field = useRef<HTMLTextAreaElement>(null);
  const typingSince = useRef(0);
  const indicator = () => new Chat.TypingIndicator(receiverId, receiverType, parentMessageId ? { parentMessageId } : undefined);
  /** Tells the others at most every 3 s while the user types (an indicator ends by itself). */
  const typing = (value: string) => {
    const now = Date.now();
    if (value.trim() && now - typingSince.current > 3000) {
      typingSince.current = now;
      Chat.startTyping(indicator());
    }
  };
  const stopTyping = () => {
    if (!typingSince.current) return;
    typingSince.current = 0;
    Chat.endTyping(indicator());
  };
  // Leaving the conversation (or the page) while typing: the others' indicator ends now, not
  // when it times out.
  useEffect(
    () => () => {
      if (!typingSince.current) return;
      typingSince.current = 0;
      Chat.endTyping(new Chat.TypingIndicator(receiverId, receiverType, parentMessageId ? { parentMessageId } : undefined));
    },
    [receiverId, receiverType, parentMessageId],
  );
  const id = useId();
  const errorId = useId();

  const send = async () => {
    const typed = text;
    const t = typed.trim();
    if (!t || sending) return;
    setSending(true);
    setError("");
    stopTyping();
    // The field clears at once, so the next message can be typed while this one is sent; a
    // failed one comes back (before what was typed meanwhile).
    setText("");
    try {
      const m = new Chat.TextMessage(receiverId, t, receiverType);
      if (parentMessageId) m.setParentMessageId(parentMessageId);
      const sent = await Chat.sendMessage(m);
      ChatMessageEvents.ccMessageSent.next({ message: sent, status: MessageStatus.success });
    } catch (e) {
      setText((cur) => (cur.trim() === "" ? typed : `${typed}\n${cur}`));
      setError(errorText(e));
    } finally {
      setSending(false);
      field.current?.focus();
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void send();
  };

  return (
    <form className="agentry-web__composer" onSubmit={onSubmit}>
      <label htmlFor={id} className="agentry-web__sr-only">
        {label}
      </label>
      <textarea id={id} ref={field} className="agentry-web__composer-input" rows={1} value={text} placeholder={placeholder ?? label}
        onChange={(e) => {
          setText(e.target.value);
          typing(e.target.value);
        }}
        onBlur={stopTyping} onKeyDown={onKeyDown} aria-describedby={error ? errorId : undefined} />
      <button type="submit" className="agentry-web__button" disabled={sending || !text.trim()}>
        Send
      </button>
      {error ? (
        <p id={errorId} className="agentry-web__error agentry-web__composer-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}
