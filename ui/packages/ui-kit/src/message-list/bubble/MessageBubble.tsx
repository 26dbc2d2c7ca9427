/**
 * One message of the list: the bubble (content, status line, receipt), the sender's name and
 * avatar where needed, and the places the message features plug into — options on hover and
 * keyboard focus, reactions under the bubble, the translation, the inline editor, the
 * moderation note and the thread reply count.
 */
import { memo, type ReactNode } from "react";
import { Chat } from "@agentry/chat-sdk";
import { Avatar } from "../../base/Avatar";
import { formatCalendar, sentAtDefaults } from "../../dates";
import { MessageListAlignment, type ChatMessageTemplate, type ChatTextFormatter } from "../../types";
import { AgenticContent } from "../agent/AgenticContent";
import { InlineEditor } from "../options/InlineEditor";
import { MessageOptions } from "../options/MessageOptions";
import { Reactions } from "../options/Reactions";
import type { ChatMessageListProps } from "../props";
import { ActionMessage, actionText } from "./ActionMessage";
import { MediaContent } from "./MediaContent";
import { QuotedMessage } from "./QuotedMessage";
import { StatusInfo } from "./StatusInfo";
import { TextContent } from "./TextContent";

export interface MessageBubbleProps {
  message: Chat.BaseMessage;
  me: Chat.User;
  listProps: ChatMessageListProps;
  isGroup: boolean;
  inThread: boolean;
  /** The first message of a run of one sender: it shows the sender's name and avatar. */
  firstOfRun: boolean;
  /** An agent's answer whose tool calls show in the steps block after it. */
  toolCallsInSteps?: boolean;
  formatters: readonly ChatTextFormatter[];
  template: ChatMessageTemplate | undefined;
  highlighted: boolean;
  /** Roving tab stop: one message of the list is in the tab order. */
  tabbable: boolean;
  translation: string | undefined;
  editing: boolean;
  onTranslated(messageId: number, text: string): void;
  onEdit(message: Chat.BaseMessage): void;
  onEditDone(edited?: Chat.BaseMessage): void;
  onError(error: unknown): void;
  onFocusMessage(id: number): void;
  /** Shows a message of the list (a quote reply's quoted message). */
  onJumpTo?(id: number): void;
}

/** Content of a message by category and type; templates' contentView wins. */
function content(p: MessageBubbleProps): ReactNode {
  const m = p.message;
  if (m.getDeletedAt()) {
    return (
      <div className="chat-delete-bubble">
        <span className="chat-delete-bubble__text">{m.getSender()?.getUid() === p.me.getUid() ? "You deleted this message" : "This message was deleted"}</span>
      </div>
    );
  }
  if (p.template?.contentView) return p.template.contentView(m);
  if (m instanceof Chat.AgenticMessage) return <AgenticContent message={m} props={p.listProps} hideToolCalls={!!p.toolCallsInSteps} me={p.me.getUid()} />;
  if (m instanceof Chat.TextMessage) return <TextContent message={m} text={m.getText()} formatters={p.formatters} />;
  if (m instanceof Chat.MediaMessage) return <MediaContent message={m} formatters={p.formatters} />;
  if (m instanceof Chat.CustomMessage) {
    const text = m.getConversationText();
    return (
      <div className="chat-custom-bubble">
        {text ? <TextContent message={m} text={text} formatters={p.formatters} /> : <span className="chat-custom-bubble__type">{m.getType()}</span>}
      </div>
    );
  }
  return <div className="chat-unsupported-bubble">This message cannot be shown</div>;
}

function moderationNote(m: Chat.BaseMessage): ReactNode {
  const s = m.getModerationStatus();
  if (s === "pending") {
    return <p className="chat-message-bubble__moderation-view chat-message-bubble__moderation-view--pending">Awaiting moderation: not visible to others yet</p>;
  }
  if (s === "disapproved") {
    return <p className="chat-message-bubble__moderation-view chat-message-bubble__moderation-view--disapproved">Blocked by moderation: this message was not delivered</p>;
  }
  return null;
}

