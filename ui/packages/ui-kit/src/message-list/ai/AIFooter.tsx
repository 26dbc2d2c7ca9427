// CONTRACT (see options/MessageOptions.tsx): smart replies and conversation starters.
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useRef, useState, type RefObject } from "react";
import { ChatMessageEvents, MessageStatus } from "../../events";
import { messageText } from "../options/optionList";
import { defaultSmartRepliesKeywords, type ChatMessageListProps } from "../props";
import { useAIEnabled } from "./useAIEnabled";

export interface AIFooterProps {
  props: ChatMessageListProps;
  user?: Chat.User;
  group?: Chat.Group;
  loggedInUser: Chat.User;
  /** The newest stored message shown (smart replies answer it when it is someone else's). */
  lastMessage?: Chat.BaseMessage;
  isEmpty: boolean;
  onError(error: unknown): void;
}

/** Whether a message should get smart replies: someone else's, with one of the keywords. */
export function wantsSmartReplies(m: Chat.BaseMessage | undefined, me: string, keywords: readonly string[]): boolean {
  if (!m || !m.getId() || m.getDeletedAt() || m.getSender()?.getUid() === me) return false;
  const text = messageText(m).toLowerCase();
  return text !== "" && keywords.some((k) => k !== "" && text.includes(k.toLowerCase()));
}

/**
 * .chat-message-list__footer-smart-replies (showSmartReplies: after smartRepliesDelayDuration,
 * when the last message is another's and holds a keyword) and
 * .chat-message-list__footer-conversation-starter (showConversationStarters, empty conversation);
 * choosing one sends it. Renders nothing while AI is off (Chat.isAIEnabled()).
 */
/** Suggestions (smart replies, conversation starters) for key while on, fetched delayMs after (at once without a delay). */
function useSuggestions(on: boolean, key: string, delayMs: number | undefined, fetch: () => Promise<string[]>, onError: RefObject<(e: unknown) => void>, also?: string) {
  const [got, setGot] = useState<{ for: string; items: string[] }>();
  const fetchRef = useRef(fetch);
  fetchRef.current = fetch;
  useEffect(() => {
    if (!on) return;
    let live = true;
    const go = () => void fetchRef.current().then((items) => live && setGot({ for: key, items }), (e: unknown) => live && onError.current(e));
    const timer = delayMs === undefined ? go() : setTimeout(go, Math.max(0, delayMs));
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [on, key, delayMs, onError, also]);
  return on && got?.for === key && got.items.length > 0 ? got.items : undefined;
}

export function AIFooter({ props, user, group, loggedInUser, lastMessage, isEmpty, onError }: AIFooterProps) {
  const ai = useAIEnabled(!!props.showSmartReplies || !!props.showConversationStarters) === true;
  const receiver = group ? { id: group.getGuid(), type: "group" as const } : user ? { id: user.getUid(), type: "user" as const } : undefined;
  const receiverKey = receiver ? `${receiver.type}:${receiver.id}` : "";
  const keywords = props.smartRepliesKeywords ?? defaultSmartRepliesKeywords;
  const onErrorRef = useRef(onError);
  onErrorRef.current = onError;
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(() => new Set());
  const [sending, setSending] = useState(false);
  const smartKey = `${receiverKey}#${lastMessage?.getId() ?? 0}`;
  const smartOn = ai && !!props.showSmartReplies && !!receiver && wantsSmartReplies(lastMessage, loggedInUser.getUid(), keywords);
  // receiver is read through receiverKey; keywords through their JSON (arrays change identity)
  const replies = useSuggestions(smartOn, smartKey, props.smartRepliesDelayDuration ?? 10_000, () => Chat.getSmartReplies(receiver!.id, receiver!.type), onErrorRef,
    JSON.stringify(keywords));
  const starters = useSuggestions(ai && !!props.showConversationStarters && isEmpty && !!receiver, receiverKey, undefined,
    () => Chat.getConversationStarter(receiver!.id, receiver!.type), onErrorRef);
  if (!ai || !receiver) return null;
  const send = async (text: string, key: string) => {
    setSending(true);
    const m = new Chat.TextMessage(receiver.id, text, receiver.type);
    if (props.parentMessageId) m.setParentMessageId(props.parentMessageId);
    try {
      const sent = await Chat.sendMessage(m);
      setDismissed((d) => new Set(d).add(key));
      ChatMessageEvents.ccMessageSent.next({ message: sent, status: MessageStatus.success });
    } catch (e) {
      onErrorRef.current(e);
    } finally {
      setSending(false);
    }
  };
  const startersKey = `starters#${receiverKey}`;
  const showReplies = replies && !dismissed.has(smartKey);
  const showStarters = starters && !dismissed.has(startersKey);
  if (!showReplies && !showStarters) return null;
  return (
    <div className="chat-message-list__ai-footer">
      {showReplies ? (
        <div className="chat-message-list__footer-smart-replies" role="group" aria-label="Smart replies">
          {replies.map((r) => (
            <button key={r} type="button" className="chat-ui-chip chat-ai-reply" disabled={sending} onClick={() => void send(r, smartKey)}>
              {r}
            </button>
          ))}
          <button type="button" className="chat-ui-icon-button chat-ai-dismiss" aria-label="Dismiss smart replies" title="Dismiss"
            onClick={() => setDismissed((d) => new Set(d).add(smartKey))}>
            <span aria-hidden="true">×</span>
          </button>
        </div>
      ) : null}
      {showStarters ? (
        <div className="chat-message-list__footer-conversation-starter" role="group" aria-label="Conversation starters">
          {starters.map((s) => (
            <button key={s} type="button" className="chat-ui-chip chat-ai-starter" disabled={sending} onClick={() => void send(s, startersKey)}>
              {s}
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
