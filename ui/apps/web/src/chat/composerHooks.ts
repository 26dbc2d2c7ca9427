// The composer's parts as hooks: the typing indicator, the outbox of messages waiting for the
// connection, the @-mention being typed, and the quote reply the list asked for.
import { Chat } from "@agentry/chat-sdk";
import { ChatMessageEvents, MessageStatus } from "@agentry/ui-kit";
import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type RefObject } from "react";
import type { Connection } from "../connection";
import { errorText, isNetworkError } from "../session";
import { insertMention, mentionAt, suggest, type Mentionable } from "./mentions";

/** Sends a text message and tells the list. */
export async function deliver(m: Chat.TextMessage): Promise<void> {
  const sent = await Chat.sendMessage(m);
  ChatMessageEvents.ccMessageSent.next({ message: sent, status: MessageStatus.success });
}

/** Tells the others at most every 3 s while the user types; an emptied field, leaving the
 * conversation (or the page) ends it at once. */
export function useTypingIndicator(receiverId: string, receiverType: Chat.ReceiverType, parentMessageId: number | undefined) {
  const since = useRef(0);
  const indicator = useCallback(
    () => new Chat.TypingIndicator(receiverId, receiverType, parentMessageId ? { parentMessageId } : undefined),
    [receiverId, receiverType, parentMessageId],
  );
  const stop = useCallback(() => {
    if (!since.current) return;
    since.current = 0;
    Chat.endTyping(indicator());
  }, [indicator]);
  useEffect(() => stop, [stop]);
  const typed = (value: string) => {
    if (!value.trim()) return stop();
    const now = Date.now();
    if (now - since.current > 3000) {
      since.current = now;
      Chat.startTyping(indicator());
    }
  };
  return { typed, stop };
}

/** A message that could not go out for want of a connection: sent again (same muid, so never
 * twice) as soon as the connection is back, or by hand. */
export interface Waiting {
  key: string;
  message: Chat.TextMessage;
}

/** Back online: what waited goes out, in order; one the service refuses comes back to the field
 * with its error. An error about the connection is over once it is back. */
export function useOutbox(connection: Connection, giveBack: (text: string) => void, setError: (update: (e: string) => string) => void) {
  const [waiting, setWaiting] = useState<Waiting[]>([]);
  const drop = (key: string) => setWaiting((list) => list.filter((x) => x.key !== key));
  const flushing = useRef(false);
  const give = useRef(giveBack);
  give.current = giveBack;
  useEffect(() => {
    if (connection !== "online" || flushing.current || !waiting.length) return;
    flushing.current = true;
    void (async () => {
      for (const w of waiting) {
        try {
          await deliver(w.message);
          drop(w.key);
        } catch (e) {
          if (!isNetworkError(e)) {
            drop(w.key);
            give.current(w.message.getText());
            setError(() => errorText(e));
          }
          break;
        }
      }
      flushing.current = false;
    })();
  }, [connection, waiting, setError]);
  useEffect(() => {
    if (connection === "online") setError((e) => (e && e === errorText(new Chat.ChatException(Chat.SDK_ERROR.NETWORK, "")) ? "" : e));
  }, [connection, setError]);
  return { waiting, drop, add: (m: Chat.TextMessage) => setWaiting((list) => [...list, { key: `${Date.now()}-${list.length}`, message: m }]) };
}

/** The mention being typed at the caret, its suggestions, and the keys that choose one. */
export function useMentions(mentionables: readonly Mentionable[], text: string, setText: (t: string) => void, field: RefObject<HTMLTextAreaElement | null>) {
  const [mention, setMention] = useState<{ start: number; query: string; caret: number; active: number }>();
  const suggestions = mention ? suggest(mentionables, mention.query) : [];
  const suggesting = !!mention && suggestions.length > 0;
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
  /** Arrows move, Enter or Tab picks, Escape closes the suggestions; true when the key was theirs. */
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!suggesting || !mention) return false;
    const n = suggestions.length;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") setMention({ ...mention, active: (mention.active + (e.key === "ArrowDown" ? 1 : n - 1)) % n });
    else if ((e.key === "Enter" || e.key === "Tab") && !e.nativeEvent.isComposing) pick(suggestions[Math.min(mention.active, n - 1)]!);
    else if (e.key === "Escape") setMention(undefined);
    else return false;
    e.preventDefault();
    return true;
  };
  return {
    active: mention?.active ?? 0,
    suggestions,
    suggesting,
    pick,
    onKeyDown,
    close: () => setMention(undefined),
    update(el: HTMLTextAreaElement) {
      const at = el.selectionStart === el.selectionEnd ? mentionAt(el.value, el.selectionStart) : undefined;
      setMention((cur) => (at ? { ...at, caret: el.selectionStart, active: cur && cur.start === at.start ? cur.active : 0 } : undefined));
    },
  };
}

/** Whether a message the kit offers to quote belongs to this composer's conversation. */
function belongsHere(m: Chat.BaseMessage, receiverId: string, receiverType: Chat.ReceiverType, parentMessageId: number): boolean {
  if ((m.getParentMessageId() || 0) !== parentMessageId || m.getReceiverType() !== receiverType) return false;
  return receiverType === Chat.RECEIVER_TYPE.GROUP ? m.getReceiverId() === receiverId : m.getReceiverId() === receiverId || m.getSender()?.getUid() === receiverId;
}

/** The list's "Reply" (quote) on a message of this conversation. */
export function useQuoting(receiverId: string, receiverType: Chat.ReceiverType, parentMessageId: number | undefined, field: RefObject<HTMLTextAreaElement | null>) {
  const [quoting, setQuoting] = useState<Chat.BaseMessage>();
  useEffect(() => {
    const s = ChatMessageEvents.ccReplyToMessage.subscribe(({ message }) => {
      if (!belongsHere(message, receiverId, receiverType, parentMessageId ?? 0)) return;
      setQuoting(message);
      field.current?.focus();
    });
    return () => s.unsubscribe();
  }, [receiverId, receiverType, parentMessageId, field]);
  return [quoting, setQuoting] as const;
}