function Bubble(p: MessageBubbleProps) {
  const m = p.message;
  const me = p.me.getUid();
  const lp = p.listProps;
  const id = m.getId();
  const outgoing = m.getSender()?.getUid() === me;
  const deleted = !!m.getDeletedAt();
  const sender = m.getSender();
  const senderName = outgoing ? "You" : (sender?.getName() ?? "Unknown");
  const sent = new Date(m.getSentAt() * 1000);
  const label = `${senderName}, ${formatCalendar(sent, lp.messageSentAtDateTimeFormat, sentAtDefaults)}`;
  const common = {
    "data-message-id": id,
    tabIndex: p.tabbable ? 0 : -1,
    onFocus: () => p.onFocusMessage(id),
  };
  const highlight = p.highlighted ? " chat-message-list__message--highlighted" : "";

  if (m.getCategory() === "action") {
    return (
      <article className={`chat-message-list__message chat-message-list__message--action${highlight}`} aria-label={actionText(m, me)} {...common}>
        <ActionMessage message={m} me={me} />
      </article>
    );
  }

  const left = lp.messageAlignment === MessageListAlignment.left;
  // Who sent it is told by the side in a standard one-to-one list; otherwise by name/avatar.
  const showSender = (left || (p.isGroup && !outgoing)) && p.firstOfRun;
  const withAvatar = (left || (p.isGroup && !outgoing)) && !lp.hideAvatar;
  const direction = outgoing ? "outgoing" : "incoming";
  const cls =
    `chat-message-list__message chat-message-list__message--${direction}${highlight}` +
    (p.firstOfRun ? " chat-message-list__message--first" : "");
  const t = p.template;

  if (t?.bubbleView) {
    return (
      <article className={cls} aria-label={label} {...common}>
        {t.bubbleView(m)}
      </article>
    );
  }

  // A template's footer replaces the reactions row; null or undefined for a message keeps it,
  // so a footer only some messages need (a card under one reply) does not cost the others
  // their reactions. An empty fragment hides the row.
  const footer = t?.footerView ? t.footerView(m) : undefined;
  const editing = p.editing && !deleted;
  const quoted = m.getQuotedMessage();
  return (
    <article className={cls} aria-label={label} {...common}>
      <div className={`chat-message-bubble chat-message-bubble-${direction}` + (m instanceof Chat.AgenticMessage ? " chat-message-bubble--agentic" : "")}>
        {withAvatar ? (
          <div className="chat-message-bubble__leading-view">
            {showSender ? <Avatar name={sender?.getName() ?? "?"} image={sender?.getAvatar()} /> : null}
          </div>
        ) : null}
        <div className="chat-message-bubble__wrapper">
          {t?.headerView ? (
            <div className="chat-message-bubble__header-view">{t.headerView(m)}</div>
          ) : showSender ? (
            <div className="chat-message-bubble__header-view">
              <span className="chat-message-bubble__sender-name">{outgoing ? p.me.getName() : senderName}</span>
            </div>
          ) : null}
          <div className="chat-message-bubble__row">
            <div className={`chat-message-bubble__body${deleted ? " chat-message-bubble__body--deleted" : ""}`}>
              {quoted && !deleted ? <QuotedMessage quoted={quoted} me={me} onOpen={p.onJumpTo} /> : null}
              {editing ? <InlineEditor message={m} onDone={p.onEditDone} onError={p.onError} /> : content(p)}
              {p.translation && !deleted ? (
                <div className="chat-message-bubble__translation">
                  <span className="chat-message-bubble__translation-label">Translation</span>
                  <p className="chat-message-bubble__translation-text">{p.translation}</p>
                </div>
              ) : null}
              <StatusInfo message={m} showReceipt={outgoing && !lp.hideReceipts && !deleted} format={lp.messageSentAtDateTimeFormat} />
            </div>
            {!deleted && !editing ? (
              <div className="chat-message-bubble__options">
                <MessageOptions message={m} isOutgoing={outgoing} props={lp} loggedInUser={p.me} onTranslated={p.onTranslated} onEdit={p.onEdit} onError={p.onError} />
              </div>
            ) : null}
          </div>
          {!lp.hideModerationView && !deleted ? moderationNote(m) : null}
          {footer != null ? (
            <div className="chat-message-bubble__footer-view">{footer}</div>
          ) : !deleted ? (
            <Reactions message={m} props={lp} loggedInUser={p.me} onError={p.onError} />
          ) : null}
          {m.getReplyCount() > 0 && !p.inThread && !deleted ? (
            <button type="button" className="chat-message-bubble__thread-view-replies" onClick={() => lp.onThreadRepliesClick?.(m)}>
              {m.getReplyCount() === 1 ? "1 reply" : `${m.getReplyCount()} replies`}
            </button>
          ) : null}
        </div>
      </div>
    </article>
  );
}

/** Re-renders only when its own message (a new copy on every change) or its view state changes. */
export const MessageBubble = memo(Bubble);
