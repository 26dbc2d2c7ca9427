// CONTRACT (see options/MessageOptions.tsx): smart replies and conversation starters.
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useRef, useState } from "react";
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
export function AIFooter({ props, user, group, loggedInUser, lastMessage, isEmpty, onError }: AIFooterProps) {
  const wanted = !!props.showSmartReplies || !!props.showConversationStarters;
  const ai = useAIEnabled(wanted) === true;
  const receiver = group ? { id: group.getGuid(), type: "group" as const } : user ? { id: user.getUid(), type: "user" as const } : undefined;
  const receiverKey = receiver ? `${receiver.type}:${receiver.id}` : "";
  const me = loggedInUser.getUid();
  const keywords = props.smartRepliesKeywords ?? defaultSmartRepliesKeywords;
  const keywordsKey = JSON.stringify(keywords);
  const delay = props.smartRepliesDelayDuration ?? 10_000;
  const lastId = lastMessage?.getId() ?? 0;
  const trigger = wantsSmartReplies(lastMessage, me, keywords);
  const onErrorRef = useRef(onError);
  onErrorRef.current = onError;

  const [replies, setReplies] = useState<{ for: string; items: string[] }>();
  const [starters, setStarters] = useState<{ for: string; items: string[] }>();
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(() => new Set());
  const [sending, setSending] = useState(false);

  const smartOn = ai && !!props.showSmartReplies && !!receiver && trigger;
  const smartKey = `${receiverKey}#${lastId}`;
  useEffect(() => {
    if (!smartOn || !receiver) return;
    let live = true;
    const timer = setTimeout(() => {
      Chat.getSmartReplies(receiver.id, receiver.type).then(
        (items) => live && setReplies({ for: smartKey, items }),
        (e: unknown) => live && onErrorRef.current(e),
      );
    }, Math.max(0, delay));
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // receiver is read through receiverKey; keywords through keywordsKey (arrays change identity)
  }, [smartOn, smartKey, delay, keywordsKey]);

  const startersOn = ai && !!props.showConversationStarters && isEmpty && !!receiver;
  useEffect(() => {
    if (!startersOn || !receiver) return;
    let live = true;
    Chat.getConversationStarter(receiver.id, receiver.type).then(
      (items) => live && setStarters({ for: receiverKey, items }),
      (e: unknown) => live && onErrorRef.current(e),
    );
    return () => {
      live = false;
    };
  }, [startersOn, receiverKey]);

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

  const showReplies = smartOn && replies?.for === smartKey && replies.items.length > 0 && !dismissed.has(smartKey);
  const startersKey = `starters#${receiverKey}`;
  const showStarters = startersOn && starters?.for === receiverKey && starters.items.length > 0 && !dismissed.has(startersKey);
  if (!showReplies && !showStarters) return null;
  return (
    <div className="chat-message-list__ai-footer">
      {showReplies ? (
        <div className="chat-message-list__footer-smart-replies" role="group" aria-label="Smart replies">
          {replies.items.map((r) => (
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
          {starters.items.map((s) => (
            <button key={s} type="button" className="chat-ui-chip chat-ai-starter" disabled={sending} onClick={() => void send(s, startersKey)}>
              {s}
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
